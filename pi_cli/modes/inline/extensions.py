"""Extensions in inline mode: statuses on a footer line, widgets above the prompt (or below it,
``placement="belowEditor"``), shortcuts.

Like the controller this knows nothing about prompt_toolkit: it hands the app ``(style, text)``
lines and prompt_toolkit key *names*. The lines are cached until an extension changes a status
or widget, since the app redraws at frame rate while text streams.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pi_cli.modes.extension_bridge import status_line, widget_lines
from pi_cli.tools.sanitize import strip_control_sequences as safe

# The keys the inline app binds itself, under pi's action ids (for pi's conflict rules).
INLINE_KEYS = (
    ("tui.input.submit", "enter"),
    ("app.message.followUp", "alt+enter"),
    ("tui.input.newLine", "ctrl+j"),
    ("app.message.dequeue", "alt+up"),
    ("app.permissions.cycle", "alt+m"),
    ("app.clear", "ctrl+c"),
    ("app.exit", "ctrl+d"),
    ("app.interrupt", "escape"),
    ("tui.editor.cursorUp", "up"),
    ("tui.editor.cursorDown", "down"),
    ("tui.input.tab", "tab"),
)
_NAMED = {"escape", "enter", "tab", "backspace", "delete", "insert", "home", "end", "pageup", "pagedown"}
_ARROWS = {"up", "down", "left", "right"}
_CTRL_SPECIAL = {*_ARROWS, "home", "end", "insert", "delete", "pageup", "pagedown"}
_CTRL_SYMBOLS = {"@": "c-@", "\\": "c-\\", "]": "c-]", "^": "c-^", "_": "c-_", "space": "c-@"}


class ExtensionView:
    """What the session's extensions show in inline mode (nothing without extensions)."""

    def __init__(self, runner: Any) -> None:
        self.runner = runner
        self._version = 0
        self._widgets: dict[str, tuple[tuple[int, int], list[tuple[str, str]]]] = {}  # by placement
        self._status: tuple[tuple[int, int], str] | None = None
        self._tasks: set[asyncio.Future[None]] = set()  # shortcut handlers and the start, kept alive

    def changed(self, kind: str = "", key: str = "") -> None:
        self._version += 1

    def start(self) -> None:
        """``session_start`` now (a status set there shows before the first prompt)."""
        if self.runner is not None:
            self._keep(asyncio.ensure_future(self.runner.start()))

    def run_shortcut(self, shortcut: Any) -> None:
        """A bound extension key: the handler runs as a task (it may ask a question)."""
        from pi_cli.extensions.shortcuts import run_shortcut

        self._keep(asyncio.ensure_future(run_shortcut(self.runner, shortcut)))

    def _keep(self, task: asyncio.Future[None]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def working_text(self) -> str:
        """The line shown while the agent runs: an extension's ``set_working_message`` text and
        first ``set_working_indicator`` frame (inline draws no animation), else pi's default;
        ``""`` after ``set_working_visible(False)``."""
        ui = getattr(self.runner, "ui", None)
        if getattr(ui, "working_visible", True) is False:
            return ""
        message = getattr(ui, "working_message", None) or "Working..."
        frames = getattr(ui, "working_frames", None)
        frame = safe(str(frames[0])) + " " if frames else ""
        return f"{frame}{safe(str(message))} (ctrl+c to abort)"

    def _ui_dict(self, name: str) -> dict[str, Any]:
        value = getattr(getattr(self.runner, "ui", None), name, None)
        return value if isinstance(value, dict) else {}

    def _keys(self, placement: str) -> list[str]:
        placements = self._ui_dict("placements")
        return [key for key in self._ui_dict("widgets") if placements.get(key, "aboveEditor") == placement]

    def has_widgets(self, placement: str = "aboveEditor") -> bool:
        return bool(self._keys(placement))

    def has_status(self) -> bool:
        return bool(self._ui_dict("statuses"))

    def widget_lines(self, width: int, placement: str = "aboveEditor") -> list[tuple[str, str]]:
        """The lines of the widgets at ``placement``, in the order first set, clipped to ``width``."""
        key = (self._version, width)
        cached = self._widgets.get(placement)
        if cached is None or cached[0] != key:
            widgets = self._ui_dict("widgets")
            lines = [
                ("class:ext-widget", _clip(line, width))
                for name in self._keys(placement)
                for line in widget_lines(widgets[name])
            ]
            cached = self._widgets[placement] = (key, lines)
        return cached[1]

    def status_text(self, width: int) -> str:
        """pi's footer line of statuses (sorted by key), clipped to ``width``."""
        key = (self._version, width)
        if self._status is None or self._status[0] != key:
            self._status = (key, _clip(status_line(self._ui_dict("statuses")), width, "..."))
        return self._status[1]


def prompt_toolkit_keys(canonical: str) -> tuple[str, ...] | None:
    """pi's canonical key as prompt_toolkit key names (Alt is an ``escape`` prefix), or None when
    a terminal cannot report it (``super``, Ctrl+Shift+letter, Ctrl+symbol …)."""
    from pi_cli.extensions.shortcuts import split_key

    mods, name = split_key(canonical)
    if "super" in mods:
        return None
    prefix: tuple[str, ...] = ()
    if "alt" in mods:
        prefix, mods = ("escape",), [m for m in mods if m != "alt"]
    single = _single_key(set(mods), name)
    return None if single is None else (*prefix, single)


def _single_key(mods: set[str], name: str) -> str | None:
    if not mods:
        if name == "space":
            return " "
        return name if name in _NAMED or name in _ARROWS or len(name) == 1 or name.startswith("f") else None
    if mods == {"shift"}:
        if len(name) == 1 and name.isalpha():
            return name.upper()
        return f"s-{name}" if name in _CTRL_SPECIAL or name in ("tab", "escape") else None
    if mods == {"ctrl"}:
        if len(name) == 1 and name.isalnum():
            return f"c-{name}"
        if name in _CTRL_SYMBOLS:
            return _CTRL_SYMBOLS[name]
        return f"c-{name}" if name in _CTRL_SPECIAL or (name.startswith("f") and name[1:].isdigit()) else None
    if mods == {"ctrl", "shift"}:
        return f"c-s-{name}" if name in _CTRL_SPECIAL or name.isdigit() else None
    return None


def resolve_inline_shortcuts(runner: Any) -> tuple[list[tuple[tuple[str, ...], Any]], list[str]]:
    """(prompt_toolkit keys, shortcut) pairs to bind, and one line per conflict or unusable key."""
    from pi_cli.extensions.shortcuts import builtin_keys, resolve_shortcuts

    chosen, lines = resolve_shortcuts(list(getattr(runner, "shortcuts", [])), builtin_keys(list(INLINE_KEYS)))
    out: list[tuple[tuple[str, ...], Any]] = []
    for canonical, shortcut in chosen.items():
        keys = prompt_toolkit_keys(canonical)
        if keys is None:
            lines.append(
                f"Extension shortcut '{shortcut.key}' from {shortcut.source} cannot be bound in inline mode "
                "(the terminal does not report it). Skipping."
            )
            continue
        out.append((keys, shortcut))
    return out, lines


def _clip(text: str, width: int, ellipsis: str = "…") -> str:
    width = max(width, 10)
    return text if len(text) <= width else text[: max(width - len(ellipsis), 1)] + ellipsis
