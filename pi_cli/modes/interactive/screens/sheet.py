"""The look every modal of the interactive mode shares: a sheet docked at the bottom.

:class:`BottomSheet` dims the app behind it and lays out its ``Vertical`` full width with a rule
on top (``$primary``) and a borderless one-line ``Input``. A subclass's DEFAULT_CSS only adds what
differs (a ``max-height``, a ``$warning`` rule, its own parts): Textual ranks a subclass's default
rules above its base's at equal specificity, so they win.
"""

from __future__ import annotations

from typing import TypeVar

from textual.binding import Binding, BindingType
from textual.screen import ModalScreen

ResultT = TypeVar("ResultT")


class BottomSheet(ModalScreen[ResultT]):
    """A modal screen docked at the bottom (see the module docstring)."""

    DEFAULT_CSS = """
    BottomSheet { align: center bottom; background: $background 30%; }
    BottomSheet > Vertical {
        width: 100%; height: auto; border-top: hkey $primary; background: $surface; padding: 0 1;
    }
    BottomSheet Input, BottomSheet Input:focus { border: none; height: 1; padding: 0; background: $surface; }
    """


def list_keys(choose: str) -> list[BindingType]:
    """The keys of a sheet that lists things: Escape or Ctrl-C cancels, Up/Down move, Enter
    chooses (footer label ``choose``). The screen defines ``action_cancel``, ``action_move(delta)``
    and ``action_choose``."""
    return [
        Binding("escape,ctrl+c", "cancel", "Cancel", priority=True),
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("enter", "choose", choose, priority=True),
    ]
