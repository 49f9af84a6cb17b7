"""Export a session as one self-contained HTML file (``/export``, ``--export``, RPC ``export_html``).

The page needs nothing else: CSS and the viewer script are inline, images are ``data:`` URIs, no
request leaves it. Every entry of the session is drawn once, in Python
(:mod:`pi_cli.store.export_blocks`), and embedded as JSON ``{"leaf", "entries": [[id, parent,
html], …]}`` — a string in a script element costs the browser a scan, where the same HTML in the
document costs a parse and a layout (a 57 MB session's page loads in seconds instead of tens).
The branch that was current is also in the document as plain HTML (its last
``STATIC_BUDGET`` bytes: the page reads without script, and the end of the conversation shows
at once). The viewer (``viewer/viewer.js``) draws any branch from the JSON, the newest
``PAGE`` entries first with a button for earlier ones, switches branches from a tree of the user
messages, collapses tool cards and thinking, and keeps ``#<entry id>`` links. Colours come from
the active theme (its ``export`` and UI colours as CSS variables).

Safety: session text is escaped and secrets redacted (see ``export_blocks``); the embedded JSON
escapes ``<`` so it can never close its script element.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from pi_cli.store.export_blocks import Page, Redactor
from pi_cli.store.jsonl import Entry
from pi_cli.store.manager import SessionManager, message_from_entry

_VIEWER = Path(__file__).with_name("viewer")
# theme token → the CSS variable the viewer's stylesheet reads
_CSS_VARIABLES = {
    "pageBg": "page-bg", "cardBg": "card-bg", "infoBg": "info-bg", "text": "text", "muted": "muted",
    "accent": "accent", "userMessageBg": "user-bg", "customMessageBg": "custom-bg", "toolSuccessBg": "tool-ok-bg",
    "toolErrorBg": "tool-err-bg", "toolPendingBg": "tool-pending-bg", "thinkingText": "thinking", "error": "error",
    "success": "success", "borderMuted": "border", "mdLink": "link", "selectedBg": "selected",
}  # fmt: skip
_TREE_TEXT = 80  # characters of a user message in the tree
_HEX = re.compile(r"#[0-9a-fA-F]{6}")


@cache
def _asset(name: str) -> str:
    return (_VIEWER / name).read_text(encoding="utf-8")


def _theme_css(colors: Mapping[str, str] | None) -> str:
    """``:root`` overrides for the theme's colours (a token left at the terminal default keeps
    the stylesheet's own value)."""
    if not colors:
        return ""
    # Only plain #rrggbb: a value is written into the style element as it is.
    pairs = [f"--{var}:{colors[key]}" for key, var in _CSS_VARIABLES.items() if _HEX.fullmatch(colors.get(key, ""))]
    return ":root{" + ";".join(pairs) + "}" if pairs else ""


def _user_text(entry: Entry) -> str | None:
    message = message_from_entry(entry)
    if message is None or message.get("role") != "user":
        return None
    content = message.get("content")
    if isinstance(content, str):
        text = content
    else:
        text = " ".join(b.get("text", "") for b in content or [] if b.get("type") == "text") or "[image]"
    return " ".join(text.split())[:_TREE_TEXT] or "(empty)"


def _tree_rows(page: Page, entries: list[Entry], on_branch: set[str]) -> str:
    """The user messages as a tree (depth grows at each fork), each a link to its branch."""
    by_id = {e["id"]: e for e in entries if "id" in e}
    children: dict[str, list[str]] = {}
    for entry_id, entry in by_id.items():
        parent = entry.get("parentId")  # a missing parent makes a root, as the session tree does
        children.setdefault(parent if isinstance(parent, str) and parent in by_id else "", []).append(entry_id)
    rows: list[str] = []
    stack: list[tuple[str, int]] = [(child, 0) for child in reversed(children.get("", []))]
    while stack:
        entry_id, depth = stack.pop()
        text = _user_text(by_id[entry_id])
        if text is not None:
            css = ' class="on"' if entry_id in on_branch else ""
            target = page.esc(entry_id)
            link = f'<a href="#{target}" data-target="{target}"{css}>{page.esc(text)}</a>'
            rows.append(f'<li style="--d:{depth}">{link}</li>')
        kids = children.get(entry_id, [])
        step = 1 if len(kids) > 1 else 0
        stack.extend((kid, depth + step) for kid in reversed(kids))
    return "<ul>" + "".join(rows) + "</ul>"


STATIC_BUDGET = 512 * 1024  # bytes of the current branch's HTML also put in the document


def _data_json(rows: list[tuple[str, str | None, str]], leaf: str | None) -> str:
    text = json.dumps({"leaf": leaf, "entries": rows}, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c")


def _static_branch(rows: list[tuple[str, str | None, str]], branch: list[Entry]) -> str:
    """The current branch's entries as HTML, its newest ones up to ``STATIC_BUDGET`` bytes, with a
    note saying how many earlier ones only the viewer shows."""
    html_of = {entry_id: html for entry_id, _, html in rows}
    shown: list[str] = []
    size = 0
    for entry in reversed(branch):
        html = html_of.get(entry.get("id", ""), "")
        if not html:
            continue
        if size + len(html) > STATIC_BUDGET and shown:
            break
        shown.append(html)
        size += len(html)
    drawn = sum(1 for e in branch if html_of.get(e.get("id", "")))
    earlier = drawn - len(shown)
    note = f'<div class="note">{earlier} earlier entries: the page shows them with scripts on.</div>' if earlier else ""
    return note + "\n".join(reversed(shown))


def render_html(
    manager: SessionManager, *, system_prompt: str | None = None, tools: list[dict[str, Any]] | None = None,
    secrets: Iterable[str] = (), theme: Mapping[str, str] | None = None,
) -> str:  # fmt: skip
    """The HTML page for the session: every entry embedded, the current branch shown. ``theme``:
    colours by pi's token and export names (``pageBg``, ``text``, ``userMessageBg`` …)."""
    page = Page(Redactor(secrets))
    header = manager.get_header()
    entries = manager.get_entries()
    branch = manager.get_branch()
    on_branch = {e["id"] for e in branch if "id" in e}
    results = {
        str(e["message"].get("toolCallId")): e["message"]
        for e in entries
        if e.get("type") == "message" and e["message"].get("role") == "toolResult"
    }
    rows = [(e["id"], e.get("parentId"), page.entry_html(e, results)) for e in entries if "id" in e]
    name = manager.get_session_name()
    title = name or f"pi session {manager.session_id}"
    page.parts.append(f"<h1>{page.esc(title)}</h1>")
    exported = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    meta = f"session {manager.session_id} · cwd {header.get('cwd', '')} · started {header.get('timestamp', '')}"
    page.parts.append(f'<div class="meta">{page.esc(meta)} · exported {page.esc(exported)}</div>')
    page.parts.append(
        '<div class="toolbar" data-needs-script hidden><button data-action="expand-all">expand all</button>'
        '<button data-action="collapse-tools">collapse tool calls</button>'
        '<button data-action="toggle-thinking">thinking</button></div>'
    )
    if system_prompt:
        page.parts.append(f"<details><summary>system prompt</summary><pre>{page.esc(system_prompt)}</pre></details>")
    if tools:
        listing = "\n".join(f"{t.get('name', '')}: {t.get('description', '')}" for t in tools)
        page.parts.append(f"<details><summary>tools</summary><pre>{page.esc(listing)}</pre></details>")
    page.parts.append(f'<div id="entries">{_static_branch(rows, branch)}</div>')
    tree = _tree_rows(page, entries, on_branch)
    body = "\n".join(page.parts)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{page.esc(title)}</title><style>{_asset('viewer.css')}{_theme_css(theme)}</style></head>"
        f'<body><div class="layout"><nav id="tree" data-needs-script hidden><h2>Branches</h2>{tree}</nav>'
        f"<main>\n{body}\n</main></div>"
        f'<script type="application/json" id="session-data">{_data_json(rows, manager.get_leaf_id())}</script>'
        f"<script>{_asset('viewer.js')}</script></body></html>\n"
    )


def default_export_path(session_file: str | Path) -> Path:
    """pi's default name: ``pi-session-<session file basename>.html`` in the current directory."""
    return Path(f"pi-session-{Path(session_file).stem}.html")


def export_html(
    manager: SessionManager, output_path: str | Path | None = None, *, system_prompt: str | None = None,
    tools: list[dict[str, Any]] | None = None, secrets: Iterable[str] = (), theme: Mapping[str, str] | None = None,
) -> Path:  # fmt: skip
    """Write the page and return its path. Errors (pi's wording): ``Cannot export in-memory session
    to HTML``, ``Nothing to export yet - start a conversation first``."""
    if not manager.persist or manager.session_file is None:
        raise ValueError("Cannot export in-memory session to HTML")
    if not manager.session_file.exists():
        raise ValueError("Nothing to export yet - start a conversation first")
    target = Path(output_path) if output_path else default_export_path(manager.session_file)
    page = render_html(manager, system_prompt=system_prompt, tools=tools, secrets=secrets, theme=theme)
    target.write_text(page, "utf-8")
    return target


def export_file_to_html(
    input_path: str | Path, output_path: str | Path | None = None, theme: Mapping[str, str] | None = None
) -> Path:
    """``pi --export in.jsonl [out.html]``: ``File not found: <path>`` if the input is missing."""
    source = Path(input_path)
    if not source.exists():
        raise FileNotFoundError(f"File not found: {source}")
    manager = SessionManager.open(source)
    target = Path(output_path) if output_path else default_export_path(source)
    target.write_text(render_html(manager, theme=theme), "utf-8")
    return target
