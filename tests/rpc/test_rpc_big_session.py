"""``pi -c --mode rpc`` on a session big enough to be loaded slim (bodies left in the file): the
``get_messages`` answer is one line holding each context message's JSON text exactly as the file
holds it (non-ASCII kept raw or escaped, as written), plain and compacted; the stdout pipe is
widened to carry it in big writes."""

from __future__ import annotations

import fcntl
import json
import sys
from pathlib import Path

import pytest
from cli.pi_harness import PiEnv, RpcClient

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from tui_workloads import write_session

ENTRIES = 3_000  # ~8.7 MB: over the size from which files are loaded slim


def _message_text(line: bytes) -> bytes:
    key = b'"message": '  # write_session's separators; the type's value is followed by ","
    return line[line.index(key) + len(key) : -1]


def _append_unicode_turn(path: Path) -> None:
    """A user message written with raw non-ASCII (U+2028 included) and a reply with \\u escapes."""
    lines = path.read_bytes().splitlines()
    parent = json.loads(lines[-1])["id"]
    text = "café ☕ 😀 line\u2028separator"
    user = {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}
    reply = {**json.loads(lines[-1])["message"], "content": [{"type": "text", "text": text}]}
    when = "2026-12-02T00:00:00.000Z"
    with path.open("ab") as out:  # pi's key order: type, id, parentId, timestamp, message
        entry = {"type": "message", "id": "u-1", "parentId": parent, "timestamp": when, "message": user}
        out.write(json.dumps(entry, ensure_ascii=False).encode() + b"\n")
        entry = {"type": "message", "id": "a-1", "parentId": "u-1", "timestamp": when, "message": reply}
        out.write(json.dumps(entry).encode() + b"\n")


@pytest.mark.parametrize("compact_every", [0, 1000], ids=["plain", "compacted"])
def test_get_messages_is_the_file_text_of_each_message(pi: PiEnv, compact_every: int) -> None:
    path = write_session(pi.agent_dir, str(pi.cwd), ENTRIES, compact_every=compact_every)
    _append_unicode_turn(path)
    lines = path.read_bytes().splitlines()[1:]
    entries = [json.loads(line) for line in lines]
    start = 0
    compactions = [i for i, e in enumerate(entries) if e["type"] == "compaction"]
    if compactions:
        first_kept = entries[compactions[-1]]["firstKeptEntryId"]
        start = next(i for i, e in enumerate(entries) if e["id"] == first_kept)
    texts = [
        _message_text(line) for line, e in zip(lines[start:], entries[start:], strict=True) if e["type"] == "message"
    ]

    client = RpcClient(pi, "-c")
    try:
        client.request({"type": "get_messages", "id": "big"}, timeout=60)
        answer = client.raw[-1]
        widened = fcntl.fcntl(client.proc.stdout.fileno(), fcntl.F_GETPIPE_SZ) if sys.platform == "linux" else None
    finally:
        assert client.close() == 0

    head = b'{"id":"big","type":"response","command":"get_messages","success":true,"data":{"messages":['
    assert answer.startswith(head) and answer.endswith(b"]}}\n")
    if compactions:
        summary, rest = answer[len(head) :].split(b"},", 1)
        assert json.loads(summary + b"}")["role"] == "compactionSummary"
        assert rest == b",".join(texts) + b"]}}\n"
    else:
        assert answer == head + b",".join(texts) + b"]}}\n"
    assert "café ☕ 😀 line\u2028separator".encode() in answer and b"caf\\u00e9 \\u2615" in answer
    assert widened is None or widened >= 1 << 20
