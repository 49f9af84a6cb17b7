"""The ``snake`` example (pi's): a custom component redrawn by its own timer, saved in the session
on Escape and resumed paused by the next ``/snake``."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from extensions.test_tui_ui import SIZE, wait_until
from pi_cli.extensions import ExtensionRunner
from pi_cli.extensions.api import ExtensionAPI
from pi_cli.extensions.examples.components.snake import GAME_WIDTH, SAVE_TYPE, GameState, SnakeComponent


def test_the_snake_moves_eats_and_crashes() -> None:
    rng = random.Random(1)
    state = GameState.new(rng)
    x, y = state.snake[0]
    state.food = [x + 1, y]
    state.tick(rng)
    assert state.snake[0] == [x + 1, y] and len(state.snake) == 4 and state.score == 10 == state.high_score
    for _ in range(GAME_WIDTH):
        state.tick(rng)
    assert state.game_over
    again = GameState.of(state.to_data())
    assert again == state and GameState.of({"snake": []}) is None and GameState.of("x") is None


def make_stored_app(faux: Any, cwd: Path, register: Any) -> tuple[Any, ExtensionRunner, Any]:
    """The TUI with an extension and an in-memory session file (for ``get_entries``/``get_branch``)."""
    from pi_cli.modes.interactive import make_app as build
    from pi_cli.session.assembly import SessionParts, build_session
    from pi_cli.session.store_bridge import SessionStoreBridge
    from pi_cli.store.manager import SessionManager

    manager = SessionManager.in_memory(cwd)
    runner = ExtensionRunner(str(cwd))
    register(ExtensionAPI(runner, "ext.py"))
    session = build_session(
        cwd=cwd, parts=SessionParts(extensions=runner), store=SessionStoreBridge(manager, cwd),
        system_prompt="t", model=faux.model(),
    )  # fmt: skip
    return build(session, keymap={}), runner, manager


def _rows(app: Any) -> str:
    view = app.screen.view
    return "\n".join(view.render_line(y).text for y in range(view.size.height))


async def test_snake_plays_saves_on_escape_and_resumes_paused(faux: Any, tmp_path: Path) -> None:
    from pi_cli.extensions.examples.components.snake import register
    from pi_cli.modes.interactive.extension_ui.custom import ComponentSheet

    app, runner, manager = make_stored_app(faux, tmp_path, register)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: runner.started)
        app.editor.load_text("/snake")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ComponentSheet))
        component = app.screen.view.hosted.component
        assert isinstance(component, SnakeComponent)
        start = list(component.state.snake[0])
        await pilot.press("down")
        await wait_until(pilot, lambda: component.state.snake[0] != start)  # the timer moves it
        await pilot.pause()
        assert "SNAKE" in _rows(app) and "██" in _rows(app)
        assert component.state.direction == "down"
        await pilot.press("escape")  # pause and save
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
        saves = [e for e in manager.get_entries() if e.get("customType") == SAVE_TYPE]
        assert len(saves) == 1 and saves[0]["data"]["direction"] == "down" and "nextDirection" in saves[0]["data"]
        assert component._timer is None  # stopped with the view

        app.editor.load_text("/snake")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ComponentSheet))
        await pilot.pause()
        assert "PAUSED" in _rows(app)
        await pilot.press("q")  # leave the resumed game: the save stays
        await wait_until(pilot, lambda: app.screen is app.screen_stack[0])
        assert len([e for e in manager.get_entries() if e.get("customType") == SAVE_TYPE]) == 1
