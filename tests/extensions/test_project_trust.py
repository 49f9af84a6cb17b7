"""``project_trust`` (pi 1.6.0): the user's and ``-e`` extensions decide or defer project trust at
start-up, before project extensions load."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_cli import cli
from pi_cli.cli_args import parse_args
from pi_cli.extensions import ExtensionRunner
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.extensions.project_trust import TrustContext, TrustUI, decide_at_startup, emit_project_trust
from pi_cli.permissions import trust

from .test_print_e2e import write

# A user extension whose answer comes from $TRUST_ANSWER (JSON); it logs each event it sees.
DECIDER = """
import json, os
from pathlib import Path

def register(pi):
    def decide(event, ctx):
        with Path(os.environ["TRUST_LOG"]).open("a") as f:
            f.write(json.dumps({"cwd": event["cwd"], "mode": ctx.mode, "has_ui": ctx.has_ui}) + "\\n")
        return json.loads(os.environ["TRUST_ANSWER"])
    pi.on("project_trust", decide)
"""
PROJECT_EXT = """
def register(pi):
    pi.register_command("from-project", lambda args, ctx: None, "a project command")
    pi.on("project_trust", lambda event, ctx: {"trusted": "no"})  # loads after trust: never asked
"""


@pytest.fixture(autouse=True)
def _fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.setenv("TRUST_LOG", str(tmp_path / "trust.log"))
    trust.forget_decisions()
    yield
    trust.forget_decisions()


def project(tmp_path: Path) -> Path:
    """A folder with a project extension (a protected resource)."""
    root = tmp_path / "proj"
    write(root / ".pi" / "extensions" / "proj_ext.py", PROJECT_EXT)
    return root


def decider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: Any) -> None:
    write(tmp_path / "agent" / "extensions" / "decider.py", DECIDER)
    monkeypatch.setenv("TRUST_ANSWER", json.dumps(answer))


def seen(tmp_path: Path) -> list[dict[str, Any]]:
    log = tmp_path / "trust.log"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def start(root: Path, argv: list[str], mode: str = "print") -> tuple[Any, list[str]] | None:
    """What ``pi`` does at start-up: decide trust, then load every extension."""
    args = parse_args(argv)
    pre = cli.decide_project_trust(args, mode, root)
    from pi_cli.config.settings import load_settings
    from pi_cli.session.assembly.extensions import load_extensions

    settings = load_settings(root, project_trusted=trust.is_project_trusted(root))[0]
    return load_extensions(root, args.extensions, args.extension_flags, settings, pre=pre)


def test_a_yes_trusts_the_project_for_this_run_and_project_extensions_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path)
    decider(tmp_path, monkeypatch, {"trusted": "yes"})
    loaded = start(root, [])
    assert loaded is not None
    runner, errors = loaded
    assert errors == []
    assert seen(tmp_path) == [{"cwd": str(root), "mode": "print", "has_ui": False}]
    assert trust.is_project_trusted(root) is True
    assert "from-project" in runner.commands  # loaded after the decision, into the same runner
    assert [Path(s).name for s in runner.sources] == ["decider.py", "proj_ext.py"]
    assert not (tmp_path / "agent" / "trust.json").exists()  # not remembered


def test_a_remembered_no_is_saved_and_project_extensions_stay_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path)
    (tmp_path / "agent").mkdir(parents=True, exist_ok=True)
    (tmp_path / "agent" / "settings.json").write_text(json.dumps({"defaultProjectTrust": "always"}))
    decider(tmp_path, monkeypatch, {"trusted": "no", "remember": True})
    loaded = start(root, [])
    assert loaded is not None and "from-project" not in loaded[0].commands
    assert trust.is_project_trusted(root) is False  # the extension wins over defaultProjectTrust
    from pi_cli.permissions.trust_store import TrustStore

    assert TrustStore(tmp_path / "agent").get(root) is False


def test_undecided_falls_back_to_the_normal_resolution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path)
    decider(tmp_path, monkeypatch, {"trusted": "undecided"})
    loaded = start(root, [])
    assert len(seen(tmp_path)) == 1
    assert trust.is_project_trusted(root) is False  # print mode, defaultProjectTrust "ask": not trusted
    assert loaded is not None and "from-project" not in loaded[0].commands


def test_not_emitted_with_a_flag_or_without_protected_resources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path)
    decider(tmp_path, monkeypatch, {"trusted": "no"})
    loaded = start(root, ["--approve"])
    assert seen(tmp_path) == [] and loaded is not None and "from-project" in loaded[0].commands
    trust.forget_decisions()
    plain = tmp_path / "plain"
    plain.mkdir()
    start(plain, [])
    assert seen(tmp_path) == []


def test_cli_extensions_take_part_and_interactive_mode_names_the_front_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path)
    ext = write(tmp_path / "cli_ext" / "decider.py", DECIDER)
    monkeypatch.setenv("TRUST_ANSWER", json.dumps({"trusted": "yes"}))
    monkeypatch.setattr(cli, "_stdin_is_tty", lambda: False)  # no terminal: no dialogs
    loaded = start(root, ["-e", str(ext), "--inline"], mode="interactive")
    assert seen(tmp_path) == [{"cwd": str(root), "mode": "inline", "has_ui": False}]
    assert loaded is not None and "from-project" in loaded[0].commands


def test_a_failing_handler_is_a_warning_and_the_next_one_decides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path)
    write(
        tmp_path / "agent" / "extensions" / "a_broken.py",
        "def register(pi):\n    pi.on('project_trust', lambda e, c: 1 / 0)\n",
    )
    write(
        tmp_path / "agent" / "extensions" / "b_silent.py",
        "def register(pi):\n    pi.on('project_trust', lambda e, c: None)\n",
    )
    decider(tmp_path, monkeypatch, {"trusted": "yes"})
    loaded = start(root, [])
    assert loaded is not None
    _runner, errors = loaded
    assert len(errors) == 2
    assert errors[0].startswith('Extension "') and "a_broken.py" in errors[0] and "ZeroDivisionError" in errors[0]
    assert "b_silent.py" in errors[1] and '"trusted": "yes" | "no" | "undecided"' in errors[1]
    assert trust.is_project_trusted(root) is True


async def test_first_decision_wins_and_the_context_is_pi_s_trust_context(tmp_path: Path) -> None:
    runner = ExtensionRunner(str(tmp_path))
    api = ExtensionAPI(runner, "x.py")
    calls: list[str] = []

    async def undecided(event: dict[str, Any], ctx: TrustContext) -> dict[str, Any]:
        calls.append("undecided")
        assert await ctx.ui.confirm("Trust?", event["cwd"]) is False  # no UI: confirm is False
        assert await ctx.ui.select("Pick", ["a"]) is None and await ctx.ui.input("Name") is None
        return {"trusted": "undecided"}

    api.on("project_trust", undecided)
    api.on("project_trust", lambda event, ctx: calls.append("no") or {"trusted": "no"})
    api.on("project_trust", lambda event, ctx: calls.append("late") or {"trusted": "yes"})
    decision, errors = await emit_project_trust(runner, TrustContext(str(tmp_path), "rpc", TrustUI()))
    assert decision is not None and decision.trusted is False and decision.remember is False
    assert calls == ["undecided", "no"] and errors == []


def test_terminal_dialogs_answer_handlers(tmp_path: Path) -> None:
    runner = ExtensionRunner(str(tmp_path))
    api = ExtensionAPI(runner, "x.py")
    asked: list[tuple[str, list[str]]] = []

    async def select(title: str, options: list[str]) -> str | None:
        asked.append((title, options))
        return "Yes"

    async def ask(title: str, placeholder: str | None) -> str | None:
        return f"typed for {title}"

    async def handler(event: dict[str, Any], ctx: TrustContext) -> dict[str, Any]:
        assert ctx.has_ui and ctx.mode == "tui"
        assert await ctx.ui.input("Reason") == "typed for Reason"
        return {"trusted": "yes" if await ctx.ui.confirm("Trust project?", event["cwd"]) else "no", "remember": True}

    api.on("project_trust", handler)
    root = tmp_path / "proj"
    root.mkdir()
    assert decide_at_startup(runner, root, "tui", select, ask) == []
    assert asked == [(f"Trust project?\n{root}", ["Yes", "No"])]
    assert trust.is_project_trusted(root) is True
    from pi_cli.permissions.trust_store import TrustStore

    assert TrustStore(tmp_path / "agent").get(root) is True


def test_end_to_end_a_global_extension_trusts_the_project_in_print_mode(pi: Any) -> None:
    """``pi -p`` in a project with its own extension: the user's extension answers ``yes``, so
    the project extension loads and its ``input`` handler answers the prompt."""
    write(pi.agent_dir / "extensions" / "decider.py", DECIDER)
    pi.env["TRUST_ANSWER"] = json.dumps({"trusted": "yes"})
    pi.env["TRUST_LOG"] = str(pi.root / "trust.log")
    write(pi.cwd / ".pi" / "extensions" / "proj_ext.py", PROJECT_EXT + HANDLED)
    pi.server.add_turns([{"text": "model answer"}])
    done = pi.run("-p", "hello")
    assert done.returncode == 0, done.stderr
    assert "project extension saw: hello" in done.stderr
    logged = [json.loads(line) for line in (pi.root / "trust.log").read_text().splitlines()]
    assert logged == [{"cwd": str(pi.cwd.resolve()), "mode": "print", "has_ui": False}]


HANDLED = """
def _seen(event, ctx):
    ctx.ui.notify("project extension saw: " + event["text"])

_register = register

def register(pi):
    _register(pi)
    pi.on("input", _seen)
"""


def test_ctx_is_project_trusted_follows_the_decision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pi's ``ctx.is_project_trusted()``: what the trust store decided for this run (here an
    extension's ``yes``), asked again each time (``/trust`` may change it later)."""
    root = project(tmp_path)
    decider(tmp_path, monkeypatch, {"trusted": "yes"})
    loaded = start(root, [])
    assert loaded is not None
    runner = loaded[0]
    assert runner.context().is_project_trusted() is True
    trust.forget_decisions()
    monkeypatch.setenv("TRUST_ANSWER", json.dumps({"trusted": "no"}))
    other = start(root, [])
    assert other is not None and other[0].context().is_project_trusted() is False
    assert ExtensionRunner(str(root), {}).context().is_project_trusted() is False  # never decided: not trusted
