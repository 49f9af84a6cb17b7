"""End-to-end fixtures shared with tests/cli (a fake LLM server and a private pi environment)."""

from __future__ import annotations

from cli.pi_harness import pi, server

__all__ = ["pi", "server"]
