"""Asking the terminal for its background colour (OSC 11), so ``system`` and ``light/dark`` themes
can follow it.

The query is written to the controlling terminal with the terminal in raw mode and answered, by
terminals that support it, as ``ESC ] 11 ; rgb:RRRR/GGGG/BBBB`` ended by BEL or ST. pi_cli waits
at most ``timeout`` seconds (100 ms: a terminal that answers at all answers in a few) and then
drops whatever input arrived, so a late answer cannot turn into typed text. Only asked when the
chosen theme depends on it; never when stdin or stdout is not a terminal (pipes, tests, CI).
"""

from __future__ import annotations

import os
import re
import select
import sys

_ANSWER = re.compile(rb"\x1b\]11;rgb:([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})")
QUERY = b"\x1b]11;?\x07"


def parse_background(answer: bytes) -> str | None:
    """``#rrggbb`` from a terminal's OSC 11 answer (channels of 1–4 hex digits), or None."""
    match = _ANSWER.search(answer)
    if match is None:
        return None
    channels = [int(part, 16) / (16 ** len(part) - 1) for part in match.groups()]
    return "#" + "".join(f"{round(c * 255):02x}" for c in channels)


def query_background(timeout: float = 0.1) -> str | None:
    """The terminal's background as ``#rrggbb``, or None when it cannot tell in ``timeout`` s."""
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
            os.write(fd, QUERY)
            while parse_background(answer) is None:
                ready, _, _ = select.select([fd], [], [], timeout)
                if not ready:
                    break
                answer += os.read(fd, 256)
        finally:
            termios.tcflush(fd, termios.TCIFLUSH)  # a late or partial answer must not become input
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        return parse_background(answer)
    except (OSError, termios.error):
        return None
    finally:
        os.close(fd)
