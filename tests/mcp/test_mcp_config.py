"""mcp.json loading: pi 1.6's format, user and project files, overrides, one line per bad entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_cli.mcp import config_edit
from pi_cli.mcp.config import load_mcp_config, mcp_namespace
from pi_cli.mcp.probe import has_mcp_config, project_config_path
from pi_cli.mcp.values import McpValueError, resolve_map, resolve_value

from .conftest import write_config


def test_user_file_entries_and_defaults(agent_dir: Path, project: Path) -> None:
    write_config(
        agent_dir / "mcp.json",
        {
            "fs": {"command": "npx", "args": ["-y", "srv"], "env": {"A": "1"}},
            "docs": {"url": "https://example.com/mcp", "headers": {"X": "y"}, "timeout": 5, "exposure": "direct"},
        },
    )
    cfg = load_mcp_config(agent_dir, project, trusted=False)
    assert cfg.errors == []
    fs, docs = cfg.servers["fs"], cfg.servers["docs"]
    assert (fs.transport, fs.args, fs.env, fs.timeout, fs.exposure, fs.enabled) == (
        "stdio",
        ("-y", "srv"),
        {"A": "1"},
        60.0,
        "deferred",
        True,
    )
    assert (docs.transport, docs.timeout, docs.exposure) == ("http", 5.0, "direct")


def test_invalid_entries_are_reported_in_one_line_and_skipped(agent_dir: Path, project: Path) -> None:
    path = write_config(
        agent_dir / "mcp.json",
        {
            "good": {"command": "x"},
            "noway": {"args": ["a"]},
            "badargs": {"command": "x", "args": "a b"},
            "sse": {"type": "sse", "url": "http://h/sse"},
            "bad name": {"command": "x"},
            "badexp": {"command": "x", "exposure": "sometimes"},
            "secret": {"command": "x", "env": {"TOKEN": 12345}},
        },
    )
    cfg = load_mcp_config(agent_dir, project, trusted=False)
    assert list(cfg.servers) == ["good"]
    assert len(cfg.errors) == 6
    for line in cfg.errors:
        assert "\n" not in line and line.startswith(f"{path}: server ")
    text = "\n".join(cfg.errors)
    assert 'server "badargs": args: must be a list' in text
    assert 'server "noway": command:' in text
    assert 'server "sse": type: "sse" is not supported' in text
    assert 'server "badexp": exposure:' in text
    assert 'server "secret": env.TOKEN: must be a string' in text
    assert "12345" not in text


def test_broken_json_is_one_line(agent_dir: Path, project: Path) -> None:
    (agent_dir / "mcp.json").write_text('{"mcpServers": {')
    cfg = load_mcp_config(agent_dir, project, trusted=False)
    assert cfg.servers == {} and len(cfg.errors) == 1 and "invalid JSON at line 1" in cfg.errors[0]


def test_project_file_needs_trust_and_overrides_only_enabled_and_exposure(agent_dir: Path, project: Path) -> None:
    write_config(agent_dir / "mcp.json", {"tools": {"command": "x", "env": {"K": "v"}}})
    write_config(
        project_config_path(project),
        {"tools": {"enabled": False, "exposure": "direct"}, "own": {"command": "y"}, "bad": {"timeout": 3}},
    )
    untrusted = load_mcp_config(agent_dir, project, trusted=False)
    assert list(untrusted.servers) == ["tools"] and untrusted.servers["tools"].enabled
    assert not has_mcp_config(agent_dir.parent / "nowhere", project, trusted=False)
    assert has_mcp_config(agent_dir.parent / "nowhere", project, trusted=True)
    trusted = load_mcp_config(agent_dir, project, trusted=True)
    tools = trusted.servers["tools"]
    assert (tools.enabled, tools.exposure, tools.env, tools.command) == (False, "direct", {"K": "v"}, "x")
    assert trusted.servers["own"].scope == "project"
    assert trusted.errors == [
        f'{project_config_path(project)}: server "bad": command: needs "command" or "url", '
        "or a user-level server to override"
    ]
    write_config(project_config_path(project), {"tools": {"enabled": False, "env": {"K": "other"}}})
    again = load_mcp_config(agent_dir, project, trusted=True)
    assert again.servers["tools"].enabled and again.servers["tools"].env == {"K": "v"}
    assert again.errors == [
        f'{project_config_path(project)}: server "tools": env: an override can only set enabled, exposure, toolExposure'
    ]


def test_names_and_namespace_clash(agent_dir: Path, project: Path) -> None:
    write_config(agent_dir / "mcp.json", {"dev-radius": {"command": "x"}, "dev_radius": {"command": "y"}})
    cfg = load_mcp_config(agent_dir, project, trusted=False)
    assert list(cfg.servers) == ["dev-radius"] and "conflicts" in cfg.errors[0]
    assert mcp_namespace("my.server-1") == "my_server_1"


def test_tool_exposure_patterns(agent_dir: Path, project: Path) -> None:
    write_config(
        agent_dir / "mcp.json",
        {"gh": {"command": "x", "exposure": "hidden", "toolExposure": {"search_code": "direct", "get_*": "deferred"}}},
    )
    gh = load_mcp_config(agent_dir, project, trusted=False).servers["gh"]
    assert [gh.exposure_of(t) for t in ("search_code", "get_issue", "delete_repo")] == ["direct", "deferred", "hidden"]


def test_values_templates_commands_and_missing_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_TOKEN", "s3cret")
    assert resolve_value("Bearer ${MCP_TOKEN}", "x") == "Bearer s3cret"
    assert resolve_value("$MCP_TOKEN-$$", "x") == "s3cret-$"
    assert resolve_value("!echo from-command", "x") == "from-command"
    with pytest.raises(McpValueError) as err:
        resolve_map({"Authorization": "Bearer ${MCP_MISSING}"}, "docs", "headers")
    assert str(err.value) == 'MCP server "docs" headers "Authorization": environment variable MCP_MISSING is not set'


def test_edits_keep_other_content(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"autoEnableCodemode": False, "mcpServers": {"a": {"command": "x", "enabled": False}}}))
    assert config_edit.add_server(path, "b", {"url": "http://h/mcp"}) is False
    config_edit.update_server(path, "a", enabled=True, exposure="direct")
    data = json.loads(path.read_text())
    assert data == {
        "autoEnableCodemode": False,
        "mcpServers": {"a": {"command": "x", "exposure": "direct"}, "b": {"url": "http://h/mcp"}},
    }
    assert config_edit.remove_server(path, "a") is True
    assert config_edit.remove_server(path, "a") is False
    config_edit.update_server(path, "c", enabled=False, create_override=True)
    assert json.loads(path.read_text())["mcpServers"]["c"] == {"enabled": False}


def test_result_mapping_and_long_text() -> None:
    from pi_cli.mcp.results import MAX_TEXT_CHARS, map_call_result

    result = map_call_result(
        "s",
        "t",
        {
            "content": [
                {"type": "text", "text": "x" * (MAX_TEXT_CHARS + 500)},
                {"type": "resource", "resource": {"uri": "file:///a", "text": "inline"}},
                {"type": "resource_link", "uri": "file:///b", "name": "b"},
                {"type": "audio", "data": "AA==", "mimeType": "audio/wav"},
            ]
        },
    )
    first = result.content[0]["text"]
    assert "…500 chars truncated…" in first and len(first) < MAX_TEXT_CHARS + 200
    saved = first.rsplit("[Full output: ", 1)[1].rstrip("]")
    assert Path(saved).read_text() == "x" * (MAX_TEXT_CHARS + 500)
    Path(saved).unlink()
    assert [b["text"] for b in result.content[1:]] == [
        "inline",
        '[Resource file:///b "b"]',  # pi 1.6.0's naming
        "[audio audio/wav omitted]",  # pi 1.6.0's placeholder
    ]


def test_blob_resources_reach_the_model_as_text_or_a_saved_file() -> None:
    """A ``text/*`` blob is its decoded text (pi; pi_cli once sent ``[binary resource: …]``), an
    image blob an image."""
    import base64

    from pi_cli.mcp.results import map_call_result

    png = b"\x89PNG\r\n\x1a\n" + bytes(range(40))
    result = map_call_result(
        "s",
        "t",
        {
            "content": [
                {
                    "type": "resource",
                    "resource": {
                        "uri": "test://plain",
                        "mimeType": "text/plain",
                        "blob": base64.b64encode(b"h\xc3\xa9llo").decode(),
                    },
                },
                {
                    "type": "resource",
                    "resource": {"uri": "test://pic", "mimeType": "image/png", "blob": base64.b64encode(png).decode()},
                },
            ]
        },
    )
    assert result.content[0]["text"] == "héllo"
    # pi 1.6.0 gives an image blob to the model as an image; tests/mcp/test_mcp_blocks_pi16.py
    # checks the other kinds (saved files named with their size) against pi's own conversion.
    assert result.content[1] == {"type": "image", "data": base64.b64encode(png).decode(), "mimeType": "image/png"}


def test_resource_links_are_named_as_pi16_names_them() -> None:
    from pi_cli.mcp.results import resource_link_text

    link = {"type": "resource_link", "uri": "file:///r.md", "name": "r", "title": "Readme",
            "mimeType": "text/markdown", "size": 2048, "description": "The project readme"}  # fmt: skip
    assert resource_link_text(link) == '[Resource file:///r.md "Readme" (text/markdown, 2.0KB): The project readme]'
    assert resource_link_text({"uri": "x://a", "name": "a", "size": 0}) == '[Resource x://a "a" (0B)]'
    readable = resource_link_text({"uri": "x://a", "name": "a"}, "res")
    assert readable == '[Resource x://a "a". Read it with read_mcp_resource (server "res")]'
