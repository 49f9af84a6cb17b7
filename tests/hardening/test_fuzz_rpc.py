"""Fuzzing RPC input: the JSONL record splitter, the command parser and the server's line handler.

Properties: records split on ``\\n`` only whatever the chunking; every non-blank input line gets
exactly one response line, which is strict JSON (what a JavaScript client can ``JSON.parse``),
and a failure names the problem; nothing raises out of the handler.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pi_cli.modes.rpc import server as rpc_server
from pi_cli.modes.rpc.jsonl import iter_records, serialize_json_line, split_records
from pi_cli.modes.rpc.protocol import COMMAND_MODELS, CommandError, parse_command

from .fuzz_settings import FUZZ

_PIECES = [b"\n", b"\r\n", b"\r", b"{", b"}", b'"type"', b":", b'"prompt"', b"\xe2\x80\xa8", b"\xff", b"a", b" "]
record_bytes = st.one_of(st.binary(max_size=300), st.lists(st.sampled_from(_PIECES), max_size=50).map(b"".join))


class _Chunked(io.RawIOBase):
    """A byte stream that returns data in the given chunk sizes (like a pipe would)."""

    def __init__(self, data: bytes, sizes: list[int]) -> None:
        self._data, self._sizes, self._pos, self._i = data, sizes or [len(data) or 1], 0, 0

    def readable(self) -> bool:
        return True

    def read1(self, n: int = -1) -> bytes:
        size = self._sizes[self._i % len(self._sizes)]
        self._i += 1
        out = self._data[self._pos : self._pos + size]
        self._pos += len(out)
        return out


@FUZZ
@given(record_bytes, st.lists(st.integers(min_value=1, max_value=64), max_size=8))
def test_records_split_on_lf_only_whatever_the_chunking(data: bytes, sizes: list[int]) -> None:
    got = list(iter_records(_Chunked(data, sizes)))
    parts = data.split(b"\n")
    last = parts.pop()  # an unterminated final record still counts, an empty one does not
    expected = [p[:-1] if p.endswith(b"\r") else p for p in [*parts, *([last] if last else [])]]
    assert got == expected
    records, rest = split_records(data)
    assert b"\n" not in rest and all(b"\n" not in r for r in records)


json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10)
json_any = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
command_like = st.fixed_dictionaries(
    {"type": st.one_of(st.sampled_from(sorted(COMMAND_MODELS)), st.text(max_size=8), json_scalars)},
    optional={
        "id": json_any,
        "message": json_any,
        "images": json_any,
        "streamingBehavior": json_any,
        "provider": json_any,
        "modelId": json_any,
        "level": json_any,
        "mode": json_any,
        "enabled": json_any,
        "command": json_any,
        "entryId": json_any,
        "name": json_any,
        "sessionPath": json_any,
    },
)


@FUZZ
@given(st.one_of(command_like, json_any))
def test_parse_command_accepts_or_names_the_problem(obj: Any) -> None:
    try:
        command = parse_command(obj)
    except CommandError as exc:
        assert exc.message  # it may quote the type verbatim (as pi does); JSON framing keeps it one line
        assert isinstance(exc.command, str)  # "" for {"type": ""}, as pi answers
    else:
        assert command.type in COMMAND_MODELS


def _strict_loads(line: bytes) -> Any:
    def reject(name: str) -> Any:
        raise ValueError(f"non-standard JSON constant {name}")

    return json.loads(line, parse_constant=reject)


class _Capture:
    def __init__(self) -> None:
        self.lines: list[bytes] = []

    def write(self, obj: Any) -> None:
        self.lines.append(serialize_json_line(obj))


class _StubSession:
    is_streaming = False
    permissions = None
    extensions = None

    def subscribe(self, listener: Any) -> Any:
        return lambda: None

    def abort_bash(self) -> None:
        pass


async def _echo_handler(server: Any, command: Any) -> dict[str, Any]:
    return (
        {"id": command.id, "type": "response", "command": command.type, "success": True}
        if command.id is not None
        else {"type": "response", "command": command.type, "success": True}
    )


def _server(monkeypatch: pytest.MonkeyPatch) -> tuple[rpc_server.RpcServer, _Capture]:
    monkeypatch.setattr(rpc_server, "handle_command", _echo_handler)
    capture = _Capture()
    return rpc_server.RpcServer(_StubSession(), writer=capture), capture  # type: ignore[arg-type]


async def _one_response(server: rpc_server.RpcServer, capture: _Capture, record: bytes) -> dict[str, Any] | None:
    capture.lines.clear()
    await server.handle_line(record)
    if not record.strip():
        assert capture.lines == []
        return None
    assert len(capture.lines) == 1, capture.lines
    line = capture.lines[0]
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    response = _strict_loads(line)
    assert response["type"] == "response"
    if response["success"] is False:
        assert isinstance(response["error"], str) and response["error"]
    return response  # type: ignore[no-any-return]


@FUZZ
@given(st.one_of(record_bytes, command_like.map(lambda o: json.dumps(o).encode())))
async def test_handle_line_answers_every_line_once_in_strict_json(record: bytes) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        server, capture = _server(monkeypatch)
        await _one_response(server, capture, record)


@pytest.mark.parametrize(
    "record",
    [
        b'{"type":"get_state","id":NaN}',
        b'{"type":"get_state","id":Infinity}',
        b'{"type":"prompt","message":"x","id":-Infinity}',
        b"[" * 100_000,
        b'{"type":"get_state","x":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        b"\xff\xfe\x00",
        b'{"type":"prompt","message":"' + b"x" * 1_000_000 + b'"}',
    ],
    ids=["nan-id", "inf-id", "neg-inf-id", "deep-array", "deep-field", "bad-utf8", "1mb-line"],
)
async def test_hostile_lines_get_one_strict_response(record: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    server, capture = _server(monkeypatch)
    response = await _one_response(server, capture, record)
    assert response is not None
