"""Terminal-control stripping for text shown in the TUI.

Carriage-return progress lines are folded to what a terminal would show last, then
``pi_cli.modes.safe_text.safe`` removes every escape and control sequence.
"""

from __future__ import annotations

from pi_cli.modes.safe_text import safe


def _last_overwrite(line: str) -> str:
    """What a terminal shows for a line rewritten with carriage returns."""
    if "\r" not in line:
        return line
    parts = [part for part in line.split("\r") if part]
    return parts[-1] if parts else ""


def clean(text: str) -> str:
    """``text`` safe to render: no escape sequences, CR-overwritten lines folded."""
    if "\r" in text:
        text = "\n".join(_last_overwrite(line) for line in text.replace("\r\n", "\n").split("\n"))
    return safe(text)
