"""In-process units behind the CLI: argument parsing, input composition, framing, coalescing,
retry classification, the local-server probe and the model fallback order."""

from __future__ import annotations

import asyncio
import base64
import http.server
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from pi_cli.ai.overflow import is_retryable_error
from pi_cli.cli_args import CliArgs, parse_args, select_mode
from pi_cli.cli_input import compose_initial_input
from pi_cli.errors import InputFileError, UsageError
from pi_cli.models import local_probe
from pi_cli.modes.rpc.coalesce import UpdateCoalescer
from pi_cli.modes.rpc.jsonl import serialize_json_line, split_records
from pi_cli.session.retry import RetryPolicy, retry_after_ms


def test_parse_args_quirks() -> None:
    args = parse_args(["-p", "--mode", "bogus", "--list-models", "--thinking", "high", "@a.txt", "msg", "two"])
    assert args.print and args.mode is None and args.list_models is True and args.thinking == "high"
    assert args.file_args == ["a.txt"] and args.messages == ["msg", "two"]
    assert any("Invalid mode" in w for w in args.warnings)
    assert parse_args(["--list-models", "sonnet"]).list_models == "sonnet"
    assert parse_args(["--list-models", "@x"]).list_models is True
    many = parse_args(["--append-system-prompt", "a", "--append-system-prompt", "b", "-t", "read,nope"])
    assert many.append_system_prompt == ["a", "b"] and many.tools == ["read"]
    assert parse_args(["--export", "in.jsonl", "out.html"]).export == ["in.jsonl", "out.html"]
    with pytest.raises(UsageError, match="Unknown option: --nope"):
        parse_args(["--nope"])
    with pytest.raises(UsageError, match="--model requires a value"):
        parse_args(["--model"])
    assert select_mode(parse_args([]), stdin_is_tty=True) == "interactive"
    assert select_mode(parse_args([]), stdin_is_tty=False) == "print"
    assert select_mode(parse_args(["--mode", "rpc", "-p"]), stdin_is_tty=True) == "rpc"


def test_initial_input_with_image_and_empty_file(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 20
    (tmp_path / "pic.png").write_bytes(png)
    (tmp_path / "empty.txt").write_text("")
    got = compose_initial_input(None, ["pic.png", "empty.txt"], ["look", "next"], tmp_path)
    assert got.first == f'<file name="{tmp_path / "pic.png"}"></file>\nlook'
    assert got.images == [{"type": "image", "data": base64.b64encode(png).decode(), "mimeType": "image/png"}]
    assert got.rest == ["next"]
    with pytest.raises(InputFileError, match="File not found"):
        compose_initial_input(None, ["missing"], [], tmp_path)


def test_jsonl_framing_splits_on_lf_only() -> None:
    line = serialize_json_line({"text": "a\u2028b\u2029c\rd"})
    assert line.count(b"\n") == 1 and "\u2028".encode() in line
    records, rest = split_records(line + b'{"x":1}\r\n{"partial"')
    assert [json.loads(r) for r in records] == [{"text": "a\u2028b\u2029c\rd"}, {"x": 1}]
    assert rest == b'{"partial"'


def _update(kind: str, index: int, delta: str) -> dict[str, Any]:
    return {"type": "message_update", "message": {"n": delta},
            "assistantMessageEvent": {"type": kind, "contentIndex": index, "delta": delta}}  # fmt: skip


async def test_coalescer_merges_same_block_and_flushes_on_other_events() -> None:
    out: list[dict[str, Any]] = []
    co = UpdateCoalescer(out.append, rate=1.0)  # one emit per second: everything after the first merges
    co.push(_update("text_delta", 0, "a"))
    co.push(_update("text_delta", 0, "b"))
    co.push(_update("text_delta", 0, "c"))
    co.push(_update("thinking_delta", 1, "T"))
    co.push({"type": "message_end"})
    deltas = [(e["assistantMessageEvent"]["type"], e["assistantMessageEvent"]["delta"]) for e in out[:-1]]
    assert deltas == [("text_delta", "a"), ("text_delta", "bc"), ("thinking_delta", "T")]
    assert out[-1] == {"type": "message_end"}
    count = len(out)
    co.push(_update("text_delta", 0, "x"))  # within a second of the last write: held back
    co.push(_update("text_delta", 0, "y"))
    assert len(out) == count
    await asyncio.sleep(1.1)  # the timer writes the pending merge when the stream pauses
    assert out[-1]["assistantMessageEvent"]["delta"] == "xy"


def test_retry_classification_and_delays() -> None:
    def err(text: str) -> dict[str, Any]:
        return {"role": "assistant", "stopReason": "error", "errorMessage": text}

    for text in ("429 Too Many Requests", "503 Service Unavailable", "overloaded_error", "Connection reset",
                 "fetch failed", "Request timed out.", "upstream connect error or disconnect/reset before headers",
                 "websocket error"):  # fmt: skip
        assert is_retryable_error(err(text)), text
    for text in ("401 Unauthorized", "prompt is too long: 300000 tokens", "invalid request"):
        assert not is_retryable_error(err(text)), text
    assert not is_retryable_error({"role": "assistant", "stopReason": "aborted", "errorMessage": "500"})
    policy = RetryPolicy(base_delay_ms=2000, max_delay_ms=60_000)
    assert [policy.delay_ms(n) for n in (1, 2, 3)] == [2000, 4000, 8000]
    assert policy.delay_ms(1, "429: please retry after 7s") == 7000
    assert retry_after_ms('"retryDelay": "250ms"') == 250
    assert policy.delay_ms(1, "retry-after: 600") == 60_000


class _ModelsHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps({"data": [{"id": "llama3"}, {"id": "qwen"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def test_local_probe_finds_an_openai_compatible_server(monkeypatch: pytest.MonkeyPatch) -> None:
    server = http.server.HTTPServer(("127.0.0.1", 0), _ModelsHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        monkeypatch.setattr(local_probe, "LOCAL_SERVERS", (("ollama", "Ollama", 1), ("ollama", "Ollama", port)))
        models = local_probe.probe_local_servers(timeout=1.0)
    finally:
        server.shutdown()
    assert [m["id"] for m in models] == ["llama3", "qwen"]
    assert models[0]["baseUrl"] == f"http://127.0.0.1:{port}/v1" and models[0]["api"] == "openai-completions"


def test_fallback_order_local_then_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_cli.models.startup import choose_model
    from pi_cli.session.assembly import SessionOptions

    class EmptyRegistry:
        def available_models(self) -> list[Any]:
            return []

    local = [local_probe.local_model("ollama", "Ollama", 11434, "llama3")]
    online = SessionOptions(cwd=tmp_path)
    choice = choose_model(online, None, EmptyRegistry(), lambda m: False, probe=lambda: local)
    assert choice.model["id"] == "llama3" and choice.source == "local" and choice.extra_keys == {"ollama": "local"}
    offline = SessionOptions(cwd=tmp_path, offline=True)
    demo = choose_model(offline, None, EmptyRegistry(), lambda m: False, probe=lambda: local)
    assert demo.source == "demo" and demo.model["provider"] == "faux"
    assert "API key" in demo.notices[-1]


def test_session_options_carry_every_cli_choice() -> None:
    from dataclasses import fields

    from pi_cli.cli import session_options
    from pi_cli.session.assembly import SessionOptions

    # Fields are copied by name: a SessionOptions field the CLI spells differently would be lost.
    missing = {f.name for f in fields(SessionOptions)} - {f.name for f in fields(CliArgs)}
    assert missing == {"cwd", "stream_fn", "mcp_servers", "preloaded_extensions"}
    args = parse_args(["--model", "m", "--skill", "s", "--no-session", "--tools", "read", "--offline", "hi"])
    options = session_options(args, "print", Path("/w"))
    assert (options.model, options.skills, options.no_session, options.tools) == ("m", ["s"], True, ["read"])
    assert options.mode == "print" and options.offline and options.skills is not args.skills


def test_collector_is_paused_during_start_up_and_given_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """run() holds the cyclic collector off while the session is built; main() turns it back on
    however the run ends (here: an error while building the session)."""
    import gc

    from pi_cli import cli
    from pi_cli.errors import ConfigError
    from pi_cli.session import assembly

    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path))
    monkeypatch.setenv("PI_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)
    seen: list[bool] = []

    def failing_session(options: Any) -> Any:
        seen.append(gc.isenabled())
        raise ConfigError("Error: no session today")

    monkeypatch.setattr(assembly, "create_agent_session", failing_session)
    assert gc.isenabled()
    assert cli.main(["--no-session", "-p", "hi"]) == 1
    assert seen == [False]
    assert gc.isenabled()
