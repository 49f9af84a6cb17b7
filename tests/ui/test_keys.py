"""keybindings.json → Textual keymap."""

from __future__ import annotations

import json
from pathlib import Path

from pi_cli.modes.interactive.keys import load_keymap, to_textual_key


def test_overrides_use_pi_ids_and_legacy_names(tmp_path: Path) -> None:
    path = tmp_path / "keybindings.json"
    path.write_text(json.dumps({"app.model.select": "ctrl+k", "followUp": ["ctrl+q"], "app.clear": "ctrl+c"}))
    keymap, problems = load_keymap(path)
    assert keymap["app.model.select"] == "ctrl+k"
    assert keymap["app.message.followUp"] == "ctrl+q"
    assert "app.clear" not in keymap  # unchanged default
    assert problems == []


def test_missing_and_broken_files(tmp_path: Path) -> None:
    assert load_keymap(tmp_path / "absent.json") == ({}, [])
    bad = tmp_path / "keybindings.json"
    bad.write_text("{nope")
    keymap, problems = load_keymap(bad)
    assert keymap == {} and len(problems) == 1 and str(bad) in problems[0]


def test_key_spelling(tmp_path: Path) -> None:
    assert to_textual_key("shift+ctrl+p") == "ctrl+shift+p"
    assert to_textual_key("Esc") == "escape"
    path = tmp_path / "keybindings.json"
    path.write_text(json.dumps({"selectModel": 5}))
    keymap, warnings = load_keymap(path)
    assert keymap == {} and "selectModel" in warnings[0]
