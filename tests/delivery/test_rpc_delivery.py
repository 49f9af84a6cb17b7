"""Issue 32 over RPC: ``steer`` / ``follow_up`` commands sent at the same randomised moments as the
TUI's keys reach the model; one that arrives after the run settled starts the next run (pi 1.6.0
would leave it queued in an idle agent). The server runs in-process, fed lines as ``serve`` feeds them."""

from __future__ import annotations

import json
import os
from typing import Any

from delivery.scenario import Round, ScriptedModel, drive_rounds, plan
from pi_cli.modes.rpc.server import RpcServer

ROUNDS = int(os.environ.get("PI_DELIVERY_ROUNDS", "200"))


class Records:
    """A JsonlWriter stand-in that keeps what the server writes."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def write(self, obj: dict[str, Any]) -> None:
        self.records.append(obj)


async def test_commands_sent_at_any_moment_of_a_run_reach_the_model(faux: Any, session: Any) -> None:
    model = ScriptedModel(faux)
    model.start()
    out = Records()
    server = RpcServer(session, out)  # type: ignore[arg-type]

    def send(command: dict[str, Any]) -> None:
        server.spawn(server.handle_line(json.dumps(command).encode()))

    def send_prompt(round_: Round) -> None:
        send({"id": f"p{round_.index}", "type": "prompt", "message": round_.prompt})

    def submit(round_: Round) -> None:
        kind = "follow_up" if round_.key == "alt+enter" else "steer"
        send({"id": f"f{round_.index}", "type": kind, "message": round_.follow})

    await drive_rounds(session, model, plan(ROUNDS, seed=34), send_prompt, submit)
    responses = [r for r in out.records if r.get("type") == "response"]
    assert all(r["success"] for r in responses), [r for r in responses if not r["success"]][:3]
    dispositions = {r["data"]["disposition"] for r in responses if r["command"] in ("steer", "follow_up")}
    assert dispositions <= {"queued", "started"}
    await server.shutdown()
