"""Neutralise terminal control sequences in text that a model or a command produced.

Text printed straight to a terminal could otherwise move the cursor, change the window title,
write the clipboard (OSC 52) or plant ``file://`` hyperlinks (OSC 8). This is the last step before
anything reaches a terminal in the inline and print front ends; the tools' own stripping helper
is used when present, and a self-contained fallback keeps this module importable on its own.
"""

from __future__ import annotations

import re

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), DCS/SOS/PM/APC (ESC P/X/^/_ ... ST), other
# two-byte ESC sequences, 8-bit C1 controls, and C0 controls other than tab and newline.
_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[@-Z\\-_]"
    r"|\x1b"
    r"|[\x80-\x9f]"
    r"|[\x00-\x08\x0b-\x1f\x7f]"
)


def safe(text: str) -> str:
    """``text`` without terminal control sequences; tabs and newlines are kept, CR dropped."""
    return _CONTROL.sub("", text)
