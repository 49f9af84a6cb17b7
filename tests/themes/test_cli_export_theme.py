"""``pi --export FILE`` colours the page with the theme a session here would use (as ``/export``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_cli.cli import export_session
from pi_cli.cli_args import parse_args
from pi_cli.store.manager import SessionManager


def _session_file(tmp_path: Path) -> Path:
    manager = SessionManager.create("/proj", tmp_path / "sessions", fsync=False)
    manager.append_message({"role": "user", "content": "hello", "timestamp": 1})
    manager.append_message(
        {"role": "assistant", "content": [{"type": "text", "text": "hi"}], "stopReason": "stop", "timestamp": 2}
    )
    assert manager.session_file is not None
    return Path(manager.session_file)


def _page_root_css(page: str) -> str:
    """The ``:root{...}`` the export writes for the theme (empty when none)."""
    style = page.split("<style>", 1)[1].split("</style>", 1)[0]
    return style[style.rfind(":root{") :] if ":root{" in style else ""


@pytest.fixture
def agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "agent"
    directory.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(directory))
    monkeypatch.chdir(tmp_path)
    return directory


def test_the_light_theme_setting_gives_a_light_page(tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "settings.json").write_text(json.dumps({"theme": "light"}))
    out = tmp_path / "out.html"
    assert export_session(parse_args(["--export", str(_session_file(tmp_path)), str(out)])) == 0
    css = _page_root_css(out.read_text(encoding="utf-8"))
    assert "--page-bg:#f7f7f9" in css  # the built-in light theme's export.pageBg


def test_a_custom_theme_file_and_use_theme_are_honoured(tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "themes").mkdir()
    theme = {"name": "paper", "colors": {"text": "#111111"}, "export": {"pageBg": "#fdf6e3", "cardBg": "#eee8d5"}}
    (agent_dir / "themes" / "paper.json").write_text(json.dumps(theme))
    (agent_dir / "settings.json").write_text(json.dumps({"theme": "paper"}))
    out = tmp_path / "paper.html"
    assert export_session(parse_args(["--export", str(_session_file(tmp_path)), str(out)])) == 0
    assert "--page-bg:#fdf6e3" in _page_root_css(out.read_text(encoding="utf-8"))
    # --use-theme wins over the setting, as in a session.
    dark = tmp_path / "dark.html"
    args = parse_args(["--use-theme", "dark", "--export", str(_session_file(tmp_path)), str(dark)])
    assert export_session(args) == 0
    assert "#fdf6e3" not in _page_root_css(dark.read_text(encoding="utf-8"))
