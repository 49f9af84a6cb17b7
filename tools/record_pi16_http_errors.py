"""Record pi 1.6.0's ``errorMessage`` for provider HTTP errors (tests/fixtures/pi16/http_errors.json).

``python tools/record_pi16_http_errors.py [--out PATH]`` runs ``pi --mode json`` once per model of
:data:`MODELS` (openai-completions, openai-responses, anthropic-messages, google-generative-ai) and
error case of :data:`CASES` (a JSON 500, a plain-text 429, a nested 400, an empty 503, a 401) against
tools/fake_llm_server.py, and writes the assistant's ``errorMessage`` and how many requests pi sent
(its provider-level retries: 0 by default). tests/wire/test_pi16_http_errors.py replays the cases
against pi_cli.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from fake_llm_server import FakeLLMServer  # noqa: E402
from record_pi16 import models_json  # noqa: E402
from stream_stages import reference_pi  # noqa: E402

OUT = HERE.parent / "tests" / "fixtures" / "pi16" / "http_errors.json"
CASES: dict[str, dict[str, Any]] = {
    "500-json": {"status": 500},
    "429-text": {"status": 429, "body": "Too many requests, slow down", "content_type": "text/plain"},
    "400-nested": {
        "status": 400,
        "body": {"type": "error", "error": {"type": "invalid_request_error", "message": "bad thing"}},
    },
    "503-empty": {"status": 503, "body": "", "content_type": "text/plain"},
    "401": {"status": 401, "body": {"error": {"message": "Invalid key", "code": 401, "status": "UNAUTHENTICATED"}}},
}
MODELS = ["fake/fake-model", "fake-resp/resp-plain", "fake-ant/claude-fake", "fake-goog/gemini-fake"]


def record(prefix: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"cases": CASES, "results": {}}
    with tempfile.TemporaryDirectory(prefix="record-pi16-") as tmp, FakeLLMServer([], loop=False) as server:
        root = Path(tmp)
        agent, cwd, home = root / "agent", root / "work", root / "home"
        for folder in (agent, cwd, home):
            folder.mkdir()
        (agent / "models.json").write_text(json.dumps(models_json(server)))
        (agent / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}))
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TERM")}
        env.update(PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1", HOME=str(home))
        for model in MODELS:
            for case, turn in CASES.items():
                server.add_turns([turn])
                before = len(server.requests)
                done = subprocess.run(
                    [*prefix, "--model", model, "--no-session", "--mode", "json", "hi"],
                    env=env, cwd=cwd, capture_output=True, timeout=60,
                )  # fmt: skip
                events = [json.loads(line) for line in done.stdout.splitlines() if line.strip().startswith(b"{")]
                ends = [
                    e["message"]
                    for e in events
                    if e.get("type") == "message_end" and e["message"]["role"] == "assistant"
                ]
                out["results"][f"{model} {case}"] = {
                    "errorMessage": ends[-1].get("errorMessage") if ends else None,
                    "requests": len(server.requests) - before,
                }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="record_pi16_http_errors.py", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    prefix = reference_pi()
    if prefix is None:
        print("pi 1.6.0 not found (see tools/stream_stages.py)", file=sys.stderr)
        return 1
    result = {"_about": "pi 1.6.0's errorMessage per provider and HTTP error; see tools/record_pi16_http_errors.py"}
    result.update(record(prefix))
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
