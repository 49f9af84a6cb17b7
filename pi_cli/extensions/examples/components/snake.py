"""Snake (pi's ``snake`` example): ``/snake`` plays in a custom component that redraws itself on a
timer (``tui.request_render()`` from a tick every 100 ms on the event loop).

``pi -e example:snake``. Arrows or WASD steer; Escape pauses and saves the game in the session
(a ``snake-save`` custom entry), so the next ``/snake`` resumes it paused (any key goes on, Q or
Escape leaves); Q quits and clears the save; after a crash R or Space restarts. Needs the TUI or inline mode.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import Any

from pi_cli.extensions import ExtensionAPI
from pi_cli.extensions.rendering import matches_key, visible_width

GAME_WIDTH, GAME_HEIGHT = 40, 15
TICK_S = 0.1
SAVE_TYPE = "snake-save"
_STEPS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
_OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}
_WASD = {"w": "up", "s": "down", "a": "left", "d": "right"}


def _spawn_food(snake: list[list[int]], rng: random.Random) -> list[int]:
    while True:
        food = [rng.randrange(GAME_WIDTH), rng.randrange(GAME_HEIGHT)]
        if food not in snake:
            return food


@dataclass
class GameState:
    """The board: the snake's cells (head first, ``[x, y]``), food, heading, score."""

    snake: list[list[int]] = field(default_factory=list)
    food: list[int] = field(default_factory=list)
    direction: str = "right"
    next_direction: str = "right"
    score: int = 0
    game_over: bool = False
    high_score: int = 0

    @classmethod
    def new(cls, rng: random.Random, high_score: int = 0) -> GameState:
        x, y = GAME_WIDTH // 2, GAME_HEIGHT // 2
        snake = [[x, y], [x - 1, y], [x - 2, y]]
        return cls(snake=snake, food=_spawn_food(snake, rng), high_score=high_score)

    def to_data(self) -> dict[str, Any]:
        """The save in pi's shape (``{x, y}`` points, camelCase), so pi and pi_cli resume each other's."""
        return {
            "snake": [{"x": x, "y": y} for x, y in self.snake], "food": {"x": self.food[0], "y": self.food[1]},
            "direction": self.direction, "nextDirection": self.next_direction, "score": self.score,
            "gameOver": self.game_over, "highScore": self.high_score,
        }  # fmt: skip

    @classmethod
    def of(cls, data: Any) -> GameState | None:
        """A saved state (the entry's ``data``, pi's shape), None when it is not one."""
        if not isinstance(data, dict):
            return None
        try:
            state = cls(
                snake=[[int(p["x"]), int(p["y"])] for p in data["snake"]],
                food=[int(data["food"]["x"]), int(data["food"]["y"])],
                direction=str(data.get("direction", "right")),
                next_direction=str(data.get("nextDirection", data.get("direction", "right"))),
                score=int(data.get("score", 0)),
                game_over=bool(data.get("gameOver", False)),
                high_score=int(data.get("highScore", 0)),
            )
        except (KeyError, TypeError, ValueError):
            return None
        return state if {state.direction, state.next_direction} <= _STEPS.keys() and state.snake else None

    def tick(self, rng: random.Random) -> None:
        """One step: turn, move, eat or crash."""
        self.direction = self.next_direction
        dx, dy = _STEPS[self.direction]
        head = [self.snake[0][0] + dx, self.snake[0][1] + dy]
        inside = 0 <= head[0] < GAME_WIDTH and 0 <= head[1] < GAME_HEIGHT
        if not inside or head in self.snake:
            self.game_over = True
            return
        self.snake.insert(0, head)
        if head == self.food:
            self.score += 10
            self.high_score = max(self.high_score, self.score)
            self.food = _spawn_food(self.snake, rng)
        else:
            self.snake.pop()


def _dim(s: str) -> str:
    return f"\x1b[2m{s}\x1b[22m"


def _colour(code: int, s: str) -> str:
    return f"\x1b[{code}m{s}\x1b[0m"


def _bold(s: str) -> str:
    return f"\x1b[1m{s}\x1b[22m"


class SnakeComponent:
    """The game; ``on_save(state or None)`` stores or clears the save, ``on_close()`` ends it."""

    def __init__(
        self, tui: Any, on_close: Any, on_save: Any, saved: GameState | None = None, rng: random.Random | None = None
    ) -> None:
        self.tui, self.on_close, self.on_save = tui, on_close, on_save
        self.rng = rng or random.Random()
        self._timer: asyncio.TimerHandle | None = None
        if saved is not None and not saved.game_over:
            self.state, self.paused = saved, True  # a resumed game waits for a key
        else:
            self.state = GameState.new(self.rng, saved.high_score if saved else 0)
            self.paused = False
            self._schedule()

    def _schedule(self) -> None:
        self._timer = asyncio.get_running_loop().call_later(TICK_S, self._tick)

    def _tick(self) -> None:
        if not self.state.game_over:
            self.state.tick(self.rng)
            self.tui.request_render()
        self._schedule()

    def handle_input(self, data: str) -> None:
        quit_key = data in ("q", "Q")
        if self.paused:
            if matches_key(data, "escape") or quit_key:
                self.close()
            else:
                self.paused = False
                self._schedule()
            return
        if matches_key(data, "escape"):
            self.on_save(self.state.to_data())
            self.close()
            return
        if quit_key:
            self.on_save(None)
            self.close()
            return
        turn = _WASD.get(data.lower()) or next((name for name in _STEPS if matches_key(data, name)), None)
        if turn is not None and self.state.direction != _OPPOSITE[turn]:
            self.state.next_direction = turn
        if self.state.game_over and data in ("r", "R", " "):
            self.state = GameState.new(self.rng, self.state.high_score)
            self.on_save(None)

    def close(self) -> None:
        self.dispose()
        self.on_close()

    def render(self, width: int) -> list[str]:
        columns = max(1, min(GAME_WIDTH, (width - 4) // 2))  # two cells a square: terminal cells are tall
        box = columns * 2
        state = self.state

        def boxed(content: str) -> str:
            return _dim(" │") + content + " " * max(0, box - visible_width(content)) + _dim("│")

        head, body = state.snake[0], state.snake[1:]
        score, high = _bold(_colour(33, str(state.score))), _bold(_colour(33, str(state.high_score)))
        lines = [_dim(f" ╭{'─' * box}╮"), boxed(f"{_bold(_colour(32, 'SNAKE'))} │ Score: {score} │ High: {high}")]
        lines.append(_dim(f" ├{'─' * box}┤"))
        for y in range(GAME_HEIGHT):
            row = ""
            for x in range(columns):
                cell = [x, y]
                row += (
                    _colour(32, "██") if cell == head
                    else _colour(32, "▓▓") if cell in body
                    else _colour(31, "◆ ") if cell == state.food
                    else "  "
                )  # fmt: skip
            lines.append(_dim(" │") + row + _dim("│"))
        lines.append(_dim(f" ├{'─' * box}┤"))
        if self.paused:
            footer = f"{_colour(33, _bold('PAUSED'))} Press any key to continue, {_bold('Q')} to quit"
        elif state.game_over:
            footer = f"{_colour(31, _bold('GAME OVER!'))} Press {_bold('R')} to restart, {_bold('Q')} to quit"
        else:
            footer = f"↑↓←→ or WASD to move, {_bold('ESC')} pause, {_bold('Q')} quit"
        lines += [boxed(footer), _dim(f" ╰{'─' * box}╯")]
        return lines

    def invalidate(self) -> None:
        return None  # nothing cached: a board is cheap to draw

    def dispose(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def register(pi: ExtensionAPI) -> None:
    async def snake(args: str, ctx: Any) -> None:
        if ctx.mode not in ("tui", "inline"):  # the terminal front ends
            ctx.ui.notify("Snake requires interactive mode", "error")
            return
        saved = None
        for entry in reversed(ctx.session_manager.get_entries()):
            if entry.get("type") == "custom" and entry.get("customType") == SAVE_TYPE:
                saved = GameState.of(entry.get("data"))
                break

        def save(state: dict[str, Any] | None) -> None:
            pi.append_entry(SAVE_TYPE, state)

        await ctx.ui.custom(lambda tui, theme, kb, done: SnakeComponent(tui, lambda: done(None), save, saved))

    pi.register_command("snake", snake, "Play Snake!")
