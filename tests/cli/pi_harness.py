"""Run ``pi`` as a subprocess against tools/fake_llm_server.py (shared by tests/cli and tests/rpc).

The ``server`` and ``pi`` fixtures are defined here once; the conftests of tests/cli and tests/rpc
re-export them. ``PiEnv`` makes a private agent dir (models.json pointing at the fake server, settings.json with
tiny retry delays and no provider-level retries), a working directory and a clean environment
(no API keys, HOME inside tmp_path, PI_OFFLINE=1). ``RpcClient`` drives ``pi --mode rpc``.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from fake_llm_server import FakeLLMServer  # noqa: E402

PI = [sys.executable, "-m", "pi_cli"]
_SECRET_HINTS = ("_API_KEY", "_TOKEN", "AWS_", "AZURE_", "CLOUDFLARE_", "PI_")


def clean_env(**extra: str) -> dict[str, str]:
    # PYTHONDONTWRITEBYTECODE would make every pi subprocess recompile pi_cli from source.
    env = {
        k: v for k, v in os.environ.items() if not any(h in k for h in _SECRET_HINTS) and k != "PYTHONDONTWRITEBYTECODE"
    }
    env.update(extra)
    return env


class PiEnv:
    def __init__(self, tmp_path: Path, server: FakeLLMServer | None, settings: dict[str, Any] | None = None) -> None:
        self.root = tmp_path
        self.agent_dir = tmp_path / "agent"
        self.cwd = tmp_path / "work"
        self.home = tmp_path / "home"
        for d in (self.agent_dir, self.cwd, self.home):
            d.mkdir(parents=True, exist_ok=True)
        self.server = server
        if server is not None:
            models = {
                "providers": {
                    "fake": {
                        "baseUrl": server.openai_base_url,
                        "api": "openai-completions",
                        "apiKey": "sk-fake",
                        "models": [
                            {"id": "fake-model"},
                            {"id": "fake-other"},
                            {"id": "fake-think", "reasoning": True},
                        ],
                    }
                }
            }
            (self.agent_dir / "models.json").write_text(json.dumps(models))
        base = {"retry": {"baseDelayMs": 20, "provider": {"maxRetries": 0}}}
        base.update(settings or {})
        (self.agent_dir / "settings.json").write_text(json.dumps(base))
        self.env = clean_env(
            PI_CODING_AGENT_DIR=str(self.agent_dir), PI_OFFLINE="1", HOME=str(self.home), PYTHONUNBUFFERED="1"
        )

    def args(self, *args: str, model: bool = True) -> list[str]:
        extra = ["--model", "fake/fake-model"] if model and self.server is not None else []
        return [*PI, *extra, *args]

    def run(
        self, *args: str, input: str | None = "", model: bool = True, timeout: float = 30
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.args(*args, model=model), input=input, capture_output=True, text=True, cwd=self.cwd,
            env=self.env, timeout=timeout,
        )  # fmt: skip

    def popen(self, *args: str, model: bool = True, **kwargs: Any) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            self.args(*args, model=model), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=self.cwd, env=self.env, **kwargs,
        )  # fmt: skip

    def session_files(self) -> list[Path]:
        return sorted((self.agent_dir / "sessions").rglob("*.jsonl"))

    def bodies(self) -> list[dict[str, Any]]:
        assert self.server is not None
        return [r["body"] for r in self.server.requests]


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def user_texts(body: dict[str, Any]) -> list[str]:
    """Texts of the user messages in an OpenAI request body."""
    out = []
    for message in body["messages"]:
        if message["role"] != "user":
            continue
        content = message["content"]
        if isinstance(content, str):
            out.append(content)
        else:
            out.append("".join(part.get("text", "") for part in content if part.get("type") == "text"))
    return out


class RpcClient:
    """A running ``pi --mode rpc``: send commands, collect responses and events."""

    def __init__(self, env: PiEnv, *args: str) -> None:
        self.proc = env.popen("--mode", "rpc", *args)
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.raw: list[bytes] = []
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()
        self._next = 0

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.raw.append(line)
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def send(self, obj: dict[str, Any] | str | bytes) -> None:
        assert self.proc.stdin is not None
        if isinstance(obj, dict):
            data = (json.dumps(obj) + "\n").encode()
        elif isinstance(obj, str):
            data = obj.encode()
        else:
            data = obj
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def next(self, timeout: float = 15) -> dict[str, Any]:
        item = self.lines.get(timeout=timeout)
        if item is None:
            raise EOFError("pi exited")
        self.seen.append(item)
        return item

    def wait_for(self, predicate: Any, timeout: float = 15) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            item = self.next(max(0.01, deadline - time.monotonic()))
            if predicate(item):
                return item

    def event(self, kind: str, timeout: float = 15) -> dict[str, Any]:
        return self.wait_for(lambda o: o.get("type") == kind, timeout)

    def request(self, command: dict[str, Any], timeout: float = 15) -> dict[str, Any]:
        self._next += 1
        rid = command.get("id") or f"r{self._next}"
        self.send({**command, "id": rid})
        return self.wait_for(lambda o: o.get("type") == "response" and o.get("id") == rid, timeout)

    def close(self, timeout: float = 10) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._reader.join(2)
            for stream in (self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    stream.close()

    def stderr(self) -> str:
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode(errors="replace")


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    """A fake LLM server on a free port, running in a thread for the test's duration."""
    srv = FakeLLMServer([])
    srv.start_in_thread()
    try:
        yield srv
    finally:
        srv.stop_thread()


@pytest.fixture
def pi(tmp_path: Path, server: FakeLLMServer) -> PiEnv:
    """A :class:`PiEnv` under ``tmp_path`` whose models.json points at ``server``."""
    return PiEnv(tmp_path, server)
