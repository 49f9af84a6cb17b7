"""The shipped example extensions, each loaded as ``example:NAME`` into a real AgentSession over
the faux provider with the real write/edit/bash tools."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from pi_cli.ai.providers.faux import faux_assistant, faux_text, faux_tool_call
from pi_cli.extensions import ExtensionRunner
from pi_cli.extensions.loader import load_path, resolve_spec
from pi_cli.extensions.ui import DialogUI


class Recorder:
    """A front end that records notices (statuses/widgets are kept by DialogUI itself)."""

    def __init__(self) -> None:
        self.notes: list[tuple[str, str]] = []

    def notify(self, text: str, level: str) -> None:
        self.notes.append((text, level))


def session_with(faux: Any, cwd: Path, example: str) -> tuple[Any, ExtensionRunner, Recorder]:
    from pi_cli.session.assembly import SessionParts, build_session
    from pi_cli.tools import create_all_tools

    tools = create_all_tools(str(cwd))
    runner = ExtensionRunner(str(cwd))
    path = resolve_spec(f"example:{example}", cwd)
    assert isinstance(path, Path)
    assert load_path(runner, path) is None
    session = build_session(
        cwd=cwd, parts=SessionParts(extensions=runner), system_prompt="t", model=faux.model(),
        tools=[tools[name] for name in ("read", "write", "edit", "bash")],
    )  # fmt: skip
    recorder = Recorder()
    runner.ui = DialogUI(None, recorder.notify)
    runner.on_error = lambda record: recorder.notify(str(record), "error")
    return session, runner, recorder


def tool_results(session: Any) -> list[tuple[str, bool]]:
    out = []
    for message in session.messages:
        if message.get("role") == "toolResult":
            text = "".join(b.get("text", "") for b in message.get("content") or [])
            out.append((text, bool(message.get("isError"))))
    return out


# --- protected_paths --------------------------------------------------------------------------


async def test_protected_paths_blocks_writes_and_tells_the_model(faux: Any, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".env").write_text("SECRET=1\n")
    faux.set_responses(
        [
            faux_assistant(
                [
                    faux_tool_call("write", {"path": ".env", "content": "SECRET=2\n"}),
                    faux_tool_call("edit", {"path": ".git/config", "edits": [{"oldText": "a", "newText": "b"}]}),
                    faux_tool_call("bash", {"command": "echo LEAK=1 >> .env.local"}),
                    faux_tool_call("bash", {"command": "cat .env"}),
                    faux_tool_call("write", {"path": "notes.txt", "content": "fine\n"}),
                ]
            ),
            faux_assistant([faux_text("done")]),
        ]
    )
    session, _runner, recorder = session_with(faux, tmp_path, "protected_paths")
    await session.prompt("go")
    results = tool_results(session)
    assert len(results) == 5
    for text, is_error in results[:3]:
        assert is_error and "is protected by the protected_paths extension" in text
    assert "'.env'" in results[0][0] and "'.git/config'" in results[1][0] and "'.env.local'" in results[2][0]
    assert results[3] == ("SECRET=1\n", False) or "SECRET=1" in results[3][0]  # reading stays allowed
    assert not results[4][1]
    assert (tmp_path / ".env").read_text() == "SECRET=1\n"
    assert not (tmp_path / ".env.local").exists()
    assert (tmp_path / "notes.txt").read_text() == "fine\n"
    assert recorder.notes == []  # no handler errors


def test_protected_paths_bash_recognition() -> None:
    from pi_cli.extensions.examples.protected_paths import bash_target, is_protected

    writes = ["echo x > .env", "cat a 2> .env", "sudo tee .env.prod", "rm -rf .git", "sed -i s/a/b/ .env",
              "FOO=1 cp x .git/config", "mv .env old", "dd if=x of=.git/HEAD", "echo a>.env"]  # fmt: skip
    for command in writes:
        assert bash_target(command) is not None, command
    reads = ["cat .env", "grep KEY .env | wc -l", "git commit -m x", "ls .git", "cp .env /tmp/copy", "sed s/a/b/ .env",
             "touch src/app.py", "echo 2>&1 ok"]  # fmt: skip
    for command in reads:
        assert bash_target(command) is None, command
    assert is_protected("a/b/.git/hooks/pre-commit") and not is_protected(".gitignore")


# --- stats -------------------------------------------------------------------------------------


async def test_stats_status_and_command(faux: Any, tmp_path: Path) -> None:
    from pi_cli.extensions.examples.stats import compact, status_text, totals

    faux.set_responses(
        [
            faux_assistant([faux_tool_call("bash", {"command": "echo hi"})]),
            faux_assistant([faux_text("first answer")]),
            faux_assistant([faux_text("second answer")]),
        ]
    )
    session, runner, recorder = session_with(faux, tmp_path, "stats")
    await session.prompt("one")
    ui: Any = runner.ui
    first = totals(session.messages)
    assert first["turns"] == 2 and first["prompts"] == 1 and first["tokens"] > 0
    assert ui.statuses["stats"] == status_text(first)  # refreshed at turn_end / agent_end
    await session.prompt("two")
    second = totals(session.messages)
    assert second["tokens"] > first["tokens"]
    assert ui.statuses["stats"] == status_text(second) != status_text(first)
    await session.prompt("/stats")
    text, level = recorder.notes[-1]
    assert level == "info" and text.startswith("Session stats: 3 turns, 2 prompts")
    assert f"total {compact(second['tokens'])}" in text
    assert [compact(n) for n in (950, 12_300, 4_500_000, 2000)] == ["950", "12.3k", "4.5M", "2k"]


# --- git_checkpoint ----------------------------------------------------------------------------


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


async def test_git_checkpoint_stores_refs_without_touching_the_tree(faux: Any, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "app.py").write_text("v = 1\n")
    (repo / "staged.py").write_text("s = 1\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "init")
    (repo / "staged.py").write_text("s = 2\n")
    git(repo, "add", "staged.py")  # a staged change must stay staged
    faux.set_responses(
        [
            faux_assistant([faux_tool_call("write", {"path": "app.py", "content": "v = 2\n"})]),
            faux_assistant([faux_text("edited")]),
            faux_assistant([faux_text("nothing changed")]),
        ]
    )
    session, _runner, recorder = session_with(faux, repo, "git_checkpoint")
    await session.prompt("edit it")
    status_before = git(repo, "status", "--porcelain")
    refs = git(repo, "for-each-ref", "--format=%(refname)", "refs/pi-checkpoints").split()
    assert len(refs) == 1  # turn 1 changed app.py; turn 2 changed nothing, so no second checkpoint
    assert git(repo, "show", f"{refs[0]}:app.py") == "v = 2\n"
    assert git(repo, "show", f"{refs[0]}:staged.py") == "s = 2\n"
    assert status_before == " M app.py\nM  staged.py\n"  # index and tree as the turn left them
    assert git(repo, "stash", "list") == ""
    assert (repo / "app.py").read_text() == "v = 2\n"

    await session.prompt("again")  # no change since the last checkpoint: nothing new
    assert git(repo, "for-each-ref", "--format=%(refname)", "refs/pi-checkpoints").split() == refs
    await session.prompt("/checkpoints")
    text, _level = recorder.notes[-1]
    assert text.startswith("1 checkpoint(s), newest first") and refs[0].removeprefix("refs/pi-checkpoints/") in text
    assert [level for _, level in recorder.notes] == ["info"]  # no warnings or handler errors
    assert git(repo, "status", "--porcelain") == status_before


async def test_git_checkpoint_is_harmless_outside_git(faux: Any, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    faux.set_responses([faux_assistant([faux_text("hello")])])
    session, _runner, recorder = session_with(faux, plain, "git_checkpoint")
    await session.prompt("hi")
    await session.prompt("/checkpoints")
    assert recorder.notes == [("No checkpoints: not a git repository.", "info")]
    assert not (plain / ".git").exists()
