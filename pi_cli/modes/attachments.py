"""Images a person attaches to a prompt: from the clipboard (Ctrl-V) or a pasted or dropped path.

Both front ends use this; it holds no UI. A terminal that has a file dropped on it pastes the
file's path (quoted, escaped or as a ``file://`` URL): :func:`image_from_pasted` recognises a
path to an image and reads it. :func:`clipboard_image` asks the platform's clipboard tool for an
image: ``wl-paste`` under Wayland, ``xclip`` under X11, ``pngpaste`` or ``osascript`` on macOS.
Every failure is a :class:`AttachmentError` with one line that says what to do.
"""

from __future__ import annotations

import base64
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlparse

from pi_cli.ai.types import ImageContent

MAX_IMAGE_BYTES = 20 * 1024 * 1024  # what a provider takes at most, roughly; larger is refused here
_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}
_CLIPBOARD_TIMEOUT_S = 5.0


class AttachmentError(ValueError):
    """An image that could not be attached; the message is one line for the user."""


def image_content(data: bytes, mime: str) -> ImageContent:
    """An image block for a prompt; raises AttachmentError when it is too large."""
    if len(data) > MAX_IMAGE_BYTES:
        raise AttachmentError(
            f"Image too large to attach: {len(data) // 1024} KB (at most {MAX_IMAGE_BYTES // 2**20} MB)"
        )
    return {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime}


def describe(image: ImageContent, name: str = "") -> str:
    """A chip's text: ``screenshot.png · png · 34 KB``."""
    data = image["data"]
    size = len(data) * 3 // 4 - data[-2:].count("=")  # base64's length less its padding
    kind = image["mimeType"].removeprefix("image/")
    label = f"{size / 1024:.0f} KB" if size >= 1024 else f"{size} B"
    return " · ".join(part for part in (name, kind, label) if part)


def _pasted_path(text: str, cwd: Path) -> Path | None:
    """The file a paste names, if it is one path (quoted, backslash-escaped or a file:// URL)."""
    text = text.strip()
    if not text or "\n" in text or len(text) > 4096:
        return None
    if text.startswith("file://"):
        text = unquote(urlparse(text).path)
    elif not (cwd / Path(text).expanduser()).is_file():  # a bare path may hold spaces: try it whole first
        try:
            parts = shlex.split(text)
        except ValueError:
            return None
        if len(parts) != 1:
            return None
        text = parts[0]
    path = Path(text).expanduser()
    path = path if path.is_absolute() else cwd / path
    return path if path.suffix.lower() in _TYPES and path.is_file() else None


def image_from_pasted(text: str, cwd: Path) -> tuple[ImageContent, str] | None:
    """(the image, its file name) when ``text`` is the path of an image file; None otherwise (the
    paste is ordinary text). Raises AttachmentError for an image that cannot be read."""
    path = _pasted_path(text, cwd)
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise AttachmentError(f"Cannot attach {path}: {exc.strerror or exc}") from None
    return image_content(data, _TYPES[path.suffix.lower()]), path.name


def _run(argv: list[str]) -> bytes | None:
    try:
        done = subprocess.run(argv, capture_output=True, timeout=_CLIPBOARD_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def _image_type(types: bytes | None) -> str | None:
    offered = [t.strip() for t in (types or b"").decode(errors="replace").splitlines()]
    return next((t for t in ("image/png", "image/jpeg", "image/gif", "image/webp") if t in offered), None)


def _from_wayland() -> tuple[bytes, str] | None:
    mime = _image_type(_run(["wl-paste", "--list-types"]))
    data = _run(["wl-paste", "--no-newline", "--type", mime]) if mime else None
    return (data, mime) if data and mime else None


def _from_x11() -> tuple[bytes, str] | None:
    mime = _image_type(_run(["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"]))
    data = _run(["xclip", "-selection", "clipboard", "-t", mime, "-o"]) if mime else None
    return (data, mime) if data and mime else None


def _from_macos() -> tuple[bytes, str] | None:
    if shutil.which("pngpaste"):
        data = _run(["pngpaste", "-"])
        return (data, "image/png") if data else None
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "clip.png"
        script = (
            f'set f to open for access POSIX file "{target}" with write permission\n'
            "write (the clipboard as «class PNGf») to f\nclose access f"
        )
        if _run(["osascript", "-e", script]) is None or not target.is_file():
            return None
        return target.read_bytes(), "image/png"


def clipboard_image() -> ImageContent:
    """The image on the clipboard; raises AttachmentError when there is none or no tool to ask."""
    if sys.platform == "darwin":
        tools, found = ["osascript"], _from_macos
    elif os.environ.get("WAYLAND_DISPLAY") and shutil.which("wl-paste"):
        tools, found = ["wl-paste"], _from_wayland
    elif os.environ.get("DISPLAY") and shutil.which("xclip"):
        tools, found = ["xclip"], _from_x11
    else:
        raise AttachmentError(
            "No clipboard tool for images: install wl-clipboard (Wayland) or xclip (X11), or paste an image's path"
        )
    result = found()
    if result is None:
        raise AttachmentError(f"No image on the clipboard ({tools[0]} found none)")
    return image_content(*result)
