"""Usage costs are written as pi 1.6.0 (JavaScript) writes numbers: ``0`` and ``1``, not ``0.0`` and
``1.0`` (pi's recorded message_end in tests/fixtures/pi16/ai_tools.json has ``"total": 0``), in
``--mode json`` lines and session files alike, and such a session file resumes."""

from __future__ import annotations

import json

from cli.pi_harness import PiEnv
from pi_cli.ai.types import js_number
from pi_cli.compaction.summarizer import combine_usage

ZERO_COST = '"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0,"totalFromProvider":false}'


def test_js_number_writes_whole_numbers_as_integers() -> None:
    assert [json.dumps(js_number(v)) for v in (0.0, 2.0, 1.5, 3.9999999999999996e-05)] == [
        "0", "2", "1.5", "3.9999999999999996e-05"
    ]  # fmt: skip
    usage = {"input": 1, "cost": {"total": 0.5}}
    assert (
        json.dumps(combine_usage([usage, {"input": 2, "cost": {"total": 1.5}}])) == '{"input": 3, "cost": {"total": 2}}'
    )


def test_zero_and_whole_costs_are_written_as_pi_writes_them(pi: PiEnv) -> None:
    pi.server.add_turns([{"text": "free", "usage": {"input": 40, "output": 9}}])
    result = pi.run("--mode", "json", "hi")
    end = next(line for line in result.stdout.splitlines() if '"message_end"' in line and '"assistant"' in line)
    assert ZERO_COST in end
    assert ZERO_COST in pi.session_files()[0].read_text()

    # A priced model: 40 input tokens at $25,000/Mtok cost exactly 1 (written "1"), 9 output
    # tokens at $0.5/Mtok cost 4.5e-06.
    models = json.loads((pi.agent_dir / "models.json").read_text())
    priced = {"id": "fake-priced", "cost": {"input": 25000, "output": 0.5, "cacheRead": 0, "cacheWrite": 0}}
    models["providers"]["fake"]["models"].append(priced)
    (pi.agent_dir / "models.json").write_text(json.dumps(models))
    pi.server.add_turns([{"text": "paid", "usage": {"input": 40, "output": 9}}, {"text": "again"}])
    result = pi.run("--mode", "json", "-c", "--model", "fake/fake-priced", "hi again", model=False)
    end = next(line for line in result.stdout.splitlines() if '"message_end"' in line and "paid" in line)
    assert '"cost":{"input":1,"output":4.5e-06,"cacheRead":0,"cacheWrite":0,"total":1.0000045,' in end
    # The session file with integer costs resumes and carries on.
    resumed = pi.run("-p", "-c", "--model", "fake/fake-priced", "third", model=False)
    assert resumed.returncode == 0 and "again" in resumed.stdout
