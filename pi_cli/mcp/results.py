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
import json
import os
import re
import secrets
import tempfile
from typing import Any, cast
from urllib.parse import urlsplit

from pi_cli.agent.types import AgentToolResult
from pi_cli.ai.types import UserContent, js_number
from pi_cli.mcp.config import mcp_namespace
from pi_cli.mcp.errors import McpError
from pi_cli.tools.truncate import format_size

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


def _is_text_type(mime: str | None) -> bool:
    """pi's blobs shown as text: ``text/*``, ``application/json`` and the ``+json``/``+xml`` types."""
    kind = (mime or "").split(";", 1)[0].strip().lower()
    return bool(kind) and (kind.startswith("text/") or kind == "application/json" or kind.endswith(("+json", "+xml")))


def _extension_of(uri: str) -> str:
    """The saved file's extension, as pi: the one the URI's path ends in, else ``.bin``."""
    parts = urlsplit(uri)
    match = re.search(r"\.[A-Za-z0-9]{1,8}$", parts.path if parts.scheme else uri)
    return match.group(0) if match else ".bin"


def _lenient_b64(text: str) -> bytes:
    """Decode base64 as Node's ``Buffer.from(text, "base64")`` does: URL-safe letters accepted,
    other characters skipped, padding optional."""
    cleaned = re.sub(r"[^A-Za-z0-9+/]", "", text.replace("-", "+").replace("_", "/"))
    if len(cleaned) % 4 == 1:
        cleaned = cleaned[:-1]
    return base64.b64decode(cleaned + "=" * (-len(cleaned) % 4))


def _save_output(data: bytes, extension: str) -> str:
    """pi's output file: ``<tmp>/pi-mcp-<16 hex><extension>``, new (never through a planted
    link) and readable by the user only."""
    path = os.path.join(tempfile.gettempdir(), f"pi-mcp-{secrets.token_hex(8)}{extension}")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    return path


def _blob_text(resource: dict[str, Any]) -> str:
    """pi 1.6.0's model view of a non-image ``blob`` resource: the decoded text for a text type,
    else ``[Binary resource <uri> (<mime>, <size>) saved to <path>]``."""
    uri, mime = resource.get("uri"), resource.get("mimeType")
    data = _lenient_b64(str(resource.get("blob") or ""))
    if _is_text_type(mime):
        return data.decode("utf-8", errors="replace")
    kind = f"{mime or 'unknown type'}, {format_size(len(data))}"
    try:
        path = _save_output(data, _extension_of(str(uri or "")))
    except OSError as exc:
        return f"[Binary resource {uri} ({kind}) could not be saved: {exc}]"
    return f"[Binary resource {uri} ({kind}) saved to {path}]"


class McpToolError(McpError):
    """The server answered the call with ``isError: true``."""


def resource_link_text(link: dict[str, Any], readable_on: str | None = None) -> str:
    """pi 1.6.0's text for a ``resource_link`` block: ``[Resource <uri> "<title or name>" (<mime>,
    <size>): <description>]`` (the parenthesis and description only when known), with ``. Read it
    with read_mcp_resource (server "<name>")`` when ``readable_on`` names the server and
    ``read_mcp_resource`` reaches it."""
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
    """One content block as pi 1.6.0 gives it to the model (its placeholders for what has no pi block)."""
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind == "text":
        return {"type": "text", "text": str(item.get("text", ""))}
    if kind == "image":  # one without data has nothing to show
        data = item.get("data")
        return {"type": "image", "data": data, "mimeType": str(item.get("mimeType") or "image/png")} if data else None
    if kind == "audio":
        return {"type": "text", "text": f"[audio {item.get('mimeType', 'undefined')} omitted]"}
    if kind == "resource_link":
        return {"type": "text", "text": resource_link_text(item, readable_on)}
    if kind == "resource" and isinstance(item.get("resource"), dict):
        resource = item["resource"]
        mime = resource.get("mimeType")
        is_image = isinstance(mime, str) and mime.startswith("image/")
        if "blob" in resource and not is_image:
            return {"type": "text", "text": _blob_text(resource)}
        if "text" in resource:
            return {"type": "text", "text": str(resource["text"])}
        if is_image:
            return {"type": "image", "data": str(resource.get("blob") or ""), "mimeType": mime}
        return {"type": "text", "text": f"[binary resource {resource.get('uri')} ({mime or 'unknown type'}) omitted]"}
    return {"type": "text", "text": f"[unsupported MCP content {kind}]"}


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
    """The line a ``notifications/progress`` shows as a tool update, as pi 1.6.0: the server's
    ``message`` when it sent one, else "Progress 1/4" ("Progress 1" without a total)."""
    message = params.get("message")
    if message is not None:
        return str(message)

    def number(value: Any) -> str:
        return str(js_number(value)) if isinstance(value, float) else str(value)

    total = params.get("total")
    return f"Progress {number(params.get('progress'))}" + (f"/{number(total)}" if total is not None else "")


def resource_blocks(server: str, contents: list[dict[str, Any]]) -> list[UserContent]:
    """What ``read_mcp_resource`` gives the model for a read's ``contents``: each as a ``resource``
    block would reach it (text, a decoded ``text/*`` blob, a saved binary named, an image), each
    after a ``<uri>:`` line when there are several (pi 1.6.0)."""
    blocks: list[dict[str, Any]] = []
    for item in contents:
        if len(contents) > 1:
            blocks.append({"type": "text", "text": f"{item.get('uri')}:"})
        block = _block({"type": "resource", "resource": item})
        if block is not None:
            blocks.append(block)
    shortened = [{**b, "text": _shorten(b["text"], server)} if b["type"] == "text" else b for b in blocks]
    return cast(list[UserContent], shortened)
