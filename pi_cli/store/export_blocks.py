"""The HTML of a session's entries, for :mod:`pi_cli.store.export_html`.

Every piece of session text goes through :meth:`Page.esc` (``html.escape`` with quotes, after the
redactor), image data must be base64 with an ``image/*`` type or it is dropped, so nothing a
model, a tool or a user wrote can become markup. Each entry that shows something is one
``<div class="entry" data-id=…>`` (:meth:`Page.entry_html`); tool results are drawn inside their
call's card, thinking and tool cards are ``<details>`` (collapsible without script), long results
start collapsed.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import os
import re
from collections.abc import Iterable
from typing import Any

from pi_cli.store.entry_messages import bash_execution_to_text
from pi_cli.store.jsonl import Entry
from pi_cli.store.manager import message_from_entry

_SECRET_ENV = re.compile(r"(API_KEY|_TOKEN|_SECRET|SECRET_ACCESS_KEY|AUTH)$")
_MIME = re.compile(r"^image/[a-z0-9.+-]+$")
LONG_RESULT_LINES = 12  # a result longer than this starts collapsed


class Redactor:
    """Replaces secrets with ``[redacted]``: the strings given, and the values of API-key-like
    environment variables (longest first, so a secret holding another goes whole)."""

    def __init__(self, secrets: Iterable[str]) -> None:
        values = {s for s in secrets if s and len(s) >= 6}
        for name, value in os.environ.items():
            if _SECRET_ENV.search(name.upper()) and len(value) >= 8:
                values.add(value)
        self._values = sorted(values, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for value in self._values:
            if value in text:
                text = text.replace(value, "[redacted]")
        return text


class Page:
    """The page's parts, in order, and how session text enters them."""

    def __init__(self, redact: Redactor) -> None:
        self.parts: list[str] = []
        self.redact = redact

    def esc(self, text: Any) -> str:
        return html.escape(self.redact(text if isinstance(text, str) else str(text)), quote=True)

    def block(self, css: str, label: str, body_html: str) -> None:
        self.parts.append(f'<div class="msg {css}"><div class="label">{self.esc(label)}</div>{body_html}</div>')

    def note(self, text: str) -> None:
        self.parts.append(f'<div class="note">{self.esc(text)}</div>')

    def image(self, block: dict[str, Any]) -> str:
        mime = str(block.get("mimeType", ""))
        data = str(block.get("data", ""))
        try:
            base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            return '<div class="note">[image omitted: invalid data]</div>'
        if not _MIME.match(mime):
            return '<div class="note">[image omitted: unknown type]</div>'
        return f'<img alt="image" src="data:{mime};base64,{data}">'

    def content(self, content: Any) -> str:
        if isinstance(content, str):
            return self.esc(content)
        out = []
        for block in content or []:
            if block.get("type") == "text":
                out.append(self.esc(block.get("text", "")))
            elif block.get("type") == "image":
                out.append(self.image(block))
        return "\n".join(out)

    def entry_html(self, entry: Entry, results: dict[str, dict[str, Any]]) -> str:
        """``entry`` as one ``<div class="entry" data-id=…>``, or "" when it shows nothing."""
        start = len(self.parts)
        _render_entry(self, entry, results)
        if len(self.parts) == start:
            return ""
        inner = "".join(self.parts[start:])
        del self.parts[start:]
        return f'<div class="entry" data-id="{self.esc(entry.get("id", ""))}">{inner}</div>'


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _preview(arguments: Any) -> str:
    """One line of a call's arguments for its card's summary (the command, the path, …)."""
    if isinstance(arguments, dict):
        for key in ("command", "path", "file_path", "pattern", "query", "task", "agent"):
            value = arguments.get(key)
            if isinstance(value, str) and value:
                first = value.strip().splitlines()[0] if value.strip() else ""
                return first[:100] + ("…" if len(first) > 100 else "")
    return ""


def _tool_card(page: Page, call: dict[str, Any], result: dict[str, Any] | None) -> None:
    error = bool(result and result.get("isError"))
    preview = _preview(call.get("arguments"))
    summary = f'<span class="label">tool call · {page.esc(call.get("name", ""))}</span>'
    if preview:
        summary += f' <span class="args">{page.esc(preview)}</span>'
    inner = f"<pre>{page.esc(_json(call.get('arguments')))}</pre>"
    if result is not None:
        shown = page.content(result.get("content"))
        lines = shown.count("\n") + 1
        opened = "" if lines > LONG_RESULT_LINES else " open"
        summary_line = f"<summary>result ({lines} lines)</summary>"
        inner += f'<details class="result"{opened}>{summary_line}<pre>{shown}</pre></details>'
    else:
        inner += '<div class="note">(no result)</div>'
    css = "tool error" if error else "tool"
    page.parts.append(f'<details class="msg {css}" open><summary>{summary}</summary>{inner}</details>')


def _render_assistant(page: Page, message: dict[str, Any], results: dict[str, dict[str, Any]]) -> None:
    body = []
    calls = []
    for block in message.get("content") or []:
        kind = block.get("type")
        if kind == "text":
            body.append(page.esc(block.get("text", "")))
        elif kind == "thinking" and block.get("thinking"):
            body.append(f'<details class="thinking"><summary>thinking</summary><div>{page.esc(block["thinking"])}'
                        "</div></details>")  # fmt: skip
        elif kind == "toolCall":
            calls.append(block)
    stop = message.get("stopReason")
    if stop in ("error", "aborted"):
        body.append(f'<div class="note error">{page.esc(message.get("errorMessage") or "Operation aborted")}</div>')
    if body:
        label = f"assistant · {message.get('provider', '')}/{message.get('model', '')}"
        # A block-level <details> already ends its line: a newline after it would be a blank row.
        joined = "".join(part if n == 0 or body[n - 1].endswith("</details>") else "\n" + part
                         for n, part in enumerate(body))  # fmt: skip
        page.block("assistant", label, joined)
    for call in calls:
        _tool_card(page, call, results.get(str(call.get("id"))))


def _render_entry(page: Page, entry: Entry, results: dict[str, dict[str, Any]]) -> None:
    kind = entry.get("type")
    if kind == "model_change":
        page.note(f"model: {entry.get('provider')}/{entry.get('modelId')}")
        return
    if kind == "thinking_level_change":
        page.note(f"thinking level: {entry.get('thinkingLevel')}")
        return
    if kind == "compaction":
        page.block("summary", f"compaction · {entry.get('tokensBefore', 0)} tokens summarised",
                   page.esc(entry.get("summary", "")))  # fmt: skip
        return
    message = message_from_entry(entry)
    if message is None:
        return
    role = message.get("role")
    if role == "user":
        page.block("user", "user", page.content(message.get("content")))
    elif role == "assistant":
        _render_assistant(page, message, results)
    elif role == "bashExecution":
        page.block("bash", "user bash", page.esc(bash_execution_to_text(message)))
    elif role == "branchSummary":
        page.block("summary", "branch summary", page.esc(message.get("summary", "")))
    elif role == "custom" and message.get("display", True):
        page.block("custom", f"custom · {message.get('customType', '')}", page.content(message.get("content")))
    # toolResult messages are drawn inside their call's card.
