"""Layering rules, checked in fresh interpreters.

* The core layers (ai, agent, tools, session) never pull in a UI toolkit.
* ``pi --version`` / ``--help`` import nothing heavy (no textual, httpx, pydantic).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

UI_TOOLKITS = ("textual", "prompt_toolkit")
HEAVY = ("textual", "prompt_toolkit", "httpx", "pydantic", "rich")


def _loaded_after(code: str) -> set[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))\n"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "module",
    [
        "pi_cli.ai",
        "pi_cli.ai.stream",
        "pi_cli.ai.providers.openai_completions",
        "pi_cli.agent.agent",
        "pi_cli.tools",
        "pi_cli.session.agent_session",
        "pi_cli.session.assembly",
        "pi_cli.modes.print_mode",
        "pi_cli.modes.json_mode",
        "pi_cli.modes.rpc.server",
    ],
)
def test_core_layers_do_not_import_ui_toolkits(module: str) -> None:
    loaded = _loaded_after(f"import {module}")
    assert not loaded & set(UI_TOOLKITS), f"{module} imported {loaded & set(UI_TOOLKITS)}"


def test_building_a_session_imports_no_ui_toolkit(tmp_path: object) -> None:
    code = (
        "import os, pathlib\n"
        f"os.environ['PI_CODING_AGENT_DIR'] = {str(tmp_path)!r}\n"
        "os.environ['PI_OFFLINE'] = '1'\n"
        "from pi_cli.session.assembly import create_agent_session\n"
        "from pi_cli.session.assembly import SessionOptions\n"
        f"create_agent_session(SessionOptions(cwd=pathlib.Path({str(tmp_path)!r}), mode='print', no_session=True))\n"
    )
    loaded = _loaded_after(code)
    assert not loaded & set(UI_TOOLKITS)


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_fast_path_imports_nothing_heavy(flag: str) -> None:
    code = "import contextlib, io\nfrom pi_cli.cli import main\nwith contextlib.redirect_stdout(io.StringIO()):\n"
    code += f"    main([{flag!r}])"
    loaded = _loaded_after(code)
    assert not loaded & set(HEAVY), loaded & set(HEAVY)
    assert "pi_cli" in loaded


def _loaded_modules_after(code: str) -> set[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_mcp_sits_below_session_and_modes() -> None:
    loaded = _loaded_modules_after("import pi_cli.mcp.runtime, pi_cli.mcp.cli, pi_cli.mcp.status")
    above = {m for m in loaded if m.startswith(("pi_cli.session", "pi_cli.modes", "pi_cli.extensions"))}
    assert not above, above


def test_no_mcp_config_imports_nothing_of_mcp(tmp_path: object) -> None:
    """Without an mcp.json, start-up only stats the files: no client, no manager, no runtime, not
    even the config parser (its dataclasses are ~1 ms of an RPC start)."""
    code = (
        "import os, pathlib, types\n"
        f"os.environ['PI_CODING_AGENT_DIR'] = {str(tmp_path)!r}\n"
        "from pi_cli.session.assembly import SessionOptions, create_agent_session\n"
        f"cwd = pathlib.Path({str(tmp_path)!r})\n"
        "session = create_agent_session(SessionOptions(cwd=cwd, mode='print', no_session=True))\n"
        "assert session.mcp is None\n"
    )
    loaded = {m for m in _loaded_modules_after(code) if m.startswith("pi_cli.mcp")}
    assert loaded <= {"pi_cli.mcp", "pi_cli.mcp.probe"}, loaded


def test_the_tui_leaves_dialogs_and_compaction_until_a_command_needs_them() -> None:
    """The first frame needs neither: pickers, approval and session screens and the branch
    summariser are imported by the command or dialog that shows them (start-up time, issue 15)."""
    loaded = _loaded_modules_after("import pi_cli.modes.interactive.app")
    later = {m for m in loaded if m.startswith(("pi_cli.modes.interactive.screens", "pi_cli.compaction"))}
    assert not later, sorted(later)


def test_a_new_session_and_the_tui_leave_the_shell_reader_landlock_and_renderers_for_later(tmp_path: object) -> None:
    """A session with the sandbox off and no bash call yet, and the TUI before any answer, load
    neither the shell reader behind the approval rules, the Landlock side of the sandbox, the
    Markdown renderer nor the PNG decoder: each is ~0.3 ms a module of a 0.3 s start (issue 29)."""
    code = (
        "import os, pathlib\n"
        f"os.environ['PI_CODING_AGENT_DIR'] = {str(tmp_path)!r}\n"
        "from pi_cli.session.assembly import SessionOptions, create_agent_session\n"
        f"cwd = pathlib.Path({str(tmp_path)!r})\n"
        "session = create_agent_session(SessionOptions(cwd=cwd, mode='interactive', no_session=True))\n"
        "assert session.permissions is not None and session.sandbox is not None\n"
        "import pi_cli.modes.interactive.app\n"
    )
    loaded = _loaded_modules_after(code)
    later = (
        "pi_cli.permissions.shell",
        "pi_cli.permissions.suggest",
        "pi_cli.sandbox.landlock",
        "pi_cli.sandbox.confinement",
        "pi_cli.sandbox.proxy",
        "pi_cli.modes.interactive.markdown.pieces",
        "pi_cli.modes.interactive.markdown.code",
        "pi_cli.tools.files.png",
    )
    assert not {m for m in loaded if m.startswith(later)}, sorted(m for m in loaded if m.startswith(later))
