"""Export a session as one self-contained HTML file (``/export``, ``--export``, RPC ``export_html``).

The page needs nothing else: CSS is inline, there is no script, images are ``data:`` URIs. It shows
the header facts, optionally the system prompt and tools, then the active branch: user messages,
assistant text and thinking, each tool call with its arguments and its result, ``!`` runs,
compaction and branch summaries, and model / thinking-level changes.

Safety: every piece of session text goes through ``html.escape`` (quotes included); image data
must be base64 with an ``image/*`` type or it is dropped. Secrets never leave: values of
API-key-like environment variables and any strings passed in ``secrets`` are replaced by
``[redacted]`` before escaping.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import os
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pi_cli.store.entry_messages import bash_execution_to_text
from pi_cli.store.jsonl import Entry
from pi_cli.store.manager import SessionManager, message_from_entry

_SECRET_ENV = re.compile(r"(API_KEY|_TOKEN|_SECRET|SECRET_ACCESS_KEY|AUTH)$")
_MIME = re.compile(r"^image/[a-z0-9.+-]+$")

_CSS = """
body{margin:0;background:#18181e;color:#e4e4e7;font:14px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace}
main{max-width:960px;margin:0 auto;padding:24px}
h1{font-size:18px;margin:0 0 8px} .meta{color:#a1a1aa;margin-bottom:16px}
.msg{border-radius:6px;padding:10px 14px;margin:10px 0;white-space:pre-wrap;word-wrap:break-word}
.user{background:#2a2a35} .assistant{background:#1f1f26} .tool{background:#1b2420;border-left:3px solid #4ade80}
.tool.error{border-left-color:#f87171} .note{color:#a1a1aa;font-size:12px;margin:6px 0}
.summary{background:#2b2718;border-left:3px solid #facc15} .bash{background:#1e2230}
.label{color:#a1a1aa;font-size:12px;text-transform:uppercase;letter-spacing:.05em;margin-bottom:4px}
details{margin:6px 0} summary{cursor:pointer;color:#a1a1aa} pre{margin:4px 0;white-space:pre-wrap}
.thinking{color:#a1a1aa;font-style:italic} img{max-width:100%}
"""


class _Redactor:
    def __init__(self, secrets: Iterable[str]) -> None:
        values = {s for s in secrets if s and len(s) >= 6}
        for name, value in os.environ.items():
            if _SECRET_ENV.search(name.upper()) and len(value) >= 8:
                values.add(value)
        # Longest first so a secret containing another is replaced whole.
        self._values = sorted(values, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for value in self._values:
            if value in text:
                text = text.replace(value, "[redacted]")
        return text


class _Page:
    def __init__(self, redact: _Redactor) -> None:
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


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _render_assistant(page: _Page, message: dict[str, Any], results: dict[str, dict[str, Any]]) -> None:
    body = []
    calls = []
    for block in message.get("content") or []:
        kind = block.get("type")
        if kind == "text":
            body.append(page.esc(block.get("text", "")))
        elif kind == "thinking" and block.get("thinking"):
            body.append(f'<details><summary>thinking</summary><div class="thinking">{page.esc(block["thinking"])}</div>'
                        "</details>")  # fmt: skip
        elif kind == "toolCall":
            calls.append(block)
    stop = message.get("stopReason")
    if stop in ("error", "aborted"):
        body.append(f'<div class="note">{page.esc(message.get("errorMessage") or "Operation aborted")}</div>')
    label = f"assistant · {message.get('provider', '')}/{message.get('model', '')}"
    page.block("assistant", label, "\n".join(body))
    for call in calls:
        result = results.get(str(call.get("id")))
        error = bool(result and result.get("isError"))
        inner = f"<pre>{page.esc(_json(call.get('arguments')))}</pre>"
        if result is not None:
            shown = page.content(result.get("content"))
            inner += f"<details open><summary>result</summary><pre>{shown}</pre></details>"
        else:
            inner += '<div class="note">(no result)</div>'
        page.block("tool error" if error else "tool", f"tool call · {call.get('name', '')}", inner)


def _render_entry(page: _Page, entry: Entry, results: dict[str, dict[str, Any]]) -> None:
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
        page.block("user", f"custom · {message.get('customType', '')}", page.content(message.get("content")))
    # toolResult messages are shown under their call.


def render_html(
    manager: SessionManager, *, system_prompt: str | None = None, tools: list[dict[str, Any]] | None = None,
    secrets: Iterable[str] = (),
) -> str:  # fmt: skip
    """The HTML page for the session's active branch."""
    page = _Page(_Redactor(secrets))
    header = manager.get_header()
    branch = manager.get_branch()
    results = {
        str(e["message"].get("toolCallId")): e["message"]
        for e in branch
        if e.get("type") == "message" and e["message"].get("role") == "toolResult"
    }
    name = manager.get_session_name()
    title = name or f"pi session {manager.session_id}"
    page.parts.append(f"<h1>{page.esc(title)}</h1>")
    exported = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    meta = f"session {manager.session_id} · cwd {header.get('cwd', '')} · started {header.get('timestamp', '')}"
    page.parts.append(f'<div class="meta">{page.esc(meta)} · exported {page.esc(exported)}</div>')
    if system_prompt:
        page.parts.append(f"<details><summary>system prompt</summary><pre>{page.esc(system_prompt)}</pre></details>")
    if tools:
        rows = "\n".join(f"{t.get('name', '')}: {t.get('description', '')}" for t in tools)
        page.parts.append(f"<details><summary>tools</summary><pre>{page.esc(rows)}</pre></details>")
    for entry in branch:
        _render_entry(page, entry, results)
    off_branch = len(manager.get_entries()) - len(branch)
    if off_branch > 0:
        page.note(f"{off_branch} entries on other branches are not shown.")
    body = "\n".join(page.parts)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{page.esc(title)}</title><style>{_CSS}</style></head>"
        f"<body><main>\n{body}\n</main></body></html>\n"
    )


def default_export_path(session_file: str | Path) -> Path:
    """pi's default name: ``pi-session-<session file basename>.html`` in the current directory."""
    return Path(f"pi-session-{Path(session_file).stem}.html")


def export_html(
    manager: SessionManager, output_path: str | Path | None = None, *, system_prompt: str | None = None,
    tools: list[dict[str, Any]] | None = None, secrets: Iterable[str] = (),
) -> Path:  # fmt: skip
    """Write the page and return its path. Errors (pi's wording): ``Cannot export in-memory session
    to HTML``, ``Nothing to export yet - start a conversation first``."""
    if not manager.persist or manager.session_file is None:
        raise ValueError("Cannot export in-memory session to HTML")
    if not manager.session_file.exists():
        raise ValueError("Nothing to export yet - start a conversation first")
    target = Path(output_path) if output_path else default_export_path(manager.session_file)
    target.write_text(render_html(manager, system_prompt=system_prompt, tools=tools, secrets=secrets), "utf-8")
    return target


def export_file_to_html(input_path: str | Path, output_path: str | Path | None = None) -> Path:
    """``pi --export in.jsonl [out.html]``: ``File not found: <path>`` if the input is missing."""
    source = Path(input_path)
    if not source.exists():
        raise FileNotFoundError(f"File not found: {source}")
    manager = SessionManager.open(source)
    target = Path(output_path) if output_path else default_export_path(source)
    target.write_text(render_html(manager), "utf-8")
    return target
