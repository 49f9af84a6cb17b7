"""MCP ``CallToolResult`` → pi tool result content blocks.

Text stays text and images stay images. Audio, resource links and embedded resources have no pi
block, so they become a line of text saying what they are. An embedded resource gives its text: a
``text`` resource as sent, a ``blob`` of a ``text/*`` type decoded (UTF-8); any other blob is saved
to a temporary file whose path the line names, so the model can read it with its tools, as pi does.
``structuredContent`` is kept in ``details`` and, when the server sent no content at all, given to
the model as JSON text. A result with ``isError`` becomes an error naming the server.
"""

from __future__ import annotations

import base64
import binascii
import json
import mimetypes
import os
import tempfile
from typing import Any, cast

from pi_cli.agent.types import AgentToolResult
from pi_cli.ai.types import UserContent
from pi_cli.mcp.config import mcp_namespace
from pi_cli.mcp.errors import McpError

# Text blocks longer than this reach the model with their middle cut out (pi's 20 KB rule); the full
# text is saved to a temporary file named in the result.
MAX_TEXT_CHARS = 20_000


def _shorten(text: str, server: str) -> str:
    if len(text) <= MAX_TEXT_CHARS:
        return text
    fd, path = tempfile.mkstemp(prefix=f"pi-mcp-{mcp_namespace(server)}-", suffix=".txt")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    half = MAX_TEXT_CHARS // 2
    cut = len(text) - 2 * half
    return f"{text[:half]}\n…{cut} chars truncated…\n{text[-half:]}\n\n[Full output: {path}]"


def _blob_text(resource: dict[str, Any]) -> str:
    """The model's view of a ``blob`` resource: decoded text for ``text/*``, else the file it was saved to."""
    uri = resource.get("uri")
    mime = str(resource.get("mimeType") or "")
    try:
        data = base64.b64decode(str(resource.get("blob") or ""), validate=False)
    except (binascii.Error, ValueError):
        return f"[binary resource: {uri} ({mime or '?'}), not valid base64]"
    if mime.startswith("text/"):
        return data.decode("utf-8", errors="replace")
    # Keep the extension the type implies, so a viewer (or the read tool, for images) knows the file.
    suffix = (mimetypes.guess_extension(mime) if mime else None) or ".bin"
    fd, path = tempfile.mkstemp(prefix="pi-mcp-resource-", suffix=suffix)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return f"[binary resource: {uri} ({mime or '?'}, {len(data)} bytes) saved to {path}]"


class McpToolError(McpError):
    """The server answered the call with ``isError: true``."""


def resource_link_text(link: dict[str, Any], readable_on: str | None = None) -> str:
    """pi 1.6.0's text for a ``resource_link`` block: ``[Resource <uri> "<title or name>" (<mime>,
    <size>): <description>]`` (the parenthesis and description only when known), with ``. Read it
    with read_mcp_resource (server "<name>")`` when ``readable_on`` names the server and
    ``read_mcp_resource`` reaches it."""
    from pi_cli.tools.truncate import format_size

    size = link.get("size")
    details = [str(link["mimeType"])] if link.get("mimeType") else []
    if isinstance(size, int | float) and not isinstance(size, bool):
        details.append(format_size(int(size)))
    title = link.get("title") if link.get("title") is not None else link.get("name")
    described = f": {link['description']}" if link.get("description") else ""
    shown = f" ({', '.join(details)})" if details else ""
    read = f' Read it with read_mcp_resource (server "{readable_on}")' if readable_on else ""
    return f'[Resource {link.get("uri")} "{title}"{shown}{described}{"." if read else ""}{read}]'


def _block(item: Any, readable_on: str | None = None) -> dict[str, Any] | None:
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind == "text" and isinstance(item.get("text"), str):
        return {"type": "text", "text": item["text"]}
    if kind == "image" and isinstance(item.get("data"), str):
        return {"type": "image", "data": item["data"], "mimeType": str(item.get("mimeType") or "image/png")}
    if kind == "audio":
        return {"type": "text", "text": f"[audio: {item.get('mimeType') or 'unknown type'}, not shown]"}
    if kind == "resource_link":
        return {"type": "text", "text": resource_link_text(item, readable_on)}
    if kind == "resource" and isinstance(item.get("resource"), dict):
        resource = item["resource"]
        if isinstance(resource.get("text"), str):
            return {"type": "text", "text": resource["text"]}
        if isinstance(resource.get("blob"), str):
            return {"type": "text", "text": _blob_text(resource)}
        return {"type": "text", "text": f"[binary resource: {resource.get('uri')} ({resource.get('mimeType') or '?'})]"}
    return None


def map_call_result(server: str, tool: str, result: dict[str, Any], readable: bool = False) -> AgentToolResult:
    """pi's result for ``result``; raises :class:`McpToolError` when the server flagged an error.
    ``readable``: ``read_mcp_resource`` reaches ``server`` (its resource links say so)."""
    on = server if readable else None
    blocks = [b for b in (_block(item, on) for item in result.get("content") or []) if b is not None]
    structured = result.get("structuredContent")
    if not blocks and structured is not None:
        blocks = [{"type": "text", "text": json.dumps(structured, ensure_ascii=False, indent=2)}]
    if result.get("isError") is True:
        text = "\n".join(b["text"] for b in blocks if b["type"] == "text") or "the tool reported an error"
        raise McpToolError(f'MCP server "{server}" tool {tool}: {text}')
    blocks = [{**b, "text": _shorten(b["text"], server)} if b["type"] == "text" else b for b in blocks]
    details: dict[str, Any] = {"server": server, "tool": tool}
    if structured is not None:
        details["structuredContent"] = structured
    content = cast(list[UserContent], blocks or [{"type": "text", "text": "(no output)"}])
    return AgentToolResult(content=content, details=details)


def progress_text(params: dict[str, Any]) -> str:
    """The line a ``notifications/progress`` shows as a tool update: pi's "Progress 1/4" (no total:
    "Progress 1"), the server's ``message`` after a colon when it sent one."""

    def number(value: Any) -> str:
        return f"{value:g}" if isinstance(value, float) else str(value)

    progress, total, message = params.get("progress"), params.get("total"), params.get("message")
    text = f"Progress {number(progress)}" + (f"/{number(total)}" if total is not None else "")
    return f"{text}: {message}" if isinstance(message, str) and message else text


def resource_blocks(server: str, contents: list[dict[str, Any]]) -> list[UserContent]:
    """What ``read_mcp_resource`` gives the model for a read's ``contents``: each as a ``resource``
    block would reach it (text, a decoded ``text/*`` blob, a saved binary named, an image), each
    after a ``<uri>:`` line when there are several (pi 1.6.0)."""
    blocks: list[dict[str, Any]] = []
    for item in contents:
        if len(contents) > 1:
            blocks.append({"type": "text", "text": f"{item.get('uri')}:"})
        if isinstance(item.get("blob"), str) and str(item.get("mimeType") or "").startswith("image/"):
            block: dict[str, Any] | None = {"type": "image", "data": item["blob"], "mimeType": item["mimeType"]}
        else:
            block = _block({"type": "resource", "resource": item})
        if block is not None:
            blocks.append(block)
    shortened = [{**b, "text": _shorten(b["text"], server)} if b["type"] == "text" else b for b in blocks]
    return cast(list[UserContent], shortened)
