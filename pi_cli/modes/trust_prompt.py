"""The start-up project-trust question in the terminal, before any project resource loads.

Shown by the TUI and inline front ends (a full-screen app is not running yet, as in pi): the
question and the answers as a list; arrows move, Enter picks, Escape / Ctrl-C cancel, which
counts as "not trusted" for this run and saves nothing.
"""

from __future__ import annotations

import shutil
import textwrap


def choose_in_terminal(title: str, labels: list[str]) -> str | None:
    """Ask on the terminal; the picked label, or None when cancelled or the terminal is gone."""
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.shortcuts import choice

    width = max(20, shutil.get_terminal_size().columns - 2)
    wrapped = "\n".join(textwrap.fill(line, width) if line else "" for line in title.split("\n"))
    bindings = KeyBindings()

    @bindings.add("escape", eager=True)
    def _cancel(event: object) -> None:
        event.app.exit(result=None)  # type: ignore[attr-defined]

    try:
        picked: str | None = choice(
            message=wrapped + "\n", options=[(label, label) for label in labels], key_bindings=bindings
        )
        return picked
    except (KeyboardInterrupt, EOFError, OSError):
        return None
