"""Key bindings under pi's ids, and ``keybindings.json`` overrides.

Ids and defaults are pi's (``tui.*`` for the editor and lists, ``app.*`` for the agent): e.g.
``tui.input.submit`` = ``enter``, ``app.message.followUp`` = ``alt+enter``, ``app.model.select`` =
``ctrl+l``. ``<agentDir>/keybindings.json`` maps an id to a key or a list of keys (an empty list
unbinds); pi's older flat names (``selectModel``, ``followUp`` …) are accepted and migrated.

Keys are pi's key-id strings, normalised to lower case with modifiers in the order
``ctrl+alt+shift+<key>`` (``shift+ctrl+p`` → ``ctrl+shift+p``, ``pageUp`` → ``pageup``). Turning
them into a UI toolkit's key names is the UI's business: this module imports no UI code.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from pi_cli.config import paths


def _windows_keys() -> bool:
    """pi swaps a few defaults on Windows and WSL, whose terminals swallow those chords."""
    return sys.platform == "win32" or (
        sys.platform.startswith("linux") and bool(os.environ.get("WSL_DISTRO_NAME") or os.environ.get("WSL_INTEROP"))
    )


def _defaults() -> dict[str, tuple[list[str], str]]:
    win = _windows_keys()
    mac = sys.platform == "darwin"
    return {
        # editor
        "tui.editor.cursorUp": (["up"], "Move cursor up"),
        "tui.editor.cursorDown": (["down"], "Move cursor down"),
        "tui.editor.historyPrevious": ([], "Previous prompt from history"),
        "tui.editor.historyNext": ([], "Next prompt from history"),
        "tui.editor.cursorLeft": (["left", "ctrl+b"], "Move cursor left"),
        "tui.editor.cursorRight": (["right", "ctrl+f"], "Move cursor right"),
        "tui.editor.cursorWordLeft": (["alt+left", "ctrl+left", "alt+b"], "Move cursor word left"),
        "tui.editor.cursorWordRight": (["alt+right", "ctrl+right", "alt+f"], "Move cursor word right"),
        "tui.editor.cursorLineStart": (["home", "ctrl+a"], "Move to line start"),
        "tui.editor.cursorLineEnd": (["end", "ctrl+e"], "Move to line end"),
        "tui.editor.jumpForward": (["ctrl+]"], "Jump forward to character"),
        "tui.editor.jumpBackward": (["ctrl+alt+]"], "Jump backward to character"),
        "tui.editor.pageUp": (["pageup"], "Page up"),
        "tui.editor.pageDown": (["pagedown"], "Page down"),
        "tui.editor.deleteCharBackward": (["backspace", "ctrl+h"] if mac else ["backspace"], "Delete char backward"),
        "tui.editor.deleteCharForward": (["delete", "ctrl+d"], "Delete character forward"),
        "tui.editor.deleteWordBackward": (["ctrl+w", "alt+backspace"], "Delete word backward"),
        "tui.editor.deleteWordForward": (["alt+d", "alt+delete"], "Delete word forward"),
        "tui.editor.deleteToLineStart": (["ctrl+u"], "Delete to line start"),
        "tui.editor.deleteToLineEnd": (["ctrl+k"], "Delete to line end"),
        "tui.editor.yank": (["ctrl+y"], "Yank"),
        "tui.editor.yankPop": (["alt+y"], "Yank pop"),
        "tui.editor.undo": (["ctrl+z"] if sys.platform == "win32" else ["alt+z"] if win else ["ctrl+-"], "Undo"),
        # input and lists
        "tui.input.newLine": (["shift+enter", "ctrl+j"], "Insert newline"),
        "tui.input.submit": (["enter"], "Submit input (steer while the agent runs)"),
        "tui.input.tab": (["tab"], "Tab / autocomplete"),
        "tui.input.copy": (["ctrl+c"], "Copy selection"),
        "tui.select.up": (["up"], "Move selection up"),
        "tui.select.down": (["down"], "Move selection down"),
        "tui.select.pageUp": (["pageup"], "Selection page up"),
        "tui.select.pageDown": (["pagedown"], "Selection page down"),
        "tui.select.confirm": (["enter"], "Confirm selection"),
        "tui.select.cancel": (["escape", "ctrl+c"], "Cancel selection"),
        # application
        "app.interrupt": (["escape"], "Cancel or abort"),
        "app.clear": (["ctrl+c"], "Clear editor (twice: exit)"),
        "app.exit": (["ctrl+d"], "Exit when editor is empty"),
        "app.suspend": ([] if sys.platform == "win32" else ["ctrl+z"], "Suspend to background"),
        "app.thinking.cycle": (["shift+tab"], "Cycle thinking level"),
        "app.permissions.cycle": (["alt+m"], "Cycle tool approval mode (auto/ask/read-only)"),
        "app.model.cycleForward": (["ctrl+p"], "Cycle to next model"),
        "app.model.cycleBackward": (["alt+p"] if win else ["ctrl+shift+p"], "Cycle to previous model"),
        "app.model.select": (["ctrl+l"], "Open model selector"),
        "app.tools.expand": (["ctrl+o"], "Toggle tool output"),
        "app.thinking.toggle": (["ctrl+t"], "Toggle thinking blocks"),
        "app.session.toggleNamedFilter": (["ctrl+n"], "Toggle named session filter"),
        "app.editor.external": (["ctrl+g"], "Open external editor"),
        "app.message.followUp": (["ctrl+q"] if win else ["alt+enter"], "Queue follow-up message"),
        "app.message.dequeue": (["alt+q"] if win else ["alt+up"], "Restore queued messages"),
        "app.clipboard.pasteImage": (["alt+v"] if win else ["ctrl+v"], "Paste image from clipboard"),
        "app.session.new": ([], "Start a new session"),
        "app.session.tree": ([], "Open session tree"),
        "app.session.fork": ([], "Fork current session"),
        "app.session.resume": ([], "Resume a session"),
        "app.tree.foldOrUp": (["ctrl+left", "alt+left"], "Fold tree branch or move up"),
        "app.tree.unfoldOrDown": (["ctrl+right", "alt+right"], "Unfold tree branch or move down"),
        "app.tree.editLabel": (["shift+l"], "Edit tree label"),
        "app.tree.toggleLabelTimestamp": (["shift+t"], "Toggle tree label timestamps"),
        "app.session.togglePath": (["ctrl+p"], "Toggle session path display"),
        "app.session.toggleSort": (["ctrl+s"], "Toggle session sort mode"),
        "app.session.rename": (["ctrl+r"], "Rename session"),
        "app.session.delete": (["ctrl+d"], "Delete session"),
        "app.session.deleteNoninvasive": (["ctrl+backspace"], "Delete session when query is empty"),
        "app.tree.filter.default": (["ctrl+d"], "Tree filter: default view"),
        "app.tree.filter.noTools": (["ctrl+t"], "Tree filter: hide tool results"),
        "app.tree.filter.userOnly": (["ctrl+u"], "Tree filter: user messages only"),
        "app.tree.filter.labeledOnly": (["ctrl+l"], "Tree filter: labeled entries only"),
        "app.tree.filter.all": (["ctrl+a"], "Tree filter: show all entries"),
        "app.tree.filter.cycleForward": (["ctrl+o"], "Tree filter: cycle forward"),
        "app.tree.filter.cycleBackward": (["ctrl+shift+o"], "Tree filter: cycle backward"),
    }


DEFAULT_BINDINGS: dict[str, list[str]] = {key: keys for key, (keys, _) in _defaults().items()}
"""Binding id → default keys (already normalised)."""

DESCRIPTIONS: dict[str, str] = {key: text for key, (_, text) in _defaults().items()}

# pi's pre-namespacing names, still accepted in keybindings.json.
LEGACY_NAMES: dict[str, str] = {
    "cursorUp": "tui.editor.cursorUp",
    "cursorDown": "tui.editor.cursorDown",
    "cursorLeft": "tui.editor.cursorLeft",
    "cursorRight": "tui.editor.cursorRight",
    "cursorWordLeft": "tui.editor.cursorWordLeft",
    "cursorWordRight": "tui.editor.cursorWordRight",
    "cursorLineStart": "tui.editor.cursorLineStart",
    "cursorLineEnd": "tui.editor.cursorLineEnd",
    "jumpForward": "tui.editor.jumpForward",
    "jumpBackward": "tui.editor.jumpBackward",
    "pageUp": "tui.editor.pageUp",
    "pageDown": "tui.editor.pageDown",
    "deleteCharBackward": "tui.editor.deleteCharBackward",
    "deleteCharForward": "tui.editor.deleteCharForward",
    "deleteWordBackward": "tui.editor.deleteWordBackward",
    "deleteWordForward": "tui.editor.deleteWordForward",
    "deleteToLineStart": "tui.editor.deleteToLineStart",
    "deleteToLineEnd": "tui.editor.deleteToLineEnd",
    "yank": "tui.editor.yank",
    "yankPop": "tui.editor.yankPop",
    "undo": "tui.editor.undo",
    "newLine": "tui.input.newLine",
    "submit": "tui.input.submit",
    "tab": "tui.input.tab",
    "copy": "tui.input.copy",
    "selectUp": "tui.select.up",
    "selectDown": "tui.select.down",
    "selectPageUp": "tui.select.pageUp",
    "selectPageDown": "tui.select.pageDown",
    "selectConfirm": "tui.select.confirm",
    "selectCancel": "tui.select.cancel",
    "interrupt": "app.interrupt",
    "clear": "app.clear",
    "exit": "app.exit",
    "suspend": "app.suspend",
    "cycleThinkingLevel": "app.thinking.cycle",
    "cycleModelForward": "app.model.cycleForward",
    "cycleModelBackward": "app.model.cycleBackward",
    "selectModel": "app.model.select",
    "expandTools": "app.tools.expand",
    "toggleThinking": "app.thinking.toggle",
    "toggleSessionNamedFilter": "app.session.toggleNamedFilter",
    "externalEditor": "app.editor.external",
    "followUp": "app.message.followUp",
    "dequeue": "app.message.dequeue",
    "pasteImage": "app.clipboard.pasteImage",
    "newSession": "app.session.new",
    "tree": "app.session.tree",
    "fork": "app.session.fork",
    "resume": "app.session.resume",
    "treeFoldOrUp": "app.tree.foldOrUp",
    "treeUnfoldOrDown": "app.tree.unfoldOrDown",
    "treeEditLabel": "app.tree.editLabel",
    "treeToggleLabelTimestamp": "app.tree.toggleLabelTimestamp",
    "toggleSessionPath": "app.session.togglePath",
    "toggleSessionSort": "app.session.toggleSort",
    "renameSession": "app.session.rename",
    "deleteSession": "app.session.delete",
    "deleteSessionNoninvasive": "app.session.deleteNoninvasive",
}

_MOD_ORDER = {"ctrl": 0, "alt": 1, "shift": 2, "super": 3}
_MOD_ALIASES = {"control": "ctrl", "option": "alt", "meta": "alt", "cmd": "super"}
_KEY_ALIASES = {"esc": "escape", "return": "enter", "del": "delete"}


def normalize_key(key: str) -> str:
    """``"Shift+Ctrl+P"`` → ``"ctrl+shift+p"``; ``"ctrl+-"`` and ``"ctrl+]"`` keep their symbol."""
    text = key.strip().lower()
    if not text:
        return ""
    if text.endswith("++"):  # "ctrl++": the key itself is "+"
        mods, name = text[:-2].split("+"), "+"
    else:
        *mods, name = text.split("+")
    mods = sorted(
        {_MOD_ALIASES.get(m.strip(), m.strip()) for m in mods if m.strip()}, key=lambda m: (_MOD_ORDER.get(m, 9), m)
    )
    name = _KEY_ALIASES.get(name.strip(), name.strip())
    return "+".join([*mods, name]) if name else ""


def load_keybindings(path: Path | None = None) -> tuple[dict[str, list[str]], list[str]]:
    """Effective bindings (id → keys) and one-line problems found in ``keybindings.json``.

    A missing file gives the defaults and no errors; invalid JSON gives the defaults and one line
    naming the file, line and column. A bad entry or unknown id is skipped with a line naming it.
    A key given to two ids by the file is reported (both keep it, as in pi).
    """
    file = path if path is not None else paths.keybindings_path()
    bindings = {key: list(keys) for key, keys in DEFAULT_BINDINGS.items()}
    try:
        text = file.read_text(encoding="utf-8").removeprefix("\ufeff")
    except FileNotFoundError:
        return bindings, []
    except (OSError, UnicodeDecodeError) as exc:
        return bindings, [f"Could not read {file}: {exc.__class__.__name__}; using default key bindings"]
    if not text.strip():
        return bindings, []
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        return bindings, [
            f"Invalid JSON in {file}: line {exc.lineno}, column {exc.colno}: {exc.msg}; using default key bindings"
        ]
    if not isinstance(raw, dict):
        return bindings, [f"Invalid {file}: expected a JSON object of binding ids; using default key bindings"]
    errors: list[str] = []
    overrides: dict[str, list[str]] = {}
    for name, value in raw.items():
        binding = LEGACY_NAMES.get(name, name)
        if binding not in bindings:
            errors.append(f'{file}: unknown binding id "{name}"; ignored')
            continue
        if binding != name and binding in raw:
            continue  # the namespaced id, also present, wins over its legacy name
        keys = [value] if isinstance(value, str) else value
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            errors.append(f"{file}: {name}: expected a key string or a list of key strings; ignored")
            continue
        normalized = list(dict.fromkeys(k for k in (normalize_key(k) for k in keys) if k))
        overrides[binding] = normalized
    claims: dict[str, list[str]] = {}
    for binding, keys in overrides.items():
        bindings[binding] = keys
        for key in keys:
            claims.setdefault(key, []).append(binding)
    for key, owners in claims.items():
        if len(owners) > 1:
            errors.append(f'{file}: key "{key}" is bound to {", ".join(owners)}')
    return bindings, errors


def keys_for(bindings: dict[str, list[str]], binding: str) -> list[str]:
    """The keys of ``binding`` (its defaults when absent from ``bindings``)."""
    return list(bindings.get(binding, DEFAULT_BINDINGS.get(binding, [])))
