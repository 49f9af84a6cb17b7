"""Extension keyboard shortcuts: pi's key syntax, conflict rules with built-in keys, and running
a shortcut's handler.

Keys are written as in pi's keybindings.md (``ctrl+shift+s``, ``alt+x``, ``f5``, ``ctrl+/``).
:func:`canonical_key` brings any spelling to one form (modifiers ``ctrl, alt, shift, super`` in that
order, lower-case key name, aliases resolved) so a front end can compare and translate it.
:func:`resolve_shortcuts` applies pi's rules: a key of a *reserved* built-in action (submit,
interrupt, clear, exit, model/thinking keys …) is skipped with one line; any other built-in key is
taken over by the extension, with one line; the same key from two extensions: the later wins.
Only terminal front ends bind shortcuts; RPC and print have no keyboard.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

MODIFIERS = ("ctrl", "alt", "shift", "super")
_ALIASES = {"esc": "escape", "return": "enter", "pageup": "pageup", "pagedown": "pagedown", "del": "delete"}
SPECIAL_KEYS = frozenset(
    {
        "escape", "enter", "tab", "space", "backspace", "delete", "insert", "clear", "home", "end",
        "pageup", "pagedown", "up", "down", "left", "right",
        *(f"f{n}" for n in range(1, 13)),
    }
)  # fmt: skip
SYMBOLS = frozenset("`-=[]\\;',./!@#$%^&*()_+|~{}:<>?")

# pi's RESERVED_KEYBINDINGS_FOR_EXTENSION_CONFLICTS: an extension may not take these keys.
RESERVED_ACTIONS = frozenset(
    {
        "app.interrupt", "app.clear", "app.exit", "app.suspend", "app.thinking.cycle",
        "app.model.cycleForward", "app.model.cycleBackward", "app.model.select", "app.tools.expand",
        "app.thinking.toggle", "app.editor.external", "app.message.copy", "app.message.followUp",
        "tui.input.submit", "tui.select.confirm", "tui.select.cancel", "tui.input.copy",
        "tui.editor.deleteToLineEnd",
    }
)  # fmt: skip


@dataclass(slots=True)
class Shortcut:
    """One ``pi.register_shortcut`` call; ``key`` as the extension wrote it."""

    key: str
    handler: Any
    description: str
    source: str

    @property
    def canonical(self) -> str:
        return canonical_key(self.key)


def canonical_key(key: str) -> str:
    """``Shift+Ctrl+S`` → ``ctrl+shift+s``; raises ValueError naming what is wrong.

    A lone ``+`` is a key of its own (``ctrl++``)."""
    text = key.strip()
    if not text:
        raise ValueError("empty key")
    if text.endswith("++"):
        parts, name = text[:-2].split("+"), "+"
    elif text == "+":
        parts, name = [], "+"
    else:
        *parts, name = text.split("+")
    mods: set[str] = set()
    for part in parts:
        mod = part.strip().lower()
        if mod not in MODIFIERS:
            raise ValueError(f"unknown modifier {part!r} in {key!r} (use ctrl, alt, shift, super)")
        mods.add(mod)
    name = name.strip()
    lowered = _ALIASES.get(name.lower(), name.lower())
    if len(name) == 1 and (name.isalnum() or name in SYMBOLS):
        lowered = name.lower()
    elif lowered not in SPECIAL_KEYS:
        raise ValueError(f"unknown key {name!r} in {key!r}")
    return "+".join([*(m for m in MODIFIERS if m in mods), lowered])


def split_key(canonical: str) -> tuple[list[str], str]:
    """``ctrl+shift+s`` → (["ctrl", "shift"], "s"); ``ctrl++`` → (["ctrl"], "+")."""
    if canonical == "+" or canonical.endswith("++"):
        head = canonical[:-2] if canonical.endswith("++") else ""
        return ([m for m in head.split("+") if m], "+")
    *mods, name = canonical.split("+")
    return mods, name


def builtin_keys(bindings: list[tuple[str, str]]) -> dict[str, str]:
    """canonical key → action id, from ``(action id, comma-separated keys)`` pairs. Where two
    actions share a key the reserved one is kept, so a reserved key always blocks extensions."""
    out: dict[str, str] = {}
    for action, keys in bindings:
        for key in keys.split(","):
            try:
                canonical = canonical_key(key)
            except ValueError:
                continue  # a key spelling of the front end's own (e.g. "f24" placeholders)
            if canonical not in out or action in RESERVED_ACTIONS:
                out[canonical] = action
    return out


def resolve_shortcuts(shortcuts: list[Shortcut], builtins: dict[str, str]) -> tuple[dict[str, Shortcut], list[str]]:
    """The shortcuts to bind (canonical key → shortcut) and one line per problem, by pi's rules."""
    chosen: dict[str, Shortcut] = {}
    lines: list[str] = []
    for shortcut in shortcuts:
        try:
            key = shortcut.canonical
        except ValueError as exc:
            lines.append(f"Extension shortcut '{shortcut.key}' from {shortcut.source}: {exc}. Skipping.")
            continue
        action = builtins.get(key)
        if action in RESERVED_ACTIONS:
            where = f"'{shortcut.key}' from {shortcut.source}"
            lines.append(f"Extension shortcut {where} conflicts with built-in shortcut. Skipping.")
            continue
        if action is not None:
            lines.append(
                f"Extension shortcut conflict: '{shortcut.key}' is built-in shortcut for {action} and "
                f"{shortcut.source}. Using {shortcut.source}."
            )
        previous = chosen.get(key)
        if previous is not None:
            lines.append(
                f"Extension shortcut conflict: '{shortcut.key}' registered by both {previous.source} and "
                f"{shortcut.source}. Using {shortcut.source}."
            )
        chosen[key] = shortcut
    return chosen, lines


async def run_shortcut(runner: Any, shortcut: Shortcut) -> None:
    """``handler(ctx)``, sync or async; a raise goes to ``runner.report`` (the transcript in the
    terminal modes), never out of the key handler."""
    try:
        await runner.start()
        result = shortcut.handler(runner.context())
        if inspect.isawaitable(result):
            await result
    except Exception as exc:
        runner.report(shortcut.source, f"shortcut:{shortcut.key}", exc)
