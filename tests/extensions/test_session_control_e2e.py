"""``ctx.mode`` and ``ctx.shutdown()`` in real pi processes (issue 31): print and json name
themselves, RPC quits on an extension's request once the command has answered."""

from __future__ import annotations

import json
from pathlib import Path

from cli.pi_harness import PiEnv, RpcClient

MODE_EXT = """
import json, os
from pathlib import Path

def register(pi):
    def record(event, ctx):
        with Path(os.environ["EXT_LOG"]).open("a") as f:
            f.write(json.dumps({"mode": ctx.mode, "has_ui": ctx.has_ui}) + "\\n")
    pi.on("session_start", record)
    pi.register_command("bye", lambda args, ctx: ctx.shutdown(), "Quit")
"""


def _setup(pi: PiEnv) -> tuple[Path, Path]:
    log = pi.root / "modes.jsonl"
    pi.env["EXT_LOG"] = str(log)
    ext = pi.root / "mode_ext.py"
    ext.write_text(MODE_EXT)
    return log, ext


def test_print_and_json_modes_name_themselves_and_shutdown_is_a_no_op(pi: PiEnv) -> None:
    log, ext = _setup(pi)
    assert pi.server is not None
    pi.server.add_turns([{"text": "one"}, {"text": "two"}])
    printed = pi.run("-p", "-e", str(ext), "/bye", "hi")  # /bye: nothing quits early in print mode
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout.strip() == "one"
    streamed = pi.run("--mode", "json", "-e", str(ext), "hi")
    assert streamed.returncode == 0, streamed.stderr
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert records == [{"mode": "print", "has_ui": False}, {"mode": "json", "has_ui": False}]


def test_rpc_mode_and_shutdown_after_the_command_answered(pi: PiEnv) -> None:
    log, ext = _setup(pi)
    client = RpcClient(pi, "-e", str(ext))
    try:
        answer = client.request({"type": "prompt", "message": "/bye"})
        assert answer["success"] is True
        assert client.proc.wait(15) == 0  # ctx.shutdown(): the server ended as at EOF
    finally:
        client.close()
    assert json.loads(log.read_text().splitlines()[0]) == {"mode": "rpc", "has_ui": True}
