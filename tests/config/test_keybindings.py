"""keybindings.json: pi's ids and defaults, overrides, legacy names, bad files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pi_cli.config.keybindings import DEFAULT_BINDINGS, keys_for, load_keybindings, normalize_key


@pytest.fixture
def kb_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path))
    monkeypatch.delenv("WSL_DISTRO_NAME", raising=False)
    monkeypatch.delenv("WSL_INTEROP", raising=False)
    return tmp_path / "keybindings.json"


def test_defaults_for_the_actions_the_tui_needs(kb_file: Path) -> None:
    bindings, errors = load_keybindings()
    assert errors == []
    expected = {
        "tui.input.submit": ["enter"],
        "tui.input.newLine": ["shift+enter", "ctrl+j"],
        "app.message.followUp": ["alt+enter"],
        "app.interrupt": ["escape"],
        "app.clear": ["ctrl+c"],
        "app.exit": ["ctrl+d"],
        "app.model.cycleForward": ["ctrl+p"],
        "app.model.cycleBackward": ["ctrl+shift+p"],
        "app.model.select": ["ctrl+l"],
        "app.thinking.cycle": ["shift+tab"],
        "app.thinking.toggle": ["ctrl+t"],
        "app.tools.expand": ["ctrl+o"],
        "app.message.dequeue": ["alt+up"],
        "tui.editor.cursorUp": ["up"],
        "tui.editor.cursorDown": ["down"],
    }
    for binding, keys in expected.items():
        assert bindings[binding] == keys, binding
    assert all(k == normalize_key(k) for keys in DEFAULT_BINDINGS.values() for k in keys)


def test_overrides_legacy_names_and_unbinding(kb_file: Path) -> None:
    kb_file.write_text(
        json.dumps(
            {
                "tui.input.submit": "ctrl+Enter",
                "app.message.followUp": ["Alt+Enter", "shift+ctrl+f"],
                "selectModel": "ctrl+k",  # legacy flat name
                "app.thinking.toggle": [],  # unbind
            }
        )
    )
    bindings, errors = load_keybindings()
    assert errors == []
    assert bindings["tui.input.submit"] == ["ctrl+enter"]
    assert bindings["app.message.followUp"] == ["alt+enter", "ctrl+shift+f"]
    assert bindings["app.model.select"] == ["ctrl+k"]
    assert bindings["app.thinking.toggle"] == []
    assert bindings["app.clear"] == ["ctrl+c"]  # untouched ids keep defaults
    assert keys_for(bindings, "app.model.select") == ["ctrl+k"]


def test_namespaced_id_wins_over_legacy_name(kb_file: Path) -> None:
    kb_file.write_text(json.dumps({"selectModel": "ctrl+k", "app.model.select": "ctrl+y"}))
    bindings, errors = load_keybindings()
    assert bindings["app.model.select"] == ["ctrl+y"] and errors == []


def test_bad_entries_are_reported_and_skipped(kb_file: Path) -> None:
    kb_file.write_text(
        json.dumps({"app.clear": 5, "app.nope": "ctrl+x", "app.exit": "ctrl+q", "app.suspend": "ctrl+q"})
    )
    bindings, errors = load_keybindings()
    assert bindings["app.clear"] == ["ctrl+c"] and bindings["app.exit"] == ["ctrl+q"]
    text = "\n".join(errors)
    assert "app.clear: expected a key string" in text
    assert 'unknown binding id "app.nope"' in text
    assert 'key "ctrl+q" is bound to app.exit, app.suspend' in text
    assert len(errors) == 3 and all(str(kb_file) in e for e in errors)


def test_invalid_json_names_line_and_uses_defaults(kb_file: Path) -> None:
    kb_file.write_text('{\n  "app.clear": "ctrl+x",\n  "app.exit" "ctrl+q"\n}\n')
    bindings, errors = load_keybindings()
    assert bindings == DEFAULT_BINDINGS
    assert len(errors) == 1 and "line 3, column 14" in errors[0] and str(kb_file) in errors[0]
    kb_file.write_text("[]")
    assert "expected a JSON object" in load_keybindings()[1][0]


def test_normalize_key() -> None:
    assert normalize_key("Shift+Ctrl+P") == "ctrl+shift+p"
    assert normalize_key("ctrl+-") == "ctrl+-"
    assert normalize_key("ctrl++") == "ctrl++"
    assert normalize_key("ESC") == "escape"
    assert normalize_key("pageUp") == "pageup"
    assert normalize_key("  ") == ""


def test_wsl_swaps_chords_like_pi(tmp_path: Path) -> None:
    code = (
        "from pi_cli.config.keybindings import DEFAULT_BINDINGS as d;"
        "print(d['app.message.followUp'], d['app.model.cycleBackward'])"
    )
    env = {"PATH": "/usr/bin:/bin", "WSL_DISTRO_NAME": "Ubuntu", "PI_CODING_AGENT_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    if sys.platform.startswith("linux"):
        assert out.stdout.split() == ["['ctrl+q']", "['alt+p']"]
