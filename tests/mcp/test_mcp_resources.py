"""pi 1.6.0's MCP resource tools (``list_mcp_resources``, ``list_mcp_resource_templates``,
``read_mcp_resource``) against the test server started with ``--resources``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_cli.mcp.config import load_mcp_config
from pi_cli.mcp.errors import McpError
from pi_cli.mcp.log import McpLog
from pi_cli.mcp.manager import McpManager

from .conftest import stdio_entry, write_config

NAMES = ["list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"]


def _manager(agent_dir: Path, project: Path, servers: dict[str, Any]) -> McpManager:
    write_config(agent_dir / "mcp.json", servers)
    config = load_mcp_config(agent_dir, project, trusted=False)
    return McpManager(config, project, McpLog(agent_dir / "mcp.log"))


async def _call(manager: McpManager, name: str, args: dict[str, Any]) -> Any:
    tool = next(t for t, _ in manager.all_tools() if t.name == name)
    return await tool.execute("call-1", args, None, None)


async def test_resource_tools_list_and_read_in_pis_form(agent_dir: Path, project: Path) -> None:
    servers = {"res": stdio_entry("--resources", exposure="direct"), "plain": stdio_entry(exposure="direct")}
    manager = _manager(agent_dir, project, servers)
    manager.start()
    try:
        await manager.wait_ready(timeout=10)
        assert [t.name for t, exposure in manager.all_tools() if t.name in NAMES and exposure == "direct"] == NAMES
        assert manager.resource_servers() == ["res"]
        listed = await _call(manager, "list_mcp_resources", {})
        assert listed.structured_content == {
            "resources": [
                {"server": "res", "uri": "file:///notes.txt", "name": "notes", "mimeType": "text/plain"},
                {"server": "res", "uri": "file:///logo.bin", "name": "logo"},
            ]
        }
        assert listed.content[0]["text"].startswith('{"resources":[{"server":"res","uri":"file:///notes.txt"')
        assert listed.details == {"server": "", "tool": "list_mcp_resources"}
        page = await _call(manager, "list_mcp_resources", {"server": "res"})
        assert page.structured_content["server"] == "res" and page.structured_content["nextCursor"] == "2"
        assert [r["name"] for r in page.structured_content["resources"]] == ["notes"]  # the app is left out
        templates = await _call(manager, "list_mcp_resource_templates", {})
        assert templates.structured_content == {
            "resourceTemplates": [{"server": "res", "uriTemplate": "file:///{path}", "name": "files"}]
        }
        read = await _call(manager, "read_mcp_resource", {"server": "res", "uri": "file:///notes.txt"})
        assert read.content == [{"type": "text", "text": "the notes"}]
        assert read.details == {"server": "res", "tool": "read_mcp_resource"}
        assert read.structured_content["contents"][0]["text"] == "the notes"
        several = await _call(manager, "read_mcp_resource", {"server": "res", "uri": "file:///dir"})
        assert [b["text"] for b in several.content] == ["file:///dir/a:", "A", "file:///dir/b:", "B"]
        empty = await _call(manager, "read_mcp_resource", {"server": "res", "uri": "file:///none"})
        assert empty.content == [{"type": "text", "text": "Resource file:///none is empty."}]
        with pytest.raises(McpError, match=r'^MCP server "plain" has no resources\. Servers with resources: res$'):
            await _call(manager, "read_mcp_resource", {"server": "plain", "uri": "x"})
        with pytest.raises(McpError, match=r"^cursor can only be used when a server is specified$"):
            await _call(manager, "list_mcp_resources", {"cursor": "2"})
    finally:
        await manager.close()


async def test_no_resource_tools_without_a_server_offering_resources(agent_dir: Path, project: Path) -> None:
    manager = _manager(agent_dir, project, {"plain": stdio_entry(exposure="direct")})
    manager.start()
    try:
        await manager.wait_ready(timeout=10)
        assert not [t for t, _ in manager.all_tools() if t.name in NAMES]
    finally:
        await manager.close()
