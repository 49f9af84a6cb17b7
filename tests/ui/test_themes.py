"""Themes in the TUI: a custom theme file drives Textual's colours and the answers' Markdown and
code; /settings → Theme lists the themes, switches at once and saves the choice."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from test_session_screens import SIZE, prompt, screen_of, stored_session, wait_until

from pi_cli.ai.providers.faux import faux_assistant, faux_text
from pi_cli.modes.interactive import make_app
from pi_cli.modes.interactive.screens.picker import PickerScreen
from pi_cli.modes.interactive.widgets.markdown_stream import StreamingMarkdown
from pi_cli.resources.themes import discover_themes
from pi_cli.session.assembly.parts import SessionParts

OCEAN = {"name": "ocean", "vars": {"sea": "#1188cc"},
         "colors": {"accent": "sea", "mdHeading": "#ff8800", "mdCode": "#00ff99", "syntaxKeyword": "#ff0044"},
         "export": {"pageBg": "#001122", "cardBg": "#002233"}}  # fmt: skip


def _ocean_parts(root: Path) -> SessionParts:
    themes = root / "themes"
    themes.mkdir(parents=True, exist_ok=True)
    (themes / "ocean.json").write_text(json.dumps(OCEAN))
    return SessionParts(themes=discover_themes(root, root / "agent", selected="ocean", cli_paths=[str(themes)]))


def _colours(block: StreamingMarkdown, text: str) -> set[str]:
    found = set()
    for y in range(block.size.height):
        for segment in block.render_line(y):
            if text in segment.text and segment.style is not None and segment.style.color is not None:
                found.add(segment.style.color.triplet.hex if segment.style.color.triplet else "")
    return found


async def test_a_custom_theme_colours_the_tui_and_the_answers(faux: Any, workdir: Path, tmp_path: Path) -> None:
    app = make_app(stored_session(faux, workdir, parts=_ocean_parts(tmp_path)), keymap={})
    async with app.run_test(size=SIZE) as pilot:
        assert app.theme == "pi-ocean"
        assert app.current_theme.primary == "#1188cc" and app.current_theme.background == "#001122"
        faux.set_responses([faux_assistant([faux_text("# Title\n\nuse `snippet` here\n\n```python\nimport os\n```")])])
        await prompt(pilot, app, "show me")
        answer = app.query(StreamingMarkdown).last()
        await wait_until(pilot, lambda: bool(_colours(answer, "Title")))
        assert _colours(answer, "Title") == {"#ff8800"}
        assert _colours(answer, "snippet") == {"#00ff99"}
        assert _colours(answer, "import") == {"#ff0044"}


async def test_settings_theme_row_switches_and_saves(faux: Any, workdir: Path, tmp_path: Path) -> None:
    saved: dict[str, Any] = {}
    session = stored_session(faux, workdir, parts=_ocean_parts(tmp_path), save_setting=saved.__setitem__)
    app = make_app(session, keymap={})
    async with app.run_test(size=SIZE) as pilot:
        app.editor.set_text("/settings")
        await pilot.press("enter")
        settings = await screen_of(pilot, app, PickerScreen)
        assert next(i for i in settings.items if i.key == "theme").detail == "ocean"
        settings.dismiss("theme")
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen.title_text == "Theme")
        themes = app.screen
        assert [i.key for i in themes.items] == ["system", "dark", "light", "ocean"]
        assert next(i for i in themes.items if i.current).key == "ocean"
        themes.dismiss("light")
        await wait_until(pilot, lambda: app.theme == "textual-light")
        assert saved == {"theme": "light"} and session.themes.selected == "light"
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen is not themes)
        assert os.environ.get("PI_CODING_AGENT_DIR")  # the tmp agent dir, never the user's
