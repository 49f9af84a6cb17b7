"""``before_provider_request`` / ``after_provider_response`` against the fake LLM server
(issue 31): a handler sees each request body, may replace it (chained), and hears the answer's
status; pi's ``provider-payload`` example logs both."""

from __future__ import annotations

import json
from pathlib import Path

from cli.pi_harness import PiEnv

CHAIN = """
import json, os
from pathlib import Path

def register(pi):
    def first(event, ctx):
        return {**event["payload"], "temperature": 0.25}
    def second(event, ctx):
        seen = event["payload"].get("temperature")
        payload = dict(event["payload"])
        payload["metadata"] = {"seen_temperature": seen}
        return payload
    def keep(event, ctx):
        return None
    def after(event, ctx):
        with Path(os.environ["EXT_LOG"]).open("a") as f:
            f.write(json.dumps({"status": event["status"], "has_headers": bool(event["headers"])}) + "\\n")
    pi.on("before_provider_request", first)
    pi.on("before_provider_request", second)
    pi.on("before_provider_request", keep)
    pi.on("after_provider_response", after)
"""


def test_payload_is_replaced_in_a_chain_and_the_status_is_told(pi: PiEnv) -> None:
    log = pi.root / "after.jsonl"
    pi.env["EXT_LOG"] = str(log)
    ext = pi.root / "chain.py"
    ext.write_text(CHAIN)
    assert pi.server is not None
    pi.server.add_turns([{"text": "hello"}])
    done = pi.run("-p", "-e", str(ext), "hi")
    assert done.returncode == 0, done.stderr
    body = pi.bodies()[-1]
    assert body["temperature"] == 0.25 and body["metadata"] == {"seen_temperature": 0.25}
    assert [json.loads(line) for line in log.read_text().splitlines()] == [{"status": 200, "has_headers": True}]


def test_provider_payload_example_logs_and_may_set_the_temperature(pi: PiEnv) -> None:
    assert pi.server is not None
    pi.server.add_turns([{"text": "one"}, {"text": "two"}])
    plain = pi.run("-p", "-e", "example:provider_payload", "first")
    assert plain.returncode == 0, plain.stderr
    assert "temperature" not in pi.bodies()[-1]
    pi.env["PI_PAYLOAD_TEMPERATURE"] = "0"
    tuned = pi.run("-p", "-e", "example:provider_payload", "second")
    assert tuned.returncode == 0, tuned.stderr
    assert pi.bodies()[-1]["temperature"] == 0
    logged = (Path(pi.cwd) / ".pi" / "provider-payload.log").read_text()
    assert '"first"' in logged and '"second"' in logged and logged.count("# response status 200") == 2
