"""Default key bindings of the interactive mode, under pi's binding ids.

Each entry maps a pi id (``app.model.select`` …) to Textual key names and an app action. Users
override the keys in ``<agentDir>/keybindings.json`` with the same ids (a string or a list of
strings); pi's legacy names (``selectModel`` …) are accepted too. Textual's ``App.set_keymap``
applies the overrides to bindings carrying those ids, so this module only builds the table and
the keymap. It imports no Textual.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any


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

LEGACY_NAMES = {
    "interrupt": "app.interrupt",
    "clear": "app.clear",
    "exit": "app.exit",
    "cycleThinkingLevel": "app.thinking.cycle",
    "cycleModelForward": "app.model.cycleForward",
    "cycleModelBackward": "app.model.cycleBackward",
    "selectModel": "app.model.select",
    "expandTools": "app.tools.expand",
    "toggleThinking": "app.thinking.toggle",
    "followUp": "app.message.followUp",
    "dequeue": "app.message.dequeue",
    "submit": "tui.input.submit",
    "newLine": "tui.input.newLine",
    "tab": "tui.input.tab",
}

_KNOWN_IDS = {spec.id for spec in (*APP_KEYS, *EDITOR_KEYS)}


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


def build_keymap(raw: dict[str, Any]) -> tuple[dict[str, str], list[str]]:
    """Keymap for ``App.set_keymap`` from a parsed keybindings.json object.

    Returns the keymap (binding id → comma-separated keys) and one-line warnings for entries that
    were ignored. Unknown ids are ignored silently (they may belong to features we lack).
    """
    keymap: dict[str, str] = {}
    warnings: list[str] = []
    for name, value in raw.items():
        binding_id = LEGACY_NAMES.get(name, name)
        if binding_id not in _KNOWN_IDS:
            continue
        keys = [value] if isinstance(value, str) else value
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            warnings.append(f"keybindings.json: {name}: expected a key string or a list of strings")
            continue
        translated = [to_textual_key(k) for k in keys if to_textual_key(k)]
        # An empty list unbinds; Textual needs some key, so use one nobody can type.
        keymap[binding_id] = ",".join(translated) if translated else "f24"
    return keymap, warnings


def load_keymap(path: Path) -> tuple[dict[str, str], list[str]]:
    """The user's overrides from ``keybindings.json`` as a Textual keymap, plus one-line problems.

    Parsing, legacy names and validation are ``pi_cli.config.keybindings``'s; only ids this UI
    implements and whose keys differ from pi's defaults end up in the keymap (so our extra
    defaults, such as Ctrl-J for a newline, survive).
    """
    try:
        from pi_cli.config.keybindings import DEFAULT_BINDINGS, load_keybindings
    except ImportError:  # config layer without a keybindings loader: read the file ourselves
        return _load_keymap_json(path)
    bindings, problems = load_keybindings(path)
    keymap: dict[str, str] = {}
    for spec in (*APP_KEYS, *EDITOR_KEYS):
        keys = bindings.get(spec.id)
        if keys is None or keys == DEFAULT_BINDINGS.get(spec.id):
            continue
        translated = [to_textual_key(k) for k in keys if to_textual_key(k)]
        keymap[spec.id] = ",".join(translated) if translated else "f24"
    return keymap, problems


def _load_keymap_json(path: Path) -> tuple[dict[str, str], list[str]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}, []
    except OSError as exc:
        return {}, [f"{path}: cannot read: {exc.strerror}"]
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        return {}, [f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}"]
    if not isinstance(raw, dict):
        return {}, [f"{path}: expected a JSON object"]
    return build_keymap(raw)


def describe(spec_id: str, keymap: dict[str, str]) -> str:
    """The keys bound to ``spec_id`` after overrides, for help texts."""
    for spec in (*APP_KEYS, *EDITOR_KEYS):
        if spec.id == spec_id:
            return keymap.get(spec_id, spec.keys).replace(",", "/")
    return ""
