"""Asking the terminal for its colours (OSC 11 background, OSC 10 foreground, OSC 4 for ANSI colours
1–6), so ``system`` and ``light/dark`` themes can follow it.

The queries are written to the controlling terminal with the terminal in raw mode and answered,
by terminals that support them, as ``ESC ] 11 ; rgb:RRRR/GGGG/BBBB`` (``10``, ``4;N``) ended by BEL
or ST; a terminal answers in order, and the background is asked last, so its answer means the
others have arrived or never will. pi_cli waits
at most ``timeout`` seconds (100 ms: a terminal that answers at all answers in a few) and then
drops whatever input arrived, so a late answer cannot turn into typed text. Only asked when the
chosen theme depends on it; never when stdin or stdout is not a terminal (pipes, tests, CI).
"""

from __future__ import annotations

import os
import re
import select
import sys

from pi_cli.resources.themes import TerminalPalette

# A whole answer only (BEL or ST after it): a half-read one must not be taken for a colour.
_CHANNELS = rb"rgb:([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})(?:\x07|\x1b\\)"
_ANSWER = re.compile(rb"\x1b\]11;" + _CHANNELS)
_FOREGROUND = re.compile(rb"\x1b\]10;" + _CHANNELS)
_ANSI = re.compile(rb"\x1b\]4;(\d+);" + _CHANNELS)
QUERY = b"\x1b]11;?\x07"
FULL_QUERY = b"\x1b]10;?\x07" + b"".join(b"\x1b]4;%d;?\x07" % n for n in range(1, 7)) + QUERY


def _hex(parts: tuple[bytes, ...]) -> str:
    channels = [int(part, 16) / (16 ** len(part) - 1) for part in parts]
    return "#" + "".join(f"{round(c * 255):02x}" for c in channels)


def parse_background(answer: bytes) -> str | None:
    """``#rrggbb`` from a terminal's OSC 11 answer (channels of 1–4 hex digits), or None."""
    match = _ANSWER.search(answer)
    return None if match is None else _hex(match.groups())


def parse_palette(answer: bytes) -> TerminalPalette | None:
    """The background, foreground and ANSI colours in a terminal's answers (None without a
    background)."""
    background = parse_background(answer)
    if background is None:
        return None
    foreground = _FOREGROUND.search(answer)
    ansi = {int(m.group(1)): _hex(m.groups()[1:]) for m in _ANSI.finditer(answer)}
    return TerminalPalette(background, _hex(foreground.groups()) if foreground else "", ansi)


def query_background(timeout: float = 0.1) -> str | None:
    """The terminal's background as ``#rrggbb``, or None when it cannot tell in ``timeout`` s."""
    answer = _ask(QUERY, timeout)
    return None if answer is None else parse_background(answer)


def query_palette(timeout: float = 0.1) -> TerminalPalette | None:
    """The terminal's colours (see :func:`parse_palette`), or None when it cannot tell."""
    answer = _ask(FULL_QUERY, timeout)
    return None if answer is None else parse_palette(answer)


def _ask(query: bytes, timeout: float) -> bytes | None:
    """Write ``query`` to the terminal and read until its background answer (the last asked)
    arrives or ``timeout`` s pass without input; None when there is no terminal."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()) or os.name != "posix":
        return None
    import termios
    import tty

    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return None
    try:
        saved = termios.tcgetattr(fd)
        answer = b""
        try:
            tty.setraw(fd)
            os.write(fd, query)
            while parse_background(answer) is None:
                ready, _, _ = select.select([fd], [], [], timeout)
                if not ready:
                    break
                answer += os.read(fd, 256)
        finally:
            termios.tcflush(fd, termios.TCIFLUSH)  # a late or partial answer must not become input
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        return answer
    except (OSError, termios.error):
        return None
    finally:
        os.close(fd)
