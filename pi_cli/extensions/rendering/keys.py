"""Key data for custom components: what ``handle_input(data)`` receives and how to name it.

A component gets keys as the terminal data strings pi's components get (legacy xterm encoding):
``"\\x1b[A"`` for Up, ``"\\r"`` for Enter, ``"\\x1b"`` for Escape, ``"\\x03"`` for Ctrl-C, a
printable character as itself. ``matches_key(data, "ctrl+c")`` and :class:`Key` are pi-tui's
``matchesKey``/``Key`` for Python; :class:`Keybindings` is the ``keybindings`` handle a factory
gets (``matches(data, "tui.select.confirm")``, pi's default keys for the ids components use).
Front ends turn their own key events into data with :func:`key_data`.
"""

from __future__ import annotations

from collections.abc import Iterable

_NAMED: dict[str, str] = {
    "up": "\x1b[A",
    "down": "\x1b[B",
    "right": "\x1b[C",
    "left": "\x1b[D",
    "home": "\x1b[H",
    "end": "\x1b[F",
    "insert": "\x1b[2~",
    "delete": "\x1b[3~",
    "pageup": "\x1b[5~",
    "pagedown": "\x1b[6~",
    "enter": "\r",
    "escape": "\x1b",
    "tab": "\t",
    "backspace": "\x7f",
    "space": " ",
    "shift+tab": "\x1b[Z",
    "shift+enter": "\x1b[13;2u",  # kitty's encoding: legacy terminals cannot tell it from Enter
    "alt+enter": "\x1b\r",
    "alt+backspace": "\x1b\x7f",
    "ctrl+space": "\x00",
}
# xterm's modifier parameter for arrows and home/end: 1 + shift(1) + alt(2) + ctrl(4)
_ARROWS = {"up": "A", "down": "B", "right": "C", "left": "D", "home": "H", "end": "F"}
_MODIFIER_CODES = {"shift": 1, "alt": 2, "ctrl": 4}
_ALIASES = {
    "return": "enter",
    "esc": "escape",
    "pgup": "pageup",
    "pgdn": "pagedown",
    "del": "delete",
    "bs": "backspace",
}
_MOD_ORDER = {"ctrl": 0, "alt": 1, "shift": 2, "super": 3}


def normalize_key(key_id: str) -> str:
    """A key id in one spelling: lower case, modifiers ordered ctrl, alt, shift, aliases resolved
    (``Shift+Ctrl+P`` → ``ctrl+shift+p``, ``return`` → ``enter``, ``pageUp`` → ``pageup``)."""
    parts = [part.strip() for part in key_id.split("+")]
    if key_id.endswith("++"):  # "ctrl++": the plus key itself
        parts = [*parts[:-2], "+"]
    *mods, name = parts or [""]
    lowered = name.lower()
    name = _ALIASES.get(lowered, lowered if len(name) > 1 else name)
    ordered = sorted({m.lower() for m in mods if m}, key=lambda m: _MOD_ORDER.get(m, 9))
    return "+".join([*ordered, name])


def _build_table() -> dict[str, str]:
    table = dict(_NAMED)
    for letter in "abcdefghijklmnopqrstuvwxyz":
        table[f"ctrl+{letter}"] = chr(ord(letter) - 96)
        table[f"alt+{letter}"] = "\x1b" + letter
    for symbol, code in (("[", 27), ("\\", 28), ("]", 29), ("^", 30), ("_", 31), ("-", 31)):
        table.setdefault(f"ctrl+{symbol}", chr(code))
    for name, final in _ARROWS.items():
        for mods in (("shift",), ("alt",), ("ctrl",), ("ctrl", "shift"), ("alt", "shift"), ("ctrl", "alt")):
            code = 1 + sum(_MODIFIER_CODES[m] for m in mods)
            table["+".join([*mods, name])] = f"\x1b[1;{code}{final}"
    # Ctrl-H/Ctrl-I/Ctrl-M are the same bytes as Backspace(BS)/Tab/Enter: the names win on reading
    return table


_DATA = _build_table()
_BY_DATA: dict[str, str] = {}
for _key, _data in _DATA.items():
    _BY_DATA.setdefault(_data, _key)
# "\n" stays Ctrl-J (pi's newline key in editors); "\x08" is what many terminals send for Backspace
_BY_DATA.update({"\r": "enter", "\t": "tab", "\x1b": "escape", "\x7f": "backspace", "\x08": "backspace"})
_BY_DATA.update(
    {"\x1bOA": "up", "\x1bOB": "down", "\x1bOC": "right", "\x1bOD": "left", "\x1bOH": "home", "\x1bOF": "end"}
)


def key_data(key_id: str, character: str | None = None) -> str | None:
    """The data a component receives for ``key_id`` (pi's spelling, any modifier order); for a
    key without a name, ``character`` when it is printable; None when there is nothing to send."""
    key = normalize_key(key_id)
    if key in _DATA:
        return _DATA[key]
    if len(key) == 1:
        return key
    if key.startswith("shift+") and len(key) == 7:
        return key[-1].upper()
    if character and character.isprintable():
        return character
    return None


def parse_key(data: str) -> str | None:
    """The key id ``data`` encodes (``"\\x1b[A"`` → ``"up"``, ``"A"`` → ``"A"``), None when unknown."""
    if data in _BY_DATA:
        return _BY_DATA[data]
    if len(data) == 1 and data.isprintable():
        return data
    return None


def matches_key(data: str, key_id: str) -> bool:
    """pi-tui's ``matchesKey``: whether ``data`` is the key ``key_id`` (``"escape"``, ``"ctrl+c"``,
    ``"shift+tab"``, ``"a"``, ``"return"``…)."""
    key = normalize_key(key_id)
    parsed = parse_key(data)
    if parsed is None:
        return False
    if parsed == key:
        return True
    if key.startswith("shift+") and len(key) == 7:  # shift+a is the typed "A"
        return parsed == key[-1].upper()
    return False


class Key:
    """pi-tui's ``Key`` names: ``Key.escape``, ``Key.enter``, ``Key.up``… and builders for chords
    (``Key.ctrl("c")`` → ``"ctrl+c"``); use them with :func:`matches_key`."""

    escape = "escape"
    esc = "escape"
    enter = "enter"
    return_ = "enter"
    tab = "tab"
    space = "space"
    backspace = "backspace"
    delete = "delete"
    insert = "insert"
    home = "home"
    end = "end"
    up = "up"
    down = "down"
    left = "left"
    right = "right"
    pageup = "pageup"
    pagedown = "pagedown"
    page_up = "pageup"
    page_down = "pagedown"

    ctrl = staticmethod(lambda key: f"ctrl+{key}")
    alt = staticmethod(lambda key: f"alt+{key}")
    shift = staticmethod(lambda key: f"shift+{key}")
    ctrl_shift = staticmethod(lambda key: f"ctrl+shift+{key}")


# pi-tui's defaults for the keybinding ids components check (``keybindings.matches(data, id)``).
DEFAULT_COMPONENT_KEYS: dict[str, tuple[str, ...]] = {
    "tui.select.up": ("up",),
    "tui.select.down": ("down",),
    "tui.select.pageUp": ("pageup",),
    "tui.select.pageDown": ("pagedown",),
    "tui.select.confirm": ("enter",),
    "tui.select.cancel": ("escape", "ctrl+c"),
    "tui.input.submit": ("enter",),
    "tui.input.newLine": ("shift+enter", "ctrl+j"),
    "tui.input.tab": ("tab",),
    "tui.input.copy": ("ctrl+c",),
    "tui.editor.cursorUp": ("up",),
    "tui.editor.cursorDown": ("down",),
    "tui.editor.cursorLeft": ("left", "ctrl+b"),
    "tui.editor.cursorRight": ("right", "ctrl+f"),
    "tui.editor.cursorLineStart": ("home", "ctrl+a"),
    "tui.editor.cursorLineEnd": ("end", "ctrl+e"),
    "tui.editor.deleteCharBackward": ("backspace",),
    "tui.editor.deleteCharForward": ("delete", "ctrl+d"),
    "tui.editor.deleteToLineStart": ("ctrl+u",),
    "tui.editor.deleteToLineEnd": ("ctrl+k",),
}


class Keybindings:
    """The ``keybindings`` a component factory gets: ``matches(data, id)`` for pi's keybinding ids
    (pi's default keys, or the ones given), ``get_keys(id)`` lists them."""

    def __init__(self, keys: dict[str, Iterable[str]] | None = None) -> None:
        table = dict(DEFAULT_COMPONENT_KEYS)
        table.update({key: tuple(value) for key, value in (keys or {}).items()})
        self._keys: dict[str, tuple[str, ...]] = {key: tuple(value) for key, value in table.items()}

    def matches(self, data: str, binding_id: str) -> bool:
        return any(matches_key(data, key) for key in self._keys.get(binding_id, ()))

    def get_keys(self, binding_id: str) -> list[str]:
        return list(self._keys.get(binding_id, ()))
