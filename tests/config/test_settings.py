"""settings.json: defaults, global + project merge, broken files, atomic saves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_cli.config.settings import Settings, SettingsError, load_settings, save_global_setting, save_project_setting


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    agent = tmp_path / "agent"
    cwd = tmp_path / "proj"
    agent.mkdir()
    (cwd / ".pi").mkdir(parents=True)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    return agent, cwd


def write(path: Path, data: object) -> None:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")


def test_defaults_match_pi(dirs: tuple[Path, Path]) -> None:
    _, cwd = dirs
    s, errors = load_settings(cwd)
    assert errors == []
    assert s.compaction.enabled is True
    assert (s.compaction.reserve_tokens, s.compaction.keep_recent_tokens) == (16384, 20000)
    assert (s.retry.enabled, s.retry.max_retries, s.retry.base_delay_ms) == (True, 3, 2000)
    assert s.retry.provider.max_retry_delay_ms == 60000
    assert s.steering_mode == s.follow_up_mode == "one-at-a-time"
    assert s.theme == "dark" and s.quiet_startup is False and s.ui == "tui"
    assert s.default_thinking_level is None and s.default_model is None
    assert s.double_escape_action == "tree"


def test_global_and_project_merge_deeply(dirs: tuple[Path, Path]) -> None:
    agent, cwd = dirs
    write(
        agent / "settings.json",
        {
            "defaultProvider": "anthropic",
            "defaultModel": "claude-sonnet-4-5",
            "theme": "light",
            "retry": {"maxRetries": 5, "baseDelayMs": 100},
            "enabledModels": ["a", "b"],
            "myExtension": {"x": 1},
        },
    )
    write(
        cwd / ".pi" / "settings.json",
        {
            "defaultModel": "claude-opus-4-7",
            "retry": {"maxRetries": 1},
            "enabledModels": ["c"],
            "compaction": {"enabled": False},
            "steeringMode": "all",
        },
    )
    s, errors = load_settings(cwd)
    assert errors == []
    assert s.default_provider == "anthropic" and s.default_model == "claude-opus-4-7"
    assert s.retry.max_retries == 1 and s.retry.base_delay_ms == 100  # nested objects merge
    assert s.enabled_models == ["c"]  # arrays replace
    assert s.compaction.enabled is False and s.compaction.reserve_tokens == 16384
    assert s.steering_mode == "all" and s.theme == "light"
    assert s.model_extra == {"myExtension": {"x": 1}}
    assert s.to_json()["myExtension"] == {"x": 1}
    # camelCase reads work at runtime for callers using pi's names
    assert getattr(s, "defaultModel") == "claude-opus-4-7"  # noqa: B009
    assert getattr(s.retry, "maxRetries") == 1  # noqa: B009


def test_json_syntax_error_names_file_line_and_column(dirs: tuple[Path, Path]) -> None:
    agent, cwd = dirs
    write(agent / "settings.json", '{\n  "theme": "light",\n  "quietStartup": true\n  "x": 1\n}\n')
    write(cwd / ".pi" / "settings.json", {"defaultModel": "m"})
    s, errors = load_settings(cwd)
    assert len(errors) == 1
    line = errors[0]
    assert "\n" not in line
    assert str(agent / "settings.json") in line
    assert "line 4, column 3" in line
    assert "defaults" in line
    assert s.theme == "dark"  # the broken file contributed nothing
    assert s.default_model == "m"  # the good one still applies


def test_wrong_type_names_field_and_keeps_the_rest(dirs: tuple[Path, Path]) -> None:
    _, cwd = dirs
    write(
        cwd / ".pi" / "settings.json",
        {
            "retry": {"maxRetries": "lots", "baseDelayMs": 10},
            "steeringMode": "sometimes",
            "theme": "light",
        },
    )
    s, errors = load_settings(cwd)
    joined = "\n".join(errors)
    assert len(errors) == 2
    assert "retry.maxRetries" in joined and "steeringMode" in joined
    assert str(cwd / ".pi" / "settings.json") in joined
    assert all("\n" not in e for e in errors)
    assert s.retry.max_retries == 3 and s.retry.base_delay_ms == 10
    assert s.steering_mode == "one-at-a-time" and s.theme == "light"


def test_non_object_file_and_blank_file(dirs: tuple[Path, Path]) -> None:
    agent, cwd = dirs
    write(agent / "settings.json", "[1, 2]")
    write(cwd / ".pi" / "settings.json", "   \n")
    s, errors = load_settings(cwd)
    assert len(errors) == 1 and "expected a JSON object" in errors[0]
    assert s == Settings()


def test_save_global_setting_preserves_unknown_keys(dirs: tuple[Path, Path]) -> None:
    agent, cwd = dirs
    path = agent / "settings.json"
    write(path, {"custom": {"keep": True}, "theme": "light"})
    save_global_setting("defaultModel", "gpt-5.4")
    save_global_setting("compaction.enabled", False)
    save_global_setting("theme", None)
    data = json.loads(path.read_text())
    assert data == {"custom": {"keep": True}, "defaultModel": "gpt-5.4", "compaction": {"enabled": False}}
    assert [p.name for p in agent.iterdir()] == ["settings.json"]  # no temp files left behind
    s, errors = load_settings(cwd)
    assert errors == [] and s.default_model == "gpt-5.4" and s.compaction.enabled is False


def test_save_creates_missing_dirs_and_refuses_to_clobber_broken_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = tmp_path / "new" / "agent"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    save_global_setting("quietStartup", True)
    assert json.loads((agent / "settings.json").read_text()) == {"quietStartup": True}
    (agent / "settings.json").write_text("{oops")
    with pytest.raises(SettingsError) as info:
        save_global_setting("theme", "light")
    assert "settings.json" in str(info.value) and "\n" not in str(info.value)
    assert (agent / "settings.json").read_text() == "{oops"
    save_project_setting(tmp_path / "p", "theme", "light")
    assert json.loads((tmp_path / "p" / ".pi" / "settings.json").read_text()) == {"theme": "light"}


def test_union_list_error_is_reported_once(dirs: tuple[Path, Path]) -> None:
    agent, cwd = dirs
    write(agent / "settings.json", {"packages": ["npm:ok", 7], "terminal": {"imageWidthCells": "wide"}})
    s, errors = load_settings(cwd)
    assert len(errors) == 2
    assert "packages[1]:" in errors[0] and "terminal.imageWidthCells:" in errors[1]
    assert s.packages == [] and s.terminal.image_width_cells is None


def test_camel_case_assignment_sets_the_field() -> None:
    s = Settings()
    setattr(s, "steeringMode", "all")  # noqa: B010
    assert s.steering_mode == "all" and s.model_extra == {}
    s.retry.enabled = False
    assert s.to_json()["retry"]["enabled"] is False
