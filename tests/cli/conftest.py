"""Fixtures for the end-to-end CLI tests (defined in pi_harness, shared with tests/rpc)."""

from __future__ import annotations

from .pi_harness import pi, server

__all__ = ["pi", "server"]
