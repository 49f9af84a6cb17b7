"""``pi --mode json --tools …,subagent`` as a subprocess against the fake LLM server: the child's
progress reaches json clients as ``tool_execution_update`` events, its answer the parent's next
request, and its session file sits beside the parent's, naming it."""

from __future__ import annotations

import json

from cli.pi_harness import PiEnv, json_lines, pi, server

__all__ = ["pi", "server"]


def test_json_mode_streams_a_childs_progress_and_its_answer(pi: PiEnv) -> None:
    assert pi.server is not None
    pi.server.add_turns(
        [
            {"tool_calls": [{"name": "subagent", "arguments": {"agent": "scout", "task": "list files"}, "id": "s1"}]},
            {"text": "SCOUT-SAYS-HI"},  # the child's request comes second: one child, FIFO is enough
            {"text": "parent done"},
        ]
    )
    done = pi.run("--mode", "json", "--tools", "read,subagent", "go")
    assert done.returncode == 0, done.stderr
    events = json_lines(done.stdout)
    updates = [e for e in events if e["type"] == "tool_execution_update" and e["toolName"] == "subagent"]
    assert updates and updates[0]["partialResult"]["details"]["results"][0]["agent"] == "scout"
    (end,) = [e for e in events if e["type"] == "tool_execution_end"]
    assert "SCOUT-SAYS-HI" in end["result"]["content"][0]["text"]
    parent_first, child, parent_second = pi.bodies()
    assert [t["function"]["name"] for t in parent_first["tools"]] == ["read", "subagent"]
    assert child["messages"][0]["content"].startswith("You are scout")
    assert [t["function"]["name"] for t in child["tools"]] == ["read", "grep", "find", "ls"]
    assert "SCOUT-SAYS-HI" in json.dumps(parent_second["messages"][-1])
    files = pi.session_files()
    headers = [json.loads(path.read_text().splitlines()[0]) for path in files]
    parents = [h for h in headers if "parentSession" not in h]
    children = [h for h in headers if "parentSession" in h]
    assert len(parents) == 1 and len(children) == 1
    assert children[0]["parentSession"] == str(next(p for p, h in zip(files, headers, strict=True) if h in parents))
