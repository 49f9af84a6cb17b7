"""Themes in pi's theme-file format: discovery, parsing, and the one active theme.

A theme file is JSON ``{"name", "vars": {...}, "colors": {token: value}, "export": {...}}``. A
value is ``"#rrggbb"`` (or ``"#rgb"``), an xterm-256 index (0–255), the name of a ``vars`` entry
(which may itself name another var), or ``""`` for the terminal's default colour. ``colors`` uses
pi's token names (:data:`TOKENS`); ``export`` colours HTML exports (``pageBg``, ``cardBg``,
``infoBg``). A file may leave tokens out: they come from the built-in theme of its kind (light or
dark, judged by its page background, else its user-message background), so a theme that only
changes a few colours stays short. Parsed colours are plain ``#rrggbb`` strings or ``""``.

Where themes come from, later ones winning a name clash: the built-ins ``dark`` and ``light``;
the agent dir's ``themes/*.json``; the ``themes`` entries of settings (files or folders, relative
ones under the agent dir);
installed packages' ``themes/`` folders; a trusted project's ``.pi/themes/*.json``; ``--theme``
paths. ``--no-themes`` turns discovery off (the built-ins and ``--theme`` paths stay). A file that
cannot be used is left out with one warning naming the file and the field.

The setting ``theme`` (or ``--use-theme``) names the active theme. ``"light/dark"``-style pairs
(``"<for a light terminal>/<for a dark one>"``) follow the terminal's background when the front
end knows it (:meth:`ThemeCatalog.active`), dark otherwise. ``system`` is built from the colours
the terminal reported (:func:`system_theme`: its background, foreground and ANSI colours, text
kept at ≥ 4.5:1 contrast), or is the built-in of its kind when it reported none.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TOKENS: tuple[str, ...] = (
    # core UI
    "accent", "border", "borderAccent", "borderMuted", "success", "error", "warning", "muted", "dim",
    "text", "thinkingText",
    # backgrounds and content
    "selectedBg", "userMessageBg", "userMessageText", "customMessageBg", "customMessageText",
    "customMessageLabel", "toolPendingBg", "toolSuccessBg", "toolErrorBg", "toolTitle", "toolOutput",
    # markdown
    "mdHeading", "mdLink", "mdLinkUrl", "mdCode", "mdCodeBlock", "mdCodeBlockBorder", "mdQuote",
    "mdQuoteBorder", "mdHr", "mdListBullet",
    # diffs
    "toolDiffAdded", "toolDiffRemoved", "toolDiffContext",
    # syntax highlighting
    "syntaxComment", "syntaxKeyword", "syntaxFunction", "syntaxVariable", "syntaxString", "syntaxNumber",
    "syntaxType", "syntaxOperator", "syntaxPunctuation",
    # thinking-level borders, bash mode
    "thinkingOff", "thinkingMinimal", "thinkingLow", "thinkingMedium", "thinkingHigh", "thinkingXhigh",
    "bashMode",
)  # fmt: skip
"""pi's colour tokens: the names a theme file's ``colors`` holds."""

EXPORT_KEYS: tuple[str, ...] = ("pageBg", "cardBg", "infoBg")
BUILTIN_NAMES: tuple[str, ...] = ("dark", "light")
FOLLOWING = "system"  # the theme that follows the terminal
_BUILTIN_DIR = Path(__file__).with_name("builtin_themes")
_HEX = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_SYSTEM16 = (
    "#000000", "#800000", "#008000", "#808000", "#000080", "#800080", "#008080", "#c0c0c0",
    "#808080", "#ff0000", "#00ff00", "#ffff00", "#0000ff", "#ff00ff", "#00ffff", "#ffffff",
)  # fmt: skip


class ThemeError(ValueError):
    """A theme file that cannot be used; the message names the file and the field."""


@dataclass(frozen=True, slots=True)
class Theme:
    """A resolved theme: every token of :data:`TOKENS` and every key of :data:`EXPORT_KEYS` maps to
    ``#rrggbb`` or ``""`` (the terminal's default). ``source``: "builtin" or the file it came from."""

    name: str
    colors: Mapping[str, str]
    export: Mapping[str, str]
    dark: bool
    source: str = "builtin"

    def color(self, token: str) -> str:
        """The colour of ``token`` ("" for the terminal default; unknown tokens too)."""
        return self.colors.get(token, "")


def xterm_hex(index: int) -> str:
    """The ``#rrggbb`` of xterm-256 colour ``index`` (the usual values for 0–15)."""
    if index < 16:
        return _SYSTEM16[index]
    if index < 232:
        index -= 16
        levels = [0 if v == 0 else 55 + 40 * v for v in (index // 36, (index // 6) % 6, index % 6)]
        return "#" + "".join(f"{v:02x}" for v in levels)
    gray = 8 + 10 * (index - 232)
    return f"#{gray:02x}{gray:02x}{gray:02x}"


def luminance(color: str) -> float:
    """WCAG relative luminance of ``#rrggbb``."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast_ratio(first: str, second: str) -> float:
    """WCAG contrast ratio of two ``#rrggbb`` colours (1 to 21)."""
    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@dataclass(frozen=True, slots=True)
class TerminalPalette:
    """What the terminal reported of its colours (``#rrggbb``): background, foreground and the
    ANSI colours it answered for (index → colour; 1 red, 2 green, 3 yellow, 4 blue, 5 magenta,
    6 cyan)."""

    background: str
    foreground: str = ""
    ansi: Mapping[int, str] = field(default_factory=dict)


def _mix(first: str, second: str, share: float) -> str:
    """``first`` moved ``share`` (0–1) of the way to ``second``."""
    a = [int(first[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(second[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * share):02x}" for x, y in zip(a, b, strict=True))


def readable(color: str, background: str, ratio: float = 4.5) -> str:
    """``color``, moved toward white or black (whichever the background is farther from) just
    enough to reach ``ratio`` contrast against ``background`` (WCAG AA body text: 4.5)."""
    target = "#ffffff" if luminance(background) < 0.5 else "#000000"
    share = 0.0
    while contrast_ratio(color, background) < ratio and share < 1.0:
        share = min(1.0, share + 0.05)
        color = _mix(color, target, share)
    return color


def system_theme(base: Theme, terminal: TerminalPalette) -> Theme:
    """The ``system`` theme: ``base`` (the built-in of the terminal's kind) recoloured from the
    terminal's own background, foreground and ANSI colours, every text colour kept at ≥ 4.5:1
    contrast against the background (backgrounds are tints of it)."""
    bg = terminal.background
    fg = readable(terminal.foreground or base.color("text") or ("#e4e4e7" if base.dark else "#1f1f24"), bg)
    ansi = terminal.ansi
    colors = dict(base.colors)
    for tokens, index in (
        (("error", "toolDiffRemoved"), 1), (("success", "toolDiffAdded", "bashMode"), 2),
        (("warning", "mdHeading"), 3), (("accent", "border", "mdLink"), 4),
        (("customMessageLabel", "thinkingHigh"), 5), (("borderAccent", "mdCode"), 6),
    ):  # fmt: skip
        if index in ansi:
            for token in tokens:
                colors[token] = readable(ansi[index], bg)
    colors["text"] = fg
    for token in ("muted", "thinkingText", "toolOutput", "toolDiffContext", "mdQuote"):
        colors[token] = readable(_mix(fg, bg, 0.35), bg)
    colors["dim"] = readable(_mix(fg, bg, 0.5), bg, 3.0)
    for token, share in (("userMessageBg", 0.1), ("selectedBg", 0.16), ("customMessageBg", 0.08),
                         ("toolPendingBg", 0.06)):  # fmt: skip
        colors[token] = _mix(bg, fg, share)
    colors["toolSuccessBg"] = _mix(bg, colors["success"], 0.12)
    colors["toolErrorBg"] = _mix(bg, colors["error"], 0.12)
    export = {"pageBg": bg, "cardBg": _mix(bg, fg, 0.05), "infoBg": _mix(bg, colors["warning"], 0.1)}
    return Theme(FOLLOWING, colors, export, luminance(bg) < 0.2, "terminal")


def _resolve(value: Any, variables: Mapping[str, Any], where: str, seen: tuple[str, ...] = ()) -> str:
    if isinstance(value, bool):
        raise ThemeError(f"{where}: expected a colour, got {json.dumps(value)}")
    if isinstance(value, int):
        if not 0 <= value <= 255:
            raise ThemeError(f"{where}: colour index {value} is not 0-255")
        return xterm_hex(value)
    if not isinstance(value, str):
        raise ThemeError(f"{where}: expected a colour, got {json.dumps(value)}")
    if value == "":
        return ""
    if _HEX.fullmatch(value):
        return "#" + "".join(c * 2 for c in value[1:]).lower() if len(value) == 4 else value.lower()
    if value in variables:
        if value in seen:
            raise ThemeError(f"{where}: variable '{value}' refers to itself")
        return _resolve(variables[value], variables, where, (*seen, value))
    raise ThemeError(f"{where}: '{value}' is not a colour (#rrggbb, 0-255, \"\") or a variable of vars")


def _is_dark(export: Mapping[str, str], colors: Mapping[str, str]) -> bool | None:
    background = export.get("pageBg") or colors.get("userMessageBg") or ""
    return luminance(background) < 0.2 if background else None


def parse_theme(data: Any, where: str, base: Mapping[bool, Theme] | None = None, *, source: str = "builtin") -> Theme:
    """A :class:`Theme` from a parsed theme file; raises :class:`ThemeError` naming ``where`` and
    the field. Tokens the file leaves out come from ``base[dark]`` (the built-in of its kind)."""
    if not isinstance(data, dict):
        raise ThemeError(f"{where}: a theme file holds a JSON object")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ThemeError(f"{where}: name: a theme needs a name")
    variables = data.get("vars", {})
    for key in ("vars", "colors", "export"):
        if not isinstance(data.get(key, {}), dict):
            raise ThemeError(f"{where}: {key}: expected an object")
    colors = {k: _resolve(v, variables, f"{where}: colors.{k}") for k, v in data.get("colors", {}).items()}
    unknown = sorted(set(colors) - set(TOKENS))
    if unknown and not unknown[0].startswith("statusLine"):  # pi's status-line tokens: accepted, unused
        raise ThemeError(f"{where}: colors.{unknown[0]}: not a theme token")
    export = {k: _resolve(v, variables, f"{where}: export.{k}") for k, v in data.get("export", {}).items()}
    dark = _is_dark(export, colors)
    dark = True if dark is None else dark
    if base is not None:
        fallback = base[dark]
        colors = {**fallback.colors, **colors}
        export = {**fallback.export, **export}
    missing = next((t for t in TOKENS if t not in colors), None)
    if missing is not None:
        raise ThemeError(f"{where}: colors.{missing}: missing")
    return Theme(name.strip(), colors, {k: export.get(k, "") for k in EXPORT_KEYS}, dark, source)


def load_theme_file(path: Path, base: Mapping[bool, Theme]) -> Theme:
    """The theme in ``path`` (see :func:`parse_theme`); unreadable or invalid JSON is a
    :class:`ThemeError` naming the file and line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ThemeError(f"{path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ThemeError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    return parse_theme(data, str(path), base, source=str(path))


def builtin_themes() -> dict[str, Theme]:
    """The shipped ``dark`` and ``light`` themes (complete: they need no base)."""
    themes = {}
    for name in BUILTIN_NAMES:
        path = _BUILTIN_DIR / f"{name}.json"
        themes[name] = parse_theme(json.loads(path.read_text(encoding="utf-8")), str(path))
    return themes


@dataclass(slots=True)
class ThemeCatalog:
    """Every theme found, by name, plus the warnings for files left out. ``selected`` is the
    setting's (or ``--use-theme``'s) value: a name, a ``light/dark`` pair, or ``system``."""

    themes: dict[str, Theme] = field(default_factory=builtin_themes)
    warnings: list[str] = field(default_factory=list)
    selected: str = "dark"
    terminal: TerminalPalette | None = None  # what the terminal reported, when a front end asked
    # ``system`` as last built: (palette, base, theme). Built once per palette, not per lookup:
    # extensions' renderers ask for the active theme on every update of a running tool.
    _system: tuple[TerminalPalette, Theme, Theme] | None = field(default=None, init=False, repr=False)

    def names(self) -> list[str]:
        """The names to offer in a picker: ``system`` and the built-ins first, then the rest."""
        rest = sorted(name for name in self.themes if name not in BUILTIN_NAMES)
        return [FOLLOWING, *BUILTIN_NAMES, *rest]

    def active(self, terminal_dark: bool | None = None) -> Theme:
        """The theme ``selected`` names, for a terminal whose background is dark (True), light
        (False) or unknown (None: taken as dark). An unknown name falls back to the built-in."""
        return self.resolve(self.selected, terminal_dark)

    def resolve(self, value: str, terminal_dark: bool | None = None) -> Theme:
        """The theme for a setting value (see :meth:`active`)."""
        if terminal_dark is None and self.terminal is not None:
            terminal_dark = luminance(self.terminal.background) < 0.2
        dark = terminal_dark is not False
        value = (value or FOLLOWING).strip()
        if value == FOLLOWING:
            base = self.themes["dark" if dark else "light"]
            return base if self.terminal is None else self._system_theme(base, self.terminal)
        if "/" in value and value not in self.themes:
            light_name, _, dark_name = value.partition("/")
            value = dark_name if dark else light_name
        return self.themes.get(value) or self.themes["dark" if dark else "light"]

    def _system_theme(self, base: Theme, terminal: TerminalPalette) -> Theme:
        built = self._system
        if built is None or built[0] is not terminal or built[1] is not base:
            built = self._system = (terminal, base, system_theme(base, terminal))
        return built[2]

    def problem(self, value: str) -> str | None:
        """A warning when ``value`` names no theme (None when it does)."""
        names = [part for part in (value or "").split("/") if part] if "/" in (value or "") else [value]
        unknown = [name for name in names if name and name != FOLLOWING and name not in self.themes]
        if not unknown:
            return None
        return f"Unknown theme '{unknown[0]}' (available: {', '.join(self.names())}); using the built-in"


def _theme_files(entry: Path) -> list[Path]:
    if entry.is_dir():
        return sorted(entry.glob("*.json"))
    return [entry] if entry.suffix == ".json" or entry.is_file() else []


def discover_themes(
    cwd: Path,
    agent_dir: Path,
    *,
    selected: str = "dark",
    project_trusted: bool = True,
    settings_paths: Sequence[str] = (),
    package_paths: Mapping[str, Sequence[str]] | None = None,
    cli_paths: Sequence[str] = (),
    no_themes: bool = False,
) -> ThemeCatalog:
    """Every theme for a session in ``cwd`` (see the module docstring for the order)."""
    catalog = ThemeCatalog(selected=selected)
    base = {True: catalog.themes["dark"], False: catalog.themes["light"]}
    packaged = package_paths or {}
    sources: list[Iterable[str | Path]] = []
    if not no_themes:
        sources.append([agent_dir / "themes"])
        sources.append([p if Path(p).expanduser().is_absolute() else agent_dir / p for p in settings_paths])
        sources.append(packaged.get("user_themes", ()))
        if project_trusted:
            sources.append(packaged.get("project_themes", ()))
            sources.append([cwd / ".pi" / "themes"])
    sources.append(cli_paths)
    for group in sources:
        for raw in group:
            entry = Path(raw).expanduser()
            if not entry.exists():
                if raw in cli_paths:
                    catalog.warnings.append(f"{entry}: theme file not found")
                continue
            for path in _theme_files(entry):
                try:
                    theme = load_theme_file(path, base)
                except ThemeError as exc:
                    catalog.warnings.append(f"Theme left out: {exc}")
                    continue
                catalog.themes[theme.name] = theme
    problem = catalog.problem(selected)
    if problem is not None:
        catalog.warnings.append(problem)
    return catalog
