"""auth.json: pi's format, 0600/0700 modes, atomic writes, key resolution, no keys in errors."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from pi_cli.config.auth import AuthError, AuthStore, clear_config_value_cache, resolve_config_value


@pytest.fixture(autouse=True)
def _agent_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    clear_config_value_cache()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_set_get_remove_with_private_modes(tmp_path: Path) -> None:
    store = AuthStore()
    assert store.path == tmp_path / "agent" / "auth.json"
    assert store.get("openai") is None and store.api_key("openai") is None
    store.set_api_key("openai", "sk-one")
    store.set_api_key("anthropic", "sk-two")
    assert mode(store.path) == 0o600
    assert mode(store.path.parent) == 0o700
    assert json.loads(store.path.read_text()) == {
        "openai": {"type": "api_key", "key": "sk-one"},
        "anthropic": {"type": "api_key", "key": "sk-two"},
    }
    fresh = AuthStore()
    assert fresh.get("openai") == {"type": "api_key", "key": "sk-one"}
    assert fresh.api_key("anthropic") == "sk-two" and fresh.has("anthropic")
    assert fresh.remove("openai") is True and fresh.remove("openai") is False
    assert AuthStore().providers() == ["anthropic"]
    assert mode(store.path) == 0o600
    assert sorted(p.name for p in store.path.parent.iterdir()) == ["auth.json"]


def test_ensure_file_creates_empty_object() -> None:
    store = AuthStore()
    store.ensure_file()
    assert json.loads(store.path.read_text()) == {} and mode(store.path) == 0o600


def test_oauth_records_are_kept_count_as_credentials_but_are_not_api_keys() -> None:
    # The access token comes from pi_cli.oauth (refreshing it when needed), never from api_key().
    store = AuthStore()
    store.path.parent.mkdir(parents=True)
    store.path.write_text(json.dumps({"anthropic": {"type": "oauth", "access": "tok", "refresh": "r", "expires": 1}}))
    assert store.api_key("anthropic") is None and store.has("anthropic")
    store.set_api_key("openai", "k")
    assert json.loads(store.path.read_text())["anthropic"]["type"] == "oauth"


def test_key_values_resolve_env_command_and_literal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MY_KEY_VAR", "from-env")
    store = AuthStore()
    store.set_api_key("a", "MY_KEY_VAR")
    store.set_api_key("b", "!printf ' cmd-key\\n'")
    store.set_api_key("c", "literal-key")
    store.set_api_key("d", "!exit 3")
    assert store.api_key("a") == "from-env"
    assert store.api_key("b") == "cmd-key"
    assert store.api_key("c") == "literal-key"
    assert store.api_key("d") is None


def test_command_results_are_cached(tmp_path: Path) -> None:
    counter = tmp_path / "count"
    cmd = f"!echo x >> {counter}; echo secret"
    assert resolve_config_value(cmd) == "secret"
    assert resolve_config_value(cmd) == "secret"
    assert counter.read_text().count("x") == 1
    clear_config_value_cache()
    resolve_config_value(cmd)
    assert counter.read_text().count("x") == 2


def test_broken_file_reports_without_key_and_is_not_clobbered() -> None:
    store = AuthStore()
    store.path.parent.mkdir(parents=True)
    broken = '{"openai": {"type": "api_key", "key": "sk-SECRET-123"},}'
    store.path.write_text(broken)
    assert store.api_key("openai") is None
    assert len(store.errors) == 1
    error = store.errors[0]
    assert "auth.json" in error and "line 1" in error and "\n" not in error
    assert "SECRET" not in error
    with pytest.raises(AuthError) as info:
        store.set_api_key("groq", "gsk-OTHER")
    assert "OTHER" not in str(info.value) and "SECRET" not in str(info.value)
    assert store.path.read_text() == broken
