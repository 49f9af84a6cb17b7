"""A resumed huge session's context with its bodies left in the file gives what a whole parse gives:
the same messages (one by one, sliced, all at once, copied out for ``get_messages``), the same
statistics and context use, and the same one-line report of a damaged line. The size threshold is
lowered so that small files take the lazy path."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_cli.agent.agent import Agent
from pi_cli.compaction.budget import context_usage
from pi_cli.modes.rpc.handlers import HANDLERS
from pi_cli.modes.rpc.jsonl import JsonlWriter, serialize_json_parts
from pi_cli.modes.rpc.protocol import Command
from pi_cli.store.manager import SessionManager
from pi_cli.store.slim import lazy_entries
from pi_cli.store.slim.lazy_context import LazyMessages
from pi_cli.store.stats import session_stats

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from tui_workloads import write_session


@pytest.fixture(params=[0, 100], ids=["uncompacted", "compacted"])
def session_file(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    return write_session(tmp_path / "agent", str(tmp_path / "proj"), entries=240, compact_every=request.param)


def _open(path: Path, monkeypatch: pytest.MonkeyPatch, *, slim: bool) -> SessionManager:
    monkeypatch.setattr(lazy_entries, "SLIM_FILE_BYTES", 0 if slim else 1 << 40)
    return SessionManager.open(path)


def _lazy(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[LazyMessages, list[dict[str, Any]]]:
    whole = _open(path, monkeypatch, slim=False).build_context()
    context, lazy = _open(path, monkeypatch, slim=True).build_lazy_context()
    assert lazy is not None and context.messages == []
    assert (context.model, context.thinking_level) == (whole.model, whole.thinking_level)
    return lazy, whole.messages


def test_lazy_messages_equal_the_whole_parse(session_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lazy, eager = _lazy(session_file, monkeypatch)
    assert len(lazy) == len(eager) > 40
    assert lazy[0] == eager[0] and lazy[-1] == eager[-1] and lazy[5:9] == eager[5:9]
    assert list(lazy) == eager
    assert lazy.materialize() == eager
    assert lazy.roles() == [m["role"] for m in eager]


def test_statistics_and_context_use_come_from_the_stubs(session_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lazy, eager = _lazy(session_file, monkeypatch)
    assert session_stats(lazy, "f", "s") == session_stats(eager, "f", "s")
    assert context_usage(lazy, 200_000) == context_usage(eager, 200_000)


def test_get_messages_copies_the_file_text_and_parses_to_the_same(
    session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lazy, eager = _lazy(session_file, monkeypatch)

    class Session:
        messages = eager

        def message_view(self) -> LazyMessages:
            return lazy

    class Host:
        session = Session()

    import asyncio

    response = asyncio.run(HANDLERS["get_messages"](Host(), Command(id="m", type="get_messages")))  # type: ignore[arg-type]
    assert response["data"]["messages"] is lazy  # not decoded by the handler
    parts = list(serialize_json_parts(response))
    assert len(parts) > 3  # spliced, not one string
    line = b"".join(parts)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line)["data"]["messages"] == eager
    read, write = os.pipe()
    writer = JsonlWriter(write)
    with os.fdopen(read, "rb") as reader:
        import threading

        out: list[bytes] = []
        thread = threading.Thread(target=lambda: out.append(reader.read()))
        thread.start()
        writer.write(response)
        os.close(write)
        thread.join()
    assert out[0] == line


def test_a_marker_lookalike_string_does_not_confuse_the_splice(
    session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lazy, eager = _lazy(session_file, monkeypatch)
    record = {"note": "\x00pi-json-chunks\x00", "messages": lazy}
    assert json.loads(b"".join(serialize_json_parts(record))) == {"note": record["note"], "messages": eager}


def test_the_agent_decodes_a_deferred_context_once_when_asked(
    session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lazy, eager = _lazy(session_file, monkeypatch)
    agent = Agent(messages=lazy)
    assert agent.state.message_view() is lazy  # nothing decoded by holding it
    assert agent.state.messages == eager
    assert agent.state.message_view() is agent.state.messages  # decoded once, then a plain list
    agent.state.messages.append({"role": "user", "content": "more", "timestamp": 1})
    assert len(agent.state.message_view()) == len(eager) + 1


def _damage_body(path: Path, role: str) -> int:
    """Break the JSON of the 40th line holding a ``role`` message in the middle; its line number."""
    lines = path.read_bytes().split(b"\n")
    hits = [i for i, line in enumerate(lines) if f'"role": "{role}"'.encode() in line]
    index = hits[40]
    middle = len(lines[index]) // 2
    lines[index] = lines[index][:middle] + b"\x01" + lines[index][middle:]
    path.write_bytes(b"\n".join(lines))
    return index + 1


@pytest.mark.parametrize("role", ["toolResult", "user"])
def test_a_damaged_line_is_reported_in_one_line_as_a_whole_parse_does(
    session_file: Path, monkeypatch: pytest.MonkeyPatch, role: str
) -> None:
    number = _damage_body(session_file, role)
    whole = _open(session_file, monkeypatch, slim=False)
    slim = _open(session_file, monkeypatch, slim=True)
    assert slim.warnings == whole.warnings
    assert len(whole.warnings) == 1 and whole.warnings[0].startswith(f"{session_file}:{number}: skipped corrupt")
    context, lazy = slim.build_lazy_context()
    assert (list(lazy) if lazy is not None else context.messages) == whole.build_context().messages
    assert slim.get_entries() == whole.get_entries()


def test_lines_written_differently_take_the_careful_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """String content, non-ASCII, a key after ``message``, a lone surrogate escape: same result."""
    path = tmp_path / "s.jsonl"
    head = {"type": "session", "version": 3, "id": "sid", "timestamp": "2026-12-01T00:00:00.000Z", "cwd": "/p"}
    entries: list[str] = [json.dumps(head, separators=(",", ":"))]

    def add(eid: str, parent: str | None, message: dict[str, Any], extra: str = "") -> None:
        body = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        parent_json = "null" if parent is None else f'"{parent}"'
        line = f'{{"type":"message","id":"{eid}","parentId":{parent_json},"timestamp":"t","message":{body}{extra}}}'
        entries.append(line)

    add("a", None, {"role": "user", "content": "plain string ✓ \u2028", "timestamp": 1})
    add("b", "a", {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "provider": "p", "model": "m",
                   "usage": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.5}},
                   "stopReason": "stop", "timestamp": 2})  # fmt: skip
    add("c", "b", {"role": "user", "content": [{"type": "text", "text": "x"}], "timestamp": 3}, extra=',"more":1')
    entries.append(
        '{"type":"message","id":"d","parentId":"c","timestamp":"t","message":{"role":"user","content":"\\ud800"}}'
    )
    path.write_text("\n".join(entries) + "\n", encoding="utf-8")
    whole = _open(path, monkeypatch, slim=False)
    slim = _open(path, monkeypatch, slim=True)
    assert slim.warnings == whole.warnings == []
    _context, lazy = slim.build_lazy_context()
    assert lazy is not None
    assert list(lazy) == whole.build_context().messages
    assert json.loads(b"".join(serialize_json_parts(lazy))) == whole.build_context().messages
    assert session_stats(lazy, None, "sid") == session_stats(whole.build_context().messages, None, "sid")


def test_tree_and_exports_read_the_bodies_back(
    session_file: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import re

    from pi_cli.store.export_html import render_html

    whole = _open(session_file, monkeypatch, slim=False)
    slim = _open(session_file, monkeypatch, slim=True)
    slim.build_lazy_context()  # as a resume leaves it: the context's bodies still in the file
    assert [n.entry for n in slim.get_tree()] == [n.entry for n in whole.get_tree()]
    stamp = re.compile(r"exported [0-9-]+ [0-9:]+ UTC")
    assert stamp.sub("", render_html(slim)) == stamp.sub("", render_html(whole))
    assert "Module 3 looks fine" in render_html(slim)  # bodies, not stubs
    exported = [slim.export_branch_jsonl(tmp_path / "a.jsonl"), whole.export_branch_jsonl(tmp_path / "b.jsonl")]
    assert exported[0].read_text() == exported[1].read_text()


def test_decoding_the_context_hands_the_messages_to_the_store_once(
    session_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = _open(session_file, monkeypatch, slim=False)
    slim = _open(session_file, monkeypatch, slim=True)
    _context, lazy = slim.build_lazy_context()
    assert lazy is not None
    decoded = Agent(messages=lazy).state.messages
    held = {id(e["message"]) for e in slim.index.entries if e.get("type") == "message"}
    assert all(id(message) in held for message in decoded if message["role"] != "compactionSummary")
    assert slim.get_entries() == whole.get_entries()
    assert slim.build_context().messages == decoded  # read from the store's entries, no second decode
