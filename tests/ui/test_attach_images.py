"""Images in: a dropped or pasted image path and Ctrl-V attach an image, shown as a chip, sent with
the next message; no clipboard tool gives one clear notice."""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from test_session_screens import SIZE, stored_session, wait_until
from textual import events

from pi_cli.ai.providers.faux import faux_assistant, faux_text
from pi_cli.modes.attachments import AttachmentError, clipboard_image, image_from_pasted
from pi_cli.modes.interactive import make_app

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg=="
)


def _images_sent(faux: Any) -> list[dict[str, Any]]:
    content = faux.requests[-1].context["messages"][-1]["content"]
    return [block for block in content if block.get("type") == "image"]


def test_pasted_paths_in_their_usual_spellings(tmp_path: Path) -> None:
    shot = tmp_path / "my shot.png"
    shot.write_bytes(PNG)
    for text in (str(shot), f"'{shot}'", str(shot).replace(" ", "\\ "), shot.as_uri(), "my\\ shot.png"):
        found = image_from_pasted(text, tmp_path)
        assert found is not None and found[1] == "my shot.png", text
        assert found[0]["mimeType"] == "image/png" and base64.b64decode(found[0]["data"]) == PNG
    assert image_from_pasted("some words and my shot.png", tmp_path) is None
    assert image_from_pasted(str(tmp_path / "missing.png"), tmp_path) is None
    assert image_from_pasted(str(tmp_path / "notes.txt"), tmp_path) is None


def test_no_clipboard_tool_is_one_clear_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", ":0")
    with pytest.raises(AttachmentError, match="install wl-clipboard \\(Wayland\\) or xclip \\(X11\\)"):
        clipboard_image()


async def test_a_dropped_path_and_ctrl_v_attach_and_go_with_the_message(
    faux: Any, workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shot = workdir / "shot.png"
    shot.write_bytes(PNG)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    xclip = bin_dir / "xclip"  # answers as xclip does for a clipboard holding a PNG
    xclip.write_text(f"#!/bin/sh\ncase \"$*\" in *TARGETS*) printf 'TARGETS\\nimage/png\\n';; *) cat '{shot}';; esac\n")
    xclip.chmod(xclip.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", ":0")
    app = make_app(stored_session(faux, workdir), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(events.Paste(f"'{shot}'"))  # what a terminal sends for a dropped file
        await wait_until(pilot, lambda: "[image 1] shot.png" in app.queue_area.text)
        assert app.editor.text == ""  # the path became an attachment, not text
        await pilot.press("ctrl+v")
        await wait_until(pilot, lambda: "[image 2] clipboard" in app.queue_area.text)
        app.post_message(events.Paste("plain words"))
        await wait_until(pilot, lambda: app.editor.text == "plain words")
        faux.set_responses([faux_assistant([faux_text("I see two images")])])
        await pilot.press("enter")
        await wait_until(pilot, lambda: faux.call_count == 1)
        assert len(_images_sent(faux)) == 2 and "[image" not in app.queue_area.text
