"""Tool results on the wire as pi 0.73.1 writes them (``--mode json`` / rpc events).

pi leaves ``details`` undefined for a plain result, so ``tool_execution_end.result`` has no
``details`` key; the bash tool's first update is ``{"content": []}`` and later updates carry
``details: {}`` until the output is truncated; the last update holds all output.
"""

from __future__ import annotations

from pi_cli.agent.types import AgentToolResult
from pi_cli.tools import create_all_tools


def test_result_without_details_omits_the_key() -> None:
    assert AgentToolResult(content=[{"type": "text", "text": "x"}]).to_json() == {
        "content": [{"type": "text", "text": "x"}]
    }
    assert AgentToolResult(content=[], details={}).to_json() == {"content": [], "details": {}}


async def test_bash_updates_have_pi_shapes(tmp_path: object) -> None:
    tool = create_all_tools(str(tmp_path))["bash"]
    updates: list[dict[str, object]] = []
    final = await tool.execute("t", {"command": "echo hi; echo err >&2"}, None, lambda u: updates.append(u.to_json()))
    assert updates[0] == {"content": []}
    assert len(updates) >= 2
    for update in updates[1:]:
        assert update["details"] == {}
    last = updates[-1]["content"]
    assert isinstance(last, list) and last[0]["text"].startswith("hi\nerr")  # flushed before the end
    assert "details" not in final.to_json()
