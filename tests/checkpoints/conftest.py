"""Fixtures for the RPC rewind tests: the same ``server`` and ``pi`` as tests/cli."""

from __future__ import annotations

from cli.pi_harness import pi, server

__all__ = ["pi", "server"]
