"""The one terminal sanitiser every front end uses (``pi_cli.tools.sanitize``), against hostile text.

Model output and command output reach the TUI and inline front ends through
``strip_control_sequences``; nothing that could move the cursor, retitle the window, write the
clipboard or plant a hyperlink may survive.
"""

from __future__ import annotations

import pytest

from pi_cli.tools.sanitize import strip_control_sequences

HOSTILE = [
    ("\x1b]52;c;ZXZpbA==\x07after", "after"),  # OSC 52 clipboard write, BEL-terminated
    ("\x1b]52;c;ZXZpbA==\x1b\\after", "after"),  # ... ST-terminated
    ("\x1b]8;;file:///etc/passwd\x1b\\link\x1b]8;;\x1b\\", "link"),  # OSC 8 file:// hyperlink
    ("\x9d8;;file:///x\x9clink", "link"),  # 8-bit OSC with 8-bit ST
    ("\x1bPq#0;2;0\x1b\\dcs", "dcs"),  # DCS (sixel)
    ("\x1b_apc\x1b\\a\x1b^pm\x1b\\p\x1bXsos\x1b\\s", "aps"),  # APC, PM, SOS
    ("\x9b2Jc1", "c1"),  # 8-bit CSI
    ("\x85\x8d\x90x\x9c", "x"),  # other C1 controls
    ("\x1b[?1049h\x1b[2J\x1b[31mred\x1b[0m", "red"),  # CSI
    ("\x1bc\x1b7\x1b8\x1b#8\x1b%Gz", "z"),  # reset, save/restore cursor, DEC tests, charset
    ("tail\x1b", "tail"),  # lone ESC
    ("\x00\x01\x07\x08\x0b\x0c\x0e\x1f\x7fz", "z"),  # C0 controls and DEL
    ("keep\ttab\nnewline", "keep\ttab\nnewline"),
    ("10%\r50%\r100%\ndone\r\n", "100%\ndone\n"),  # progress redraws fold to the last one
]


@pytest.mark.parametrize(("raw", "shown"), HOSTILE)
def test_hostile_sequences_are_neutralised(raw: str, shown: str) -> None:
    out = strip_control_sequences(raw)
    assert out == shown
    assert not any((ord(ch) < 0x20 and ch not in "\t\n") or 0x7F <= ord(ch) <= 0x9F for ch in out)
