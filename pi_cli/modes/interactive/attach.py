"""The TUI's pending image attachments: Ctrl-V and pasted or dropped image paths add one, the
next message sent takes them all (Ctrl-C with an empty editor drops them). They are listed as
chips above the editor (:class:`~pi_cli.modes.interactive.widgets.status.QueueArea`)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pi_cli.ai.types import ImageContent
from pi_cli.modes.attachments import AttachmentError, clipboard_image, describe, image_from_pasted


class ImageAttachments:
    """Images waiting for the next message, with the names their chips show."""

    def __init__(self, cwd: Path) -> None:
        self._cwd = cwd
        self._images: list[tuple[ImageContent, str]] = []

    def __bool__(self) -> bool:
        return bool(self._images)

    def chips(self) -> list[str]:
        """One label per image: ``[image 1] screenshot.png · png · 34 KB``."""
        return [f"[image {n}] {describe(image, name)}" for n, (image, name) in enumerate(self._images, 1)]

    async def paste_clipboard(self) -> str:
        """Attach the clipboard's image (read off the event loop: the tool may be slow); returns
        the notice. Raises AttachmentError with the reason there is none."""
        image = await asyncio.to_thread(clipboard_image)
        self._images.append((image, "clipboard"))
        return f"Image attached ({describe(image)}): it goes with your next message"

    def attach_pasted(self, text: str) -> bool:
        """Attach ``text`` if it is the path of an image file (a drop pastes the path); False
        when it is ordinary text for the editor. Raises AttachmentError for an unreadable image."""
        found = image_from_pasted(text, self._cwd)
        if found is None:
            return False
        self._images.append(found)
        return True

    def take(self) -> list[ImageContent] | None:
        """The images for the message being sent (None when there are none); the list empties."""
        images = [image for image, _ in self._images] or None
        self._images = []
        return images

    def clear(self) -> int:
        count = len(self._images)
        self._images = []
        return count


__all__ = ["AttachmentError", "ImageAttachments"]
