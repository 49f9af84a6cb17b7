"""HTML export: self-contained, everything escaped, tool calls shown, secrets redacted."""

from __future__ import annotations

import re
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
    # the only scripts are the page's own: the tree's JSON and the viewer
    assert page.lower().count("<script") == 2 and '<script type="application/json" id="session-data">' in page
    assert "alert(" not in page.split("<script>")[1]
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
    assert page.split("<main>")[1].split("</main>")[0].count("[redacted]") == 2  # (the tree repeats the message)


def test_invalid_image_is_dropped(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    bad = {"type": "image", "data": '"><script>', "mimeType": "image/png"}
    good = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    sm.append_message({"role": "user", "content": [bad, good], "timestamp": 1})
    sm.append_message(assistant("seen"))
    page = render_html(sm)
    assert "<script>" not in page.split("<main>")[1].split("</main>")[0] and "image omitted" in page
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


def _branched(tmp_path: Path) -> tuple[SessionManager, str, str]:
    """first → answer → (old branch: second) and (new branch: third); the leaf on the new one."""
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    sm.append_message(user("first question"))
    sm.append_message(assistant("first answer"))
    fork_point = sm.get_leaf_id()
    assert fork_point is not None
    old = sm.append_message(user("second question"))
    sm.append_message(assistant("second answer"))
    sm.branch(fork_point)
    new = sm.append_message(user("third question </script><b>x</b>"))
    sm.append_message(assistant("third answer"))
    return sm, old, new


def test_every_branch_is_in_the_page_and_the_current_one_shown(tmp_path: Path) -> None:
    import json
    import re

    sm, old, new = _branched(tmp_path)
    page = render_html(sm)
    data = json.loads(page.split('id="session-data">')[1].split("</script>")[0])
    assert data["leaf"] == sm.get_leaf_id() and len(data["entries"]) == len(sm.get_entries())
    drawn = {entry_id: html for entry_id, _, html in data["entries"]}
    assert "second answer" in "".join(drawn.values()) and "third answer" in "".join(drawn.values())
    static = page.split('<div id="entries">')[1].split("</main>")[0]
    assert "third answer" in static and "second answer" not in static  # the current branch, without script
    assert f'data-id="{new}"' in static and f'data-id="{old}"' not in static
    assert "</script><b>" not in page  # a message cannot close the page's script or add markup
    rows = re.findall(r'<li style="--d:(\d)"><a href="#([^"]+)" data-target="[^"]+"( class="on")?>([^<]*)</a>', page)
    assert [(depth, text.split()[0], bool(on)) for depth, _, on, text in rows] == [
        ("0", "first", True), ("1", "second", False), ("1", "third", True)
    ]  # fmt: skip


def test_a_long_branch_keeps_only_its_end_in_the_document(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pi_cli.store import export_html as module

    monkeypatch.setattr(module, "STATIC_BUDGET", 2000)
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    for n in range(30):
        sm.append_message(user(f"question {n}"))
        sm.append_message(assistant(f"answer {n}"))
    static = render_html(sm).split('<div id="entries">')[1].split("</main>")[0]
    assert "answer 29" in static and "question 0" not in static
    assert re.search(r"\d+ earlier entries: the page shows them with scripts on", static)


def test_theme_colours_reach_the_page_and_long_results_start_collapsed(tmp_path: Path) -> None:
    sm = SessionManager.create("/proj", tmp_path, fsync=False)
    sm.append_message(user("list"))
    sm.append_message(assistant("", calls=[("c1", "bash", {"command": "seq 40"})]))
    sm.append_message(tool_result("c1", "\n".join(str(n) for n in range(40))))
    sm.append_message(assistant("done"))
    hostile = "#fff}</style><script>alert(1)</script>"
    page = render_html(
        sm, theme={"pageBg": "#101820", "text": "#fafafa", "mdLink": "", "accent": "red", "error": hostile}
    )
    assert ":root{--page-bg:#101820;--text:#fafafa}" in page  # only #rrggbb values, nothing else
    assert "alert(1)" not in page
    assert '<details class="result"><summary>result (40 lines)</summary>' in page
    assert '<span class="args">seq 40</span>' in page
