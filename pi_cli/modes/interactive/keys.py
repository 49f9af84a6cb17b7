"""Default key bindings of the interactive mode, under pi's binding ids.

Each entry maps a pi id (``app.model.select`` …) to Textual key names and an app action. Users
override the keys in ``<agentDir>/keybindings.json`` with the same ids (a string or a list of
strings); pi's legacy names (``selectModel`` …) are accepted too (both read by
:func:`pi_cli.config.keybindings.load_keybindings`). Textual's ``App.set_keymap``
applies the overrides to bindings carrying those ids, so this module only builds the table and
the keymap. It imports no Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pi_cli.config.keybindings import DEFAULT_BINDINGS, load_keybindings


@dataclass(frozen=True, slots=True)
class KeySpec:
    """One rebindable app binding."""

    id: str
    keys: str  # comma-separated Textual key names
    action: str
    description: str
    show: bool = False


APP_KEYS: tuple[KeySpec, ...] = (
    KeySpec("app.interrupt", "escape", "interrupt", "Cancel or abort"),
    KeySpec("app.clear", "ctrl+c", "clear_or_abort", "Abort / clear editor (twice: quit)"),
    KeySpec("app.exit", "ctrl+d", "exit_if_empty", "Exit when editor is empty"),
    KeySpec("app.thinking.cycle", "shift+tab", "cycle_thinking", "Cycle thinking level"),
    KeySpec("app.model.cycleForward", "ctrl+p", "cycle_model(1)", "Cycle to next model"),
    KeySpec("app.model.cycleBackward", "ctrl+shift+p", "cycle_model(-1)", "Cycle to previous model"),
    KeySpec("app.model.select", "ctrl+l", "select_model", "Open model selector"),
    KeySpec("app.tools.expand", "ctrl+o", "toggle_tools", "Toggle tool output"),
    KeySpec("app.thinking.toggle", "ctrl+t", "toggle_thinking", "Toggle thinking blocks"),
    KeySpec("app.message.dequeue", "alt+up", "dequeue", "Restore queued messages"),
    KeySpec("app.clipboard.pasteImage", "ctrl+v", "paste_image", "Paste an image from the clipboard"),
    KeySpec("app.permissions.cycle", "alt+m", "cycle_permissions", "Cycle tool approval mode (auto/ask/read-only)"),
)
"""App-level bindings (priority: they work while the editor has focus)."""

EDITOR_KEYS: tuple[KeySpec, ...] = (
    KeySpec("tui.input.submit", "enter", "submit", "Send (steer while running)"),
    KeySpec("app.message.followUp", "alt+enter", "follow_up", "Queue follow-up message"),
    KeySpec("tui.input.newLine", "shift+enter,ctrl+j", "newline", "New line"),
    KeySpec("tui.input.tab", "tab", "complete", "Complete path or command"),
)
"""Editor bindings (on the prompt widget)."""


def to_textual_key(key: str) -> str:
    """Translate a pi key id (``shift+ctrl+p``) to Textual's spelling (``ctrl+shift+p``)."""
    parts = [p.strip().lower() for p in key.split("+") if p.strip()]
    if not parts:
        return ""
    *mods, name = parts
    order = {"ctrl": 0, "alt": 1, "shift": 2, "super": 3, "meta": 4}
    mods = sorted(set(mods), key=lambda m: order.get(m, 9))
    name = {"esc": "escape", "return": "enter", "space": "space", "pageup": "pageup"}.get(name, name)
    return "+".join([*mods, name])


def load_keymap(path: Path) -> tuple[dict[str, str], list[str]]:
    """The user's overrides from ``keybindings.json`` as a Textual keymap, plus one-line problems.

    Parsing, legacy names and validation are ``pi_cli.config.keybindings``'s; only ids this UI
    implements and whose keys differ from pi's defaults end up in the keymap (so our extra
    defaults, such as Ctrl-J for a newline, survive).
    """
    bindings, problems = load_keybindings(path)
    keymap: dict[str, str] = {}
    for spec in (*APP_KEYS, *EDITOR_KEYS):
        keys = bindings.get(spec.id)
        if keys is None or keys == DEFAULT_BINDINGS.get(spec.id):
            continue
        translated = [to_textual_key(k) for k in keys if to_textual_key(k)]
        keymap[spec.id] = ",".join(translated) if translated else "f24"
    return keymap, problems


def describe(spec_id: str, keymap: dict[str, str]) -> str:
    """The keys bound to ``spec_id`` after overrides, for help texts."""
    for spec in (*APP_KEYS, *EDITOR_KEYS):
        if spec.id == spec_id:
            return keymap.get(spec_id, spec.keys).replace(",", "/")
    return ""
