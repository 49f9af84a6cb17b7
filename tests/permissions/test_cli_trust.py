"""Command-line side of permissions: flags, and the start-up trust decision per mode."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_cli import cli
from pi_cli.cli_args import parse_args
from pi_cli.errors import UsageError
from pi_cli.permissions import trust


@pytest.fixture(autouse=True)
def _fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    trust.forget_decisions()
    yield
    trust.forget_decisions()


def test_flags() -> None:
    assert parse_args(["--approve"]).approve is True
    assert parse_args(["-a", "-na"]).approve is False
    assert parse_args(["--no-approve", "--approve"]).approve is True
    assert parse_args([]).approve is None
    assert parse_args(["--permissions", "read-only"]).permissions == "read-only"
    with pytest.raises(UsageError, match=r'Invalid --permissions "yolo"\. Valid values: auto, ask, read-only'):
        parse_args(["--permissions", "yolo"])


def protected(tmp_path: Path) -> Path:
    (tmp_path / "proj" / ".pi" / "prompts").mkdir(parents=True)
    return tmp_path / "proj"


@pytest.mark.parametrize("mode", ["print", "json", "rpc"])
def test_non_interactive_modes_skip_protected_resources_unless_told(tmp_path: Path, mode: str) -> None:
    root = protected(tmp_path)
    cli.decide_project_trust(parse_args([]), mode, root)
    assert trust.is_project_trusted(root) is False
    trust.forget_decisions()
    cli.decide_project_trust(parse_args(["--approve"]), mode, root)
    assert trust.is_project_trusted(root) is True


def test_interactive_mode_asks_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pi_cli.modes.trust_prompt as prompt

    root = protected(tmp_path)
    asked: list[str] = []
    monkeypatch.setattr(cli, "_stdin_is_tty", lambda: True)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    monkeypatch.setattr(prompt, "choose_in_terminal", lambda title, labels: asked.append(title) or "Trust")
    cli.decide_project_trust(parse_args([]), "interactive", root)
    assert asked and trust.is_project_trusted(root) is True
    assert (tmp_path / "agent" / "trust.json").exists()
    trust.forget_decisions()
    cli.decide_project_trust(parse_args(["--no-approve"]), "interactive", root)
    assert len(asked) == 1 and trust.is_project_trusted(root) is False
