"""Theme files in pi's format: values, vars, fallbacks, discovery order, one warning per bad file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_cli.resources.themes import (
    TOKENS,
    ThemeError,
    builtin_themes,
    contrast_ratio,
    discover_themes,
    parse_theme,
    xterm_hex,
)

BASE = {True: builtin_themes()["dark"], False: builtin_themes()["light"]}


def write(folder: Path, name: str, data: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_builtins_are_complete_and_readable() -> None:
    for name, theme in builtin_themes().items():
        assert set(TOKENS) <= set(theme.colors), name
        background = theme.export["pageBg"]
        assert contrast_ratio(theme.color("text"), background) >= 4.5  # body text, WCAG AA
        assert contrast_ratio(theme.color("muted"), background) >= 4.5
    assert builtin_themes()["dark"].dark and not builtin_themes()["light"].dark


def test_values_vars_indexes_and_defaults() -> None:
    theme = parse_theme(
        {"name": "mine", "vars": {"brand": "#0af", "alias": "brand"},
         "colors": {"accent": "alias", "error": 196, "text": "", "mdHeading": "#FFAA00"},
         "export": {"pageBg": "#ffffff"}},
        "mine.json", BASE,
    )  # fmt: skip
    assert theme.color("accent") == "#00aaff" and theme.color("error") == "#ff0000"
    assert theme.color("text") == "" and theme.color("mdHeading") == "#ffaa00"
    assert not theme.dark  # a white page: the light built-in fills the rest
    assert theme.color("toolSuccessBg") == BASE[False].color("toolSuccessBg")
    assert xterm_hex(232) == "#080808" and xterm_hex(16) == "#000000"


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"colors": {}}, "name"),
        ({"name": "x", "colors": {"accent": "nope"}}, "colors.accent"),
        ({"name": "x", "colors": {"accent": 300}}, "colors.accent"),
        ({"name": "x", "colors": {"notAToken": "#000000"}}, "colors.notAToken"),
        ({"name": "x", "vars": {"a": "b", "b": "a"}, "colors": {"accent": "a"}}, "colors.accent"),
        ({"name": "x", "colors": []}, "colors"),
    ],
)
def test_a_bad_value_names_its_field(data: object, field: str) -> None:
    with pytest.raises(ThemeError, match=rf"t\.json: {field}"):
        parse_theme(data, "t.json", BASE)


def test_discovery_order_trust_and_warnings(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    write(agent / "themes", "ocean", {"name": "ocean", "colors": {"accent": "#112233"}})
    write(agent / "themes", "broken", '{"name": "broken",\n "colors": {')
    write(cwd / ".pi" / "themes", "ocean", {"name": "ocean", "colors": {"accent": "#445566"}})
    package = write(tmp_path / "pkg" / "themes", "sunset", {"name": "sunset", "colors": {"accent": "#ff8800"}})
    catalog = discover_themes(cwd, agent, selected="ocean", package_paths={"user_themes": [str(package.parent)]})
    assert catalog.active().color("accent") == "#445566"  # the trusted project wins the clash
    assert "sunset" in catalog.names() and catalog.names()[:3] == ["system", "dark", "light"]
    assert len(catalog.warnings) == 1 and "broken.json:2: invalid JSON" in catalog.warnings[0]
    untrusted = discover_themes(cwd, agent, selected="ocean", project_trusted=False)
    assert untrusted.active().color("accent") == "#112233"
    off = discover_themes(cwd, agent, selected="ocean", no_themes=True, cli_paths=[str(package)])
    assert "ocean" not in off.themes and "sunset" in off.themes  # --theme paths load with --no-themes
    assert any("Unknown theme 'ocean'" in w for w in off.warnings)
    assert off.active().name == "dark"


def test_pairs_and_system_follow_the_terminal(tmp_path: Path) -> None:
    catalog = discover_themes(tmp_path, tmp_path / "agent", selected="light/dark")
    assert catalog.active(terminal_dark=True).name == "dark"
    assert catalog.active(terminal_dark=False).name == "light"
    assert catalog.active().name == "dark"  # unknown terminal: dark
    assert catalog.resolve("system", terminal_dark=False).name == "light"
    assert catalog.problem("light/dark") is None and catalog.problem("nope/dark") is not None


def test_inline_markdown_takes_the_theme_colours(tmp_path: Path) -> None:
    import io

    from rich.console import Console
    from rich.markdown import Markdown

    from pi_cli.modes.inline.theming import rich_theme

    write(tmp_path / "themes", "ocean", {"name": "ocean", "colors": {"mdHeading": "#ff8800", "mdCode": ""}})
    theme = discover_themes(tmp_path, tmp_path / "agent", selected="ocean", cli_paths=[str(tmp_path / "themes")])
    styles = rich_theme(theme.active()).styles
    assert str(styles["markdown.h1"]) == "bold underline #ff8800"
    assert styles["markdown.code"].color is not None  # from the dark built-in: the file left it empty
    out = io.StringIO()
    Console(file=out, force_terminal=True, color_system="truecolor", theme=rich_theme(theme.active())).print(
        Markdown("# Title")
    )
    assert "38;2;255;136;0" in out.getvalue()  # the heading drawn in the theme's colour


def test_terminal_background_answers_are_parsed() -> None:
    from pi_cli.modes.terminal_colors import parse_background, query_background

    assert parse_background(b"\x1b]11;rgb:ffff/ffff/ffff\x07") == "#ffffff"
    assert parse_background(b"junk\x1b]11;rgb:1e1e/1e1e/2e2e\x1b\\") == "#1e1e2e"
    assert parse_background(b"\x1b]11;rgb:f/8/0\x07") == "#ff8800"
    assert parse_background(b"no answer") is None
    assert query_background() is None  # not a terminal here: nothing is asked


def test_system_is_built_from_the_terminals_colours_and_stays_readable(tmp_path: Path) -> None:
    from pi_cli.modes.terminal_colors import FULL_QUERY, parse_palette
    from pi_cli.resources.themes import TerminalPalette

    answer = (
        b"\x1b]10;rgb:9090/9090/9090\x07"  # a grey foreground: too dim on this background
        b"\x1b]4;1;rgb:8000/0000/0000\x07\x1b]4;4;rgb:0000/0000/8080\x1b\\"
        b"\x1b]11;rgb:2020/2020/2020\x07"
    )
    palette = parse_palette(answer)
    assert palette == TerminalPalette("#202020", "#909090", {1: "#800000", 4: "#000080"})
    assert parse_palette(b"\x1b]11;rgb:2020/2020/20") is None  # half an answer is not a colour
    assert FULL_QUERY.endswith(b"\x1b]11;?\x07")  # the background last: its answer ends the wait
    catalog = discover_themes(tmp_path, tmp_path / "agent", selected="system")
    catalog.terminal = palette
    theme = catalog.active()
    assert theme.name == "system" and theme.dark and theme.export["pageBg"] == "#202020"
    for token in ("text", "muted", "error", "accent", "mdLink", "thinkingText"):
        assert contrast_ratio(theme.color(token), "#202020") >= 4.5, token
    assert theme.color("error") != BASE[True].color("error")  # the terminal's red, made readable
    assert catalog.resolve("dark").name == "dark"  # other names are unaffected
