"""The tools inside the real agent loop: schema validation, prepare_arguments and error results."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from tool_helpers import read_bytes, write_file

from pi_cli.agent.agent import Agent
from pi_cli.ai.providers.faux import (
    FauxProvider,
    faux_assistant,
    faux_text,
    faux_tool_call,
    register_faux_provider,
)
from pi_cli.tools import TOOL_NAMES, create_all_tools, create_coding_tools


@pytest.fixture
def faux() -> Iterator[FauxProvider]:
    provider = register_faux_provider()
    yield provider
    provider.unregister()


def test_default_and_all_tool_sets(cwd: str) -> None:
    assert [t.name for t in create_coding_tools(cwd)] == ["read", "bash", "edit", "write"]
    assert list(create_all_tools(cwd)) == list(TOOL_NAMES) == ["read", "bash", "edit", "write", "grep", "find", "ls"]
    for tool in create_all_tools(cwd).values():
        assert tool.parameters["type"] == "object" and tool.description and tool.label == tool.name


async def test_tool_round_trips_through_the_loop(faux: FauxProvider, cwd: str) -> None:
    write_file(cwd, "big.txt", "\n".join(f"row {i}" for i in range(1, 2501)))
    write_file(cwd, "cfg.ini", "mode = old\n")
    faux.set_responses(
        [
            faux_assistant(
                [
                    faux_tool_call("read", {"path": "big.txt", "offset": "2001"}, id="r"),  # string coerced
                    faux_tool_call("edit", {"path": "@cfg.ini", "oldText": "old", "newText": "new"}, id="e"),
                    faux_tool_call("bash", {"command": "echo boom; exit 2"}, id="b"),
                    faux_tool_call("write", {"path": "x.txt"}, id="w"),  # content missing
                ]
            ),
            faux_assistant([faux_text("done")]),
        ]
    )
    agent = Agent(model=faux.model(), tools=create_coding_tools(cwd), system_prompt="sys")
    await agent.prompt("go")
    results: dict[str, Any] = {
        m["toolCallId"]: m for m in agent.state.messages if isinstance(m, dict) and m.get("role") == "toolResult"
    }
    assert not results["r"]["isError"] and results["r"]["content"][0]["text"].startswith("row 2001\n")
    assert not results["e"]["isError"]
    assert results["e"]["content"][0]["text"] == "Successfully replaced 1 block(s) in @cfg.ini."
    assert read_bytes(os.path.join(cwd, "cfg.ini")) == b"mode = new\n"
    assert results["b"]["isError"] and results["b"]["content"][0]["text"] == "boom\n\n\nCommand exited with code 2"
    assert results["w"]["isError"] and "Validation failed" in results["w"]["content"][0]["text"]
