"""/share: the exported page goes to ``gh gist create``; without gh, one clear line."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pi_cli.ai.providers.faux import faux_assistant, faux_text, register_faux_provider
from pi_cli.modes.share import NO_GH, share_session
from pi_cli.session.assembly import build_session
from pi_cli.session.store_bridge import SessionStoreBridge
from pi_cli.store.manager import SessionManager

FAKE_GH = """#!/bin/sh
# records its arguments and the uploaded page, answers as gh does
echo "$@" > "{log}"
for last; do :; done
cp "$last" "{page}"
echo "- Creating gist pi-session.html" >&2
echo "https://gist.github.com/someone/0123abcd"
"""


async def _session(tmp_path: Path) -> object:
    faux = register_faux_provider(models=["faux-1"])
    work = tmp_path / "work"
    work.mkdir()
    store = SessionStoreBridge(SessionManager.create(work, tmp_path / "sessions", fsync=False), work)
    session = build_session(cwd=work, store=store, system_prompt="t", model=faux.model())
    faux.set_responses([faux_assistant([faux_text("an answer worth sharing")])])
    await session.prompt("hello")
    faux.unregister()
    return session


async def test_share_uploads_the_page_and_returns_the_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    log, page = tmp_path / "args.txt", tmp_path / "page.html"
    gh.write_text(FAKE_GH.format(log=log, page=page))
    gh.chmod(gh.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    session = await _session(tmp_path)
    assert await share_session(session) == "https://gist.github.com/someone/0123abcd"  # type: ignore[arg-type]
    args = log.read_text().split()
    assert args[:2] == ["gist", "create"] and "--public" not in args  # secret by default
    assert "an answer worth sharing" in page.read_text()


async def test_share_without_gh_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    session = await _session(tmp_path)
    with pytest.raises(ValueError, match="needs the GitHub CLI") as raised:
        await share_session(session)  # type: ignore[arg-type]
    assert str(raised.value) == NO_GH


async def test_a_failing_gh_reports_its_first_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text("#!/bin/sh\necho 'To get started with GitHub CLI, please run:  gh auth login' >&2\nexit 4\n")
    gh.chmod(gh.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    session = await _session(tmp_path)
    with pytest.raises(ValueError, match="gh gist create failed: To get started with GitHub CLI"):
        await share_session(session)  # type: ignore[arg-type]
