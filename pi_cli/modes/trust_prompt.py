"""The start-up project-trust question in the terminal, before any project resource loads.

Shown by the TUI and inline front ends (a full-screen app is not running yet, as in pi): the
question and the answers as a list; arrows move, Enter picks, Escape / Ctrl-C cancel, which
counts as "not trusted" for this run and saves nothing. The async variants serve extensions'
``project_trust`` handlers (``ctx.ui.select`` / ``confirm`` / ``input`` at start-up).
"""

from __future__ import annotations

import shutil
import textwrap
from typing import Any


def _choice(title: str, labels: list[str]) -> Any:
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.shortcuts.choice_input import ChoiceInput

    width = max(20, shutil.get_terminal_size().columns - 2)
    wrapped = "\n".join(textwrap.fill(line, width) if line else "" for line in title.split("\n"))
    bindings = KeyBindings()

    @bindings.add("escape", eager=True)
    def _cancel(event: object) -> None:
        event.app.exit(result=None)  # type: ignore[attr-defined]

    return ChoiceInput(message=wrapped + "\n", options=[(label, label) for label in labels], key_bindings=bindings)


def choose_in_terminal(title: str, labels: list[str]) -> str | None:
    """Ask on the terminal; the picked label, or None when cancelled or the terminal is gone."""
    try:
        picked: str | None = _choice(title, labels).prompt()
        return picked
    except (KeyboardInterrupt, EOFError, OSError):
        return None


async def select_in_terminal(title: str, labels: list[str]) -> str | None:
    """:func:`choose_in_terminal` for code already on an event loop."""
    try:
        picked: str | None = await _choice(title, labels).prompt_async()
        return picked
    except (KeyboardInterrupt, EOFError, OSError):
        return None


async def input_in_terminal(title: str, placeholder: str | None = None) -> str | None:
    """One line of text on the terminal; None when cancelled (Escape, Ctrl-C) or it is gone."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.formatted_text import FormattedText
    from prompt_toolkit.key_binding import KeyBindings

    bindings = KeyBindings()

    @bindings.add("escape", eager=True)
    def _cancel(event: object) -> None:
        event.app.exit(result=None)  # type: ignore[attr-defined]

    hint = FormattedText([("class:placeholder fg:ansibrightblack", placeholder)]) if placeholder else None
    session: PromptSession[str] = PromptSession(key_bindings=bindings, placeholder=hint)
    try:
        text: str | None = await session.prompt_async(f"{title}\n> ")
        return text
    except (KeyboardInterrupt, EOFError, OSError):
        return None


def terminal_dialogs() -> tuple[Any, Any]:
    """(select, input) for ``project_trust`` handlers at start-up."""
    return select_in_terminal, input_in_terminal
