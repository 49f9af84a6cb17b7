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


STREAM_EVENTS = """
import json, os
from pathlib import Path

def register(pi):
    def seen(event, ctx):
        with Path(os.environ["EXT_LOG"]).open("a") as f:
            f.write(json.dumps(event) + "\\n")
    pi.on("provider_stream_event", seen)
"""


def test_provider_stream_events_are_told_in_order_with_their_parsed_data(pi: PiEnv) -> None:
    log = pi.root / "stream.jsonl"
    pi.env["EXT_LOG"] = str(log)
    ext = pi.root / "stream.py"
    ext.write_text(STREAM_EVENTS)
    assert pi.server is not None
    pi.server.add_turns([{"text": "hello there"}])
    done = pi.run("-p", "-e", str(ext), "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello there"
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(events) >= 3
    assert {(e["type"], e["provider"], e["api"]) for e in events} == {
        ("provider_stream_event", events[0]["provider"], "openai-completions")
    }
    assert all(set(e) == {"type", "data", "provider", "api", "model"} for e in events)
    chunks = [e["data"] for e in events if isinstance(e["data"], dict)]
    text = "".join(
        choice.get("delta", {}).get("content") or "" for chunk in chunks for choice in chunk.get("choices", [])
    )
    assert text == "hello there"  # every chunk, in stream order, as the provider sent it
