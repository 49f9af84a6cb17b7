"""Removing terminal control sequences from text before a UI shows it.

Tool output (bash in particular) may carry colour codes, cursor movement, OSC titles and
hyperlinks, or stray control bytes that would corrupt a terminal UI. :func:`strip_control_sequences`
drops all of them and keeps printable text, newlines and tabs. A bare carriage return (progress bars
redraw a line with it) keeps only what was drawn after the last one on that line, as a terminal
would show it; ``\\r\\n`` becomes ``\\n``.
"""

from __future__ import annotations

import re

# ESC-based sequences, in order: CSI (ESC [ params final), OSC (ESC ] ... BEL or ST), DCS/SOS/PM/APC
# strings (ESC P|X|^|_ ... ST), two-byte escapes (ESC + one char in 0x40-0x7E) and charset
# designations (ESC ( B etc.). The 8-bit C1 forms of CSI (0x9B) and OSC (0x9D) are covered as well.
_SEQUENCES = re.compile(
    r"""
    (?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]
  | (?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?
  | \x1b[PX^_][^\x1b\x9c]*(?:\x1b\\|\x9c)?
  | \x1b[()*+\-./][ -~]?
  | \x1b[ -/]*[0-~]?
    """,
    re.VERBOSE,
)
# Everything on a line up to its last bare \r that still has text after it (the overwritten part).
_REDRAWN = re.compile(r"[^\n]*\r(?=[^\r\n])")
# Remaining C0 controls except \t and \n, DEL, and C1 controls.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def strip_control_sequences(text: str) -> str:
    """Return ``text`` without ANSI/OSC/DCS escape sequences or control characters (``\\n``, ``\\t`` kept)."""
    if not text:
        return text
    text = _SEQUENCES.sub("", text)
    text = text.replace("\r\n", "\n")
    if "\r" in text:
        text = _REDRAWN.sub("", text)
    return _CONTROLS.sub("", text)
