"""ACP prompt content blocks → the text and images of a pi user message.

Text blocks and resource links read inline (a link becomes ``@path`` for a ``file://`` URI, its URI
otherwise); embedded text resources (the editor's selection or an open buffer, which may be unsaved)
follow as fenced blocks naming their URI; images become pi image blocks. Audio and binary
resources are not something pi's models take, so they are named in the text instead of dropped
silently.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_cli.ai.types import ImageContent
from urllib.parse import unquote, urlparse


def _link_text(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return "@" + unquote(parsed.path)
    return uri


def prompt_to_message(blocks: list[dict[str, Any]]) -> tuple[str, list[ImageContent]]:
    """``(text, images)`` for ``AgentSession.prompt``; blocks are ACP ``ContentBlock`` dicts."""
    inline: list[str] = []
    attached: list[str] = []
    images: list[ImageContent] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            inline.append(str(block.get("text") or ""))
        elif kind == "resource_link":
            inline.append(_link_text(str(block.get("uri") or "")))
        elif kind == "image" and block.get("data"):
            images.append({"type": "image", "data": block["data"], "mimeType": block.get("mimeType") or "image/png"})
        elif kind == "resource":
            resource = block.get("resource") or {}
            uri = str(resource.get("uri") or "")
            if isinstance(resource.get("text"), str):
                attached.append(f'<context uri="{uri}">\n{resource["text"]}\n</context>')
            else:
                attached.append(f"(binary resource {uri} not included)")
        elif kind == "audio":
            attached.append("(an audio clip was attached; it is not supported and was left out)")
    text = _join_inline(inline)
    if attached:
        text = "\n\n".join(part for part in (text, *attached) if part)
    return text, images


def _join_inline(parts: list[str]) -> str:
    """Concatenate inline parts, adding a space only where two would otherwise run together."""
    out = ""
    for part in parts:
        if out and part and not out[-1].isspace() and not part[0].isspace():
            out += " "
        out += part
    return out
