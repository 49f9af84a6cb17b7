"""HTML export: self-contained, everything escaped, tool calls shown, secrets redacted."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_cli.store.export_html import export_file_to_html, export_html, render_html
from pi_cli.store.manager import SessionManager

from .helpers import assistant, tool_result, user

EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def session(tmp_path: Path) -> SessionManager:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    sm.append_session_info(EVIL)
    sm.append_message(user(EVIL))
    sm.append_message(assistant(EVIL, calls=[("c1", "bash", {"command": f"echo '{EVIL}'"})]))
    sm.append_message(tool_result("c1", f"out {EVIL}"))
    sm.append_message(assistant("final & done"))
    return sm


def test_everything_is_escaped_and_tool_calls_present(tmp_path: Path) -> None:
    page = render_html(session(tmp_path), system_prompt=f"sys {EVIL}", tools=[{"name": "bash", "description": EVIL}])
    assert "<script" not in page.lower()
    assert "<img src=x" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert "tool call · bash" in page and "out &lt;script&gt;" in page
    assert "final &amp; done" in page
    assert "http://" not in page and "https://" not in page  # no external resources


def test_secrets_from_env_and_arguments_are_redacted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-abcdef123456")
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    sm.append_message(user("my key is sk-live-abcdef123456 and token hunter22x"))
    sm.append_message(assistant("noted"))
    page = render_html(sm, secrets=["hunter22x"])
    assert "sk-live-abcdef123456" not in page and "hunter22x" not in page
    assert page.count("[redacted]") == 2


def test_invalid_image_is_dropped(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    bad = {"type": "image", "data": '"><script>', "mimeType": "image/png"}
    good = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    sm.append_message({"role": "user", "content": [bad, good], "timestamp": 1})
    sm.append_message(assistant("seen"))
    page = render_html(sm)
    assert "<script>" not in page and "image omitted" in page
    assert 'src="data:image/png;base64,iVBORw0KGgo="' in page


def test_export_writes_default_name_and_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    sm = session(tmp_path)
    path = export_html(sm)
    assert sm.session_file is not None
    assert path == Path(f"pi-session-{sm.session_file.stem}.html") and path.read_text().startswith("<!DOCTYPE html>")
    with pytest.raises(ValueError, match="Cannot export in-memory session to HTML"):
        export_html(SessionManager.in_memory("/p"))
    fresh = SessionManager.create("/p", tmp_path / "none", fsync=False)
    with pytest.raises(ValueError, match="Nothing to export yet - start a conversation first"):
        export_html(fresh)
    out = export_file_to_html(sm.session_file, tmp_path / "x.html")
    assert "final &amp; done" in out.read_text()
    with pytest.raises(FileNotFoundError, match="File not found"):
        export_file_to_html(tmp_path / "missing.jsonl")
