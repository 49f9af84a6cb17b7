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


_SGR = re.compile(r"\x1b\[[0-9;:]*m")


def keep_sgr(text: str) -> str:
    """Like :func:`strip_control_sequences` but keeps SGR styles (``ESC [ … m``: colours, bold),
    for text an extension styled on purpose (a tool renderer's lines); a line's tabs and
    newlines stay, everything that could move the cursor or talk to the terminal goes."""
    if not text:
        return text
    kept: list[str] = []

    def hold(match: re.Match[str]) -> str:
        kept.append(match.group(0))
        return f"\x00{len(kept) - 1}\x00"

    # SGR sequences are set aside (as NUL-marked indexes, NUL itself being a stripped control)
    text = _SGR.sub(hold, text.replace("\x00", ""))
    parts = re.split(r"\x00(\d+)\x00", text)
    out = [strip_control_sequences(part) if i % 2 == 0 else kept[int(part)] for i, part in enumerate(parts)]
    return "".join(out)
