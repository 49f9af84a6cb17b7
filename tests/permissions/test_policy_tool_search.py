"""tool_search only loads MCP tool declarations: no approval is asked for it, even in ask mode."""

from __future__ import annotations

from pi_cli.permissions.policy import READ_ONLY_TOOLS, is_mutating


def test_tool_search_is_read_only_but_the_tools_it_loads_are_not() -> None:
    assert "tool_search" in READ_ONLY_TOOLS and not is_mutating("tool_search")
    assert is_mutating("mcp__github__create_issue")
