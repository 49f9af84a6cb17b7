"""Fuzzing the file loaders a user (or another program, or a crash) can damage.

Session files, ``models.json`` and ``settings.json``: whatever bytes are on disk, loading never
raises anything but the documented one-line error, problems are reported as lines naming the file,
and what does load is usable (a session's context can be built, its tree listed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pi_cli.config import auth as auth_module
from pi_cli.config.settings import Settings, load_settings
from pi_cli.models.models_json import parse_models_json
from pi_cli.models.registry import ModelRegistry
from pi_cli.store.entry_messages import convert_to_llm
from pi_cli.store.jsonl import SessionFileError, parse_session_text
from pi_cli.store.manager import SessionManager

from .fuzz_settings import FUZZ, FUZZ_SMALL

scalars = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False) | st.text(max_size=12)
json_any = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)


def _one_line(messages: list[str]) -> None:
    for message in messages:
        assert isinstance(message, str) and message and "\n" not in message, message


# --- session files ---------------------------------------------------------------------------

_LINE_PIECES = [b"{", b"}", b'"type"', b":", b'"message"', b"\n", b"\r\n", b"\xff", b"[", b"]", b'"id"', b",", b"1"]
session_bytes = st.one_of(st.binary(max_size=300), st.lists(st.sampled_from(_LINE_PIECES), max_size=60).map(b"".join))


@FUZZ
@given(session_bytes)
def test_session_text_parser_never_raises(data: bytes) -> None:
    loaded = parse_session_text(data, "s.jsonl")
    _one_line(loaded.warnings)
    for entry in loaded.entries:
        assert isinstance(entry, dict) and isinstance(entry["type"], str)
    if loaded.torn_tail_offset is not None:
        assert 0 <= loaded.torn_tail_offset <= len(data)


# Entries as another program (another pi version, a crash, a hand edit) might leave them: fields
# present or missing, references dangling, cyclic or duplicated, message contents of odd shapes.
# Field *types* stay those pi writes; a wrongly typed line is not what this property is about.
ids = st.sampled_from(["a1", "b2", "c3", "d4"])
maybe_id = st.one_of(ids, st.none())
short_text = st.text(max_size=10)
blocks = st.lists(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["text", "thinking", "toolCall", "image", "x"])},
        optional={
            "text": short_text,
            "thinking": short_text,
            "name": short_text,
            "id": short_text,
            "arguments": st.dictionaries(short_text, short_text),
            "data": short_text,
            "mimeType": short_text,
        },
    ),
    max_size=3,
)
content = st.one_of(short_text, blocks)  # a user message's content may be a plain string, others not
_message_fields = {
    "stopReason": st.sampled_from(["stop", "error", "aborted", "toolUse", "length"]),
    "usage": st.fixed_dictionaries(
        {}, optional={k: st.integers(0, 10**6) for k in ("input", "output", "cacheRead", "cacheWrite")}
    ),
    "timestamp": st.integers(0, 2**41),
    "provider": short_text,
    "model": short_text,
    "toolCallId": short_text,
    "toolName": short_text,
    "command": short_text,
    "output": short_text,
    "errorMessage": short_text,
    "isError": st.booleans(),
}
message = st.one_of(
    st.fixed_dictionaries({"role": st.just("user")}, optional={"content": content, **_message_fields}),
    st.fixed_dictionaries(
        {"role": st.sampled_from(["assistant", "toolResult", "bashExecution", "custom", "weird"])},
        optional={"content": blocks, **_message_fields},
    ),
)
entry = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            [
                "message",
                "model_change",
                "thinking_level_change",
                "compaction",
                "branch_summary",
                "custom",
                "custom_message",
                "label",
                "session_info",
                "unknown",
            ]
        )
    },
    optional={
        "id": ids,
        "parentId": maybe_id,
        "timestamp": st.just("2026-01-01T00:00:00.000Z"),
        "message": message,
        "summary": short_text,
        "firstKeptEntryId": ids,
        "tokensBefore": st.integers(0, 10**6),
        "fromId": ids,
        "provider": short_text,
        "modelId": short_text,
        "thinkingLevel": short_text,
        "name": short_text,
        "targetId": ids,
        "label": st.one_of(short_text, st.none()),
        "customType": short_text,
        "content": content,
        "display": st.booleans(),
    },
)


@FUZZ
@given(st.lists(entry, max_size=8), st.booleans())
def test_session_with_hostile_entries_opens_and_builds_context(
    tmp_path: Path, entries: list[dict[str, Any]], torn: bool
) -> None:
    path = tmp_path / "s.jsonl"
    header = {
        "type": "session",
        "version": 3,
        "id": "sess-1",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": str(tmp_path),
    }
    text = "".join(json.dumps(e) + "\n" for e in [header, *entries])
    if torn:
        text += '{"type":"message","id":"zz'
    path.write_text(text)
    manager = SessionManager.open(path)
    _one_line(manager.warnings)
    context = manager.build_context()
    assert isinstance(context.messages, list)
    convert_to_llm(context.messages)  # what a resumed session sends next
    manager.get_tree()
    manager.get_stats()
    manager.get_user_messages_for_forking()


@pytest.mark.parametrize("first", ['{"type":"message"}', "[1,2]", '{"type":"session"}', "not json"])
def test_session_without_header_is_a_clear_error(tmp_path: Path, first: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(first + "\n")
    try:
        SessionManager.open(path)
    except SessionFileError as exc:
        assert str(path) in str(exc) and "\n" not in str(exc)


def test_session_deeply_nested_line_is_skipped(tmp_path: Path) -> None:
    data = b'{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}\n' + b"[" * 100_000 + b"\n"
    loaded = parse_session_text(data, "s.jsonl")
    assert len(loaded.entries) == 1 and len(loaded.warnings) == 1


# --- models.json and settings.json -----------------------------------------------------------

provider_cfg = st.fixed_dictionaries(
    {},
    optional={
        "baseUrl": st.one_of(st.sampled_from(["http://127.0.0.1:1/v1", "https://x.example/v1", "", "::"]), json_any),
        "api": st.one_of(
            st.sampled_from(["openai-completions", "anthropic-messages", "faux", "openai-responses"]), json_any
        ),
        "apiKey": json_any,
        "headers": json_any,
        "compat": json_any,
        "authHeader": json_any,
        "models": st.one_of(
            st.lists(
                st.fixed_dictionaries(
                    {"id": json_any},
                    optional={
                        "name": json_any,
                        "reasoning": json_any,
                        "input": json_any,
                        "cost": json_any,
                        "contextWindow": json_any,
                        "maxTokens": json_any,
                        "api": json_any,
                        "headers": json_any,
                        "compat": json_any,
                        "thinkingLevels": json_any,
                    },
                ),
                max_size=3,
            ),
            json_any,
        ),
        "modelOverrides": json_any,
    },
)
models_doc = st.one_of(
    st.fixed_dictionaries(
        {
            "providers": st.dictionaries(
                st.sampled_from(["fake", "openai", "anthropic", ""]), st.one_of(provider_cfg, json_any), max_size=3
            )
        }
    ),
    json_any,
)


@pytest.fixture
def no_key_commands(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``"!cmd"`` values run a shell command; fuzzed text must never reach a real shell."""
    ran: list[str] = []

    def fake(command: str) -> str | None:
        ran.append(command)
        return None

    monkeypatch.setattr(auth_module, "_run_key_command", fake)
    return ran


@FUZZ
@given(models_doc)
def test_models_json_loads_or_reports(tmp_path: Path, no_key_commands: list[str], doc: Any) -> None:
    path = tmp_path / "models.json"
    path.write_text(json.dumps(doc))
    custom = parse_models_json(path)
    _one_line(custom.errors)
    registry = ModelRegistry(models_json_path=path).load()
    _one_line(registry.errors)
    for model in registry.all_models():
        assert isinstance(model["id"], str) and isinstance(model["provider"], str) and isinstance(model["api"], str)
        assert isinstance(model["contextWindow"], int) and isinstance(model["maxTokens"], int)
        registry.api_key_for(model)
    registry.available_models()


@FUZZ_SMALL
@given(st.one_of(st.binary(max_size=200), st.just(b"[" * 100_000), st.just(b"\xef\xbb\xbf{}")))
def test_models_json_garbage_bytes(tmp_path: Path, no_key_commands: list[str], data: bytes) -> None:
    path = tmp_path / "models.json"
    path.write_bytes(data)
    custom = parse_models_json(path)
    _one_line(custom.errors)


settings_doc = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "defaultProvider": json_any,
            "defaultModel": json_any,
            "defaultThinkingLevel": json_any,
            "steeringMode": json_any,
            "followUpMode": json_any,
            "theme": json_any,
            "quietStartup": json_any,
            "compaction": st.one_of(
                st.fixed_dictionaries(
                    {}, optional={"enabled": json_any, "reserveTokens": json_any, "keepRecentTokens": json_any}
                ),
                json_any,
            ),
            "retry": st.one_of(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "enabled": json_any,
                        "maxRetries": json_any,
                        "baseDelayMs": json_any,
                        "provider": st.one_of(
                            st.fixed_dictionaries(
                                {},
                                optional={"timeoutMs": json_any, "maxRetries": json_any, "maxRetryDelayMs": json_any},
                            ),
                            json_any,
                        ),
                    },
                ),
                json_any,
            ),
            "packages": json_any,
            "enabledModels": json_any,
            "sessionDir": json_any,
            "shellPath": json_any,
        },
    ),
    json_any,
)


@FUZZ
@given(settings_doc, st.one_of(settings_doc, st.none()))
def test_settings_load_or_report(tmp_path: Path, agent_dir: Path, glob: Any, project: Any) -> None:
    (agent_dir / "settings.json").write_text(json.dumps(glob))
    cwd = tmp_path / "proj"
    (cwd / ".pi").mkdir(parents=True, exist_ok=True)
    if project is not None:
        (cwd / ".pi" / "settings.json").write_text(json.dumps(project))
    settings, errors = load_settings(cwd, agent_dir)
    assert isinstance(settings, Settings)
    _one_line(errors)
    assert all(str(agent_dir) in e or str(cwd) in e or e.startswith("Merged") for e in errors)
    settings.to_json()


@FUZZ_SMALL
@given(st.one_of(st.binary(max_size=200), st.just(b"[" * 100_000), st.just(b'{"retry":' * 5000)))
def test_settings_garbage_bytes(tmp_path: Path, agent_dir: Path, data: bytes) -> None:
    (agent_dir / "settings.json").write_bytes(data)
    settings, errors = load_settings(tmp_path, agent_dir)
    assert isinstance(settings, Settings)
    _one_line(errors)
