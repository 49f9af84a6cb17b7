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
    if forced == "none" or not show_images or env.get("TMUX"):
        return None
    program = env.get("TERM_PROGRAM", "").lower()
    if env.get("KITTY_WINDOW_ID") or env.get("TERM") == "xterm-kitty" or program == "ghostty":
        return "kitty"
    if program in ("iterm.app", "wezterm"):
        return "iterm2"
    return None


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
