"""A corpus of terminal-hostile text: what a model, a file or a command could try to print."""

from __future__ import annotations

import re

CURSOR = "\x1b[2J\x1b[H\x1b[10A\x1b[5;5H\x1b7\x1b8\x1b[?25l\x1b[?1049h"
OSC52 = "\x1b]52;c;cm0gLXJmIH4K\x07" + "\x1b]52;p;cm0gLXJmIH4K\x1b\\"
TITLE = "\x1b]0;pwned\x07" + "\x1b]2;owned\x1b\\"
HYPERLINK = "\x1b]8;;file:///etc/passwd\x1b\\click\x1b]8;;\x1b\\"
C1 = "\x9b2J" + "\x9d52;c;cm0=\x9c" + "\x9d0;t\x07"
DCS = "\x1bP+q544e\x1b\\" + "\x1b_apc\x1b\\" + "\x1b^pm\x1b\\"
OTHER = "\x1bc" + "\x1b(0" + "\x08\x08" + "\x00\x05\x7f" + "\x1b[38;5;196mred\x1b[0m"
UNTERMINATED = "\x1b]52;c;cm0gLXJmIH4K"

PIECES = {
    "cursor": CURSOR,
    "osc52": OSC52,
    "title": TITLE,
    "hyperlink": HYPERLINK,
    "c1": C1,
    "dcs": DCS,
    "other": OTHER,
    "unterminated": UNTERMINATED,
}
# The unterminated OSC goes last: like a terminal, a sanitiser drops everything after it.
CORPUS = (
    "before " + "".join(v for k, v in PIECES.items() if k != "unterminated") + " after\nline two\tcol" + UNTERMINATED
)
# Everything but the ESC/C1/control bytes is visible text the user should still see.
VISIBLE = ("before", "click", "red", "after", "line two\tcol")

_BAD = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SGR = re.compile(r"\x1b\[[0-9;]*m")


_BAD_C0 = re.compile(r"[\x00-\x08\x0b-\x1f]")


def assert_inert(text: str, *, allow_sgr: bool = False, c0_only: bool = False) -> None:
    """No escape, C1 or control byte but tab/newline (colour SGR allowed when ``allow_sgr``;
    ``c0_only`` checks C0 controls and ESC only)."""
    if allow_sgr:
        text = _SGR.sub("", text)
    found = sorted({f"{ord(c):#04x}" for c in (_BAD_C0 if c0_only else _BAD).findall(text)})
    assert not found, f"control characters left: {found} in {text!r}"
