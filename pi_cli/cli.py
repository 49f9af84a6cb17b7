"""Command-line entry point (replaced by the full CLI)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] in (["--version"], ["-v"]):
        from pi_cli import __version__

        print(__version__)
        return 0
    return 0
