"""The first message as pi composes it: piped stdin, then ``@file`` contents, then ``messages[0]``.

pi concatenates the three with no separator (✔ observed). Each text file contributes
``<file name="/abs/path">\\n<content>\\n</file>\\n``; an image file (PNG, JPEG, GIF, WebP, detected
by magic bytes, as the read tool does) becomes an image attachment plus
``<file name="/abs/path"></file>\\n``; empty files are skipped; a missing file is an
:class:`InputFileError`.
"""

from __future__ import annotations

import base64
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pi_cli.errors import InputFileError
from pi_cli.tools.files.images import detect_image_mime

if TYPE_CHECKING:
    from pi_cli.ai.types import ImageContent


@dataclass(slots=True)
class InitialInput:
    """``first`` (may be empty), its image attachments, and the messages to send after it."""

    first: str = ""
    images: list[ImageContent] = field(default_factory=list)
    rest: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.first and not self.images and not self.rest


def _resolve(arg: str, cwd: Path) -> Path:
    path = Path(os.path.expanduser(arg))
    if not path.is_absolute():
        path = cwd / path
    return Path(os.path.normpath(path))


def read_file_args(file_args: list[str], cwd: Path) -> tuple[str, list[ImageContent]]:
    """Text and image attachments for ``@file`` arguments, in order."""
    text_parts: list[str] = []
    images: list[ImageContent] = []
    for arg in file_args:
        path = _resolve(arg, cwd)
        if not path.exists():
            raise InputFileError(f"Error: File not found: {path}")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise InputFileError(f"Error: Could not read file {path}: {exc.strerror or exc}") from None
        if not data:
            continue
        mime = detect_image_mime(data[:16])
        if mime is not None:
            images.append({"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime})
            text_parts.append(f'<file name="{path}"></file>\n')
            continue
        content = data.decode("utf-8", errors="replace")
        text_parts.append(f'<file name="{path}">\n{content}\n</file>\n')
    return "".join(text_parts), images


def compose_initial_input(stdin_text: str | None, file_args: list[str], messages: list[str], cwd: Path) -> InitialInput:
    """Join stdin, files and the first message as pi does; later messages stay separate prompts."""
    file_text, images = read_file_args(file_args, cwd)
    first_message = messages[0] if messages else ""
    stdin_part = stdin_text.strip() if stdin_text else ""
    return InitialInput(first=stdin_part + file_text + first_message, images=images, rest=list(messages[1:]))


def read_piped_stdin() -> str | None:
    """All of stdin when it is a pipe or file; None for a terminal or a closed stdin."""
    import sys

    stream = sys.stdin
    if stream is None:
        return None
    try:
        if stream.isatty():
            return None
        return stream.buffer.read().decode("utf-8", errors="replace")
    except (OSError, ValueError):
        return None
