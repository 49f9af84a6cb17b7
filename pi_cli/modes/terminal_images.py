"""Images drawn in the terminal itself, with the kitty graphics or iTerm2 inline-image protocol.

Which protocol: ``PI_IMAGE_PROTOCOL`` (``kitty``, ``iterm2``, ``none``) forces one; otherwise
kitty for kitty, Ghostty and WezTerm-with-kitty (``KITTY_WINDOW_ID``, ``TERM=xterm-kitty``,
``TERM_PROGRAM=ghostty``), iTerm2's for iTerm2 and WezTerm (``TERM_PROGRAM``), and none
elsewhere. Inside tmux (``TMUX``) none is used unless forced: tmux drops these sequences unless
its ``allow-passthrough`` is on, and then they must be wrapped (:func:`encode` does when forced).
Settings ``terminal.showImages: false`` turns images off; ``terminal.imageWidthCells`` sets their
width (default 60 columns). The sequences hold only base64 image data pi_cli encodes itself: no
text from a model or a tool reaches the terminal through them.
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Mapping
from typing import Literal

from pi_cli.ai.types import ImageContent

Protocol = Literal["kitty", "iterm2"]
DEFAULT_WIDTH_CELLS = 60
_KITTY_CHUNK = 4096


def image_protocol(env: Mapping[str, str] | None = None, show_images: bool = True) -> Protocol | None:
    """The protocol to draw images with in this terminal, or None (show a text placeholder)."""
    env = os.environ if env is None else env
    forced = env.get("PI_IMAGE_PROTOCOL", "").strip().lower()
    if forced in ("kitty", "iterm2"):
        return forced  # type: ignore[return-value]  # checked just above
    if forced == "none" or not show_images or in_tmux(env):
        return None
    program = env.get("TERM_PROGRAM", "").lower()
    if env.get("KITTY_WINDOW_ID") or env.get("TERM") == "xterm-kitty" or program == "ghostty":
        return "kitty"
    if program in ("iterm.app", "wezterm"):
        return "iterm2"
    return None


def in_tmux(env: Mapping[str, str] | None = None) -> bool:
    """Whether pi_cli runs inside tmux, whose passthrough the sequences then need (a forced
    protocol only: :func:`image_protocol` picks none there otherwise)."""
    return bool((os.environ if env is None else env).get("TMUX"))


def _tmux_wrap(sequence: str) -> str:
    # tmux's passthrough: ESC P tmux; <sequence with every ESC doubled> ESC \
    return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"


def encode(image: ImageContent, protocol: Protocol, width_cells: int = DEFAULT_WIDTH_CELLS, tmux: bool = False) -> str:
    """The escape sequence that draws ``image`` ``width_cells`` columns wide, then a newline; ""
    when its data is not valid base64 (nothing unchecked is sent to the terminal)."""
    if protocol == "kitty" and image.get("mimeType") != "image/png":
        return ""  # kitty draws PNG (f=100) or raw pixels; other formats keep their placeholder
    data = image.get("data", "")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return ""
    payload = base64.b64encode(raw).decode("ascii")  # re-encoded: exactly base64's alphabet
    if protocol == "iterm2":
        sequence = f"\x1b]1337;File=inline=1;size={len(raw)};width={width_cells};preserveAspectRatio=1:{payload}\x07"
        return (_tmux_wrap(sequence) if tmux else sequence) + "\n"
    chunks = [payload[i : i + _KITTY_CHUNK] for i in range(0, len(payload), _KITTY_CHUNK)] or [""]
    parts = []
    for n, chunk in enumerate(chunks):
        more = 1 if n < len(chunks) - 1 else 0
        control = f"a=T,f=100,c={width_cells},m={more}" if n == 0 else f"m={more}"
        part = f"\x1b_G{control};{chunk}\x1b\\"
        parts.append(_tmux_wrap(part) if tmux else part)
    return "".join(parts) + "\n"


# --- kitty's Unicode placeholders (the full-screen TUI) ------------------------------------------
# Textual owns every cell, so the TUI cannot let the terminal put an image at the cursor. kitty
# (0.28+) and Ghostty also show an image through text: the image is sent once with a *virtual*
# placement of C x R cells, and each cell that shows part of it is the private-use character
# U+10EEEE whose foreground colour is the image id and whose two combining marks name the cell's
# row and column. Those cells scroll, crop and repaint like any text.

PLACEHOLDER = "\U0010eeee"
# Row/column numbers as combining marks: kitty's gen/rowcolumn-diacritics.txt (Unicode 6.0
# class-230 marks without decompositions), written here as code-point ranges.
_DIACRITIC_RANGES = (
    "0305 030D-030E 0310 0312 033D-033F 0346 034A-034C 0350-0352 0357 035B 0363-036F 0483-0487 "
    "0592-0595 0597-0599 059C-05A1 05A8-05A9 05AB-05AC 05AF 05C4 0610-0617 0657-065B 065D-065E "
    "06D6-06DC 06DF-06E2 06E4 06E7-06E8 06EB-06EC 0730 0732-0733 0735-0736 073A 073D 073F-0741 "
    "0743 0745 0747 0749-074A 07EB-07F1 07F3 0816-0819 081B-0823 0825-0827 0829-082D 0951 "
    "0953-0954 0F82-0F83 0F86-0F87 135D-135F 17DD 193A 1A17 1A75-1A7C 1B6B 1B6D-1B73 1CD0-1CD2 "
    "1CDA-1CDB 1CE0 1DC0-1DC1 1DC3-1DC9 1DCB-1DCC 1DD1-1DE6 1DFE 20D0-20D1 20D4-20D7 20DB-20DC "
    "20E1 20E7 20E9 20F0 2CEF-2CF1 2DE0-2DFF A66F A67C-A67D A6F0-A6F1 A8E0-A8F1 AAB0 AAB2-AAB3 "
    "AAB7-AAB8 AABE-AABF AAC1 FE20-FE26 10A0F 10A38 1D185-1D189 1D1AA-1D1AD 1D242-1D244"
)


def _expand(ranges: str) -> str:
    marks: list[str] = []
    for item in ranges.split():
        first, _, last = item.partition("-")
        marks.extend(chr(code) for code in range(int(first, 16), int(last or first, 16) + 1))
    return "".join(marks)


DIACRITICS = _expand(_DIACRITIC_RANGES)  # DIACRITICS[n] marks row or column n (297 of them)


def tui_image_protocol(env: Mapping[str, str] | None = None, show_images: bool = True) -> Protocol | None:
    """The protocol the full-screen TUI draws with: kitty's placeholders where kitty's protocol
    is in use (detected or forced); None otherwise (the TUI then draws half blocks). iTerm2's
    protocol has no placeholders: it draws at the cursor, which Textual never leaves there."""
    return "kitty" if image_protocol(env, show_images) == "kitty" else None


def kitty_upload(rgba_z: bytes, width: int, height: int, image_id: int, *, tmux: bool = False) -> str:
    """The sequences that give the terminal image ``image_id``: ``rgba_z`` is zlib-compressed
    8-bit RGBA of ``width`` x ``height`` pixels (kitty's f=32, o=z), sent quietly (q=2) in
    chunks of 4096 base64 characters, as kitty's protocol asks."""
    payload = base64.b64encode(rgba_z).decode("ascii")
    chunks = [payload[i : i + _KITTY_CHUNK] for i in range(0, len(payload), _KITTY_CHUNK)] or [""]
    parts = []
    for n, chunk in enumerate(chunks):
        more = 1 if n < len(chunks) - 1 else 0
        control = f"a=t,f=32,o=z,s={width},v={height},i={image_id},q=2,m={more}" if n == 0 else f"m={more}"
        parts.append(f"\x1b_G{control};{chunk}\x1b\\")
    return "".join(_tmux_wrap(part) if tmux else part for part in parts)


def kitty_virtual_placement(image_id: int, cols: int, rows: int, *, tmux: bool = False) -> str:
    """The sequence that lets placeholder cells show image ``image_id`` fitted in ``cols`` x ``rows``."""
    sequence = f"\x1b_Ga=p,U=1,i={image_id},c={cols},r={rows},q=2\x1b\\"
    return _tmux_wrap(sequence) if tmux else sequence


def placeholder_row(row: int, cols: int) -> str:
    """Row ``row`` of a placement ``cols`` wide: one placeholder per cell with its row and column
    marks (every cell names both, so a row cut anywhere still draws the right part)."""
    mark = DIACRITICS[row]
    return "".join(f"{PLACEHOLDER}{mark}{DIACRITICS[col]}" for col in range(cols))


def placeholder_color(image_id: int) -> tuple[int, int, int]:
    """The 24-bit foreground colour that names ``image_id`` (ids stay below 2**24)."""
    return (image_id >> 16) & 255, (image_id >> 8) & 255, image_id & 255
