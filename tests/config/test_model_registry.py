"""ModelRegistry: built-ins + models.json (custom providers, overrides, compat), broken files,
credentials order, !cmd keys, pattern resolution and the --list-models table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_cli.ai.models import ENV_KEY_NAMES
from pi_cli.config.auth import AuthStore, clear_config_value_cache
from pi_cli.models.registry import ModelNotFoundError, ModelRegistry, is_local_url, redacted
from pi_cli.models.resolver import format_model_list, format_token_count, fuzzy_filter

ALL_KEY_VARS = sorted({name for names in ENV_KEY_NAMES.values() for name in names})


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in [*ALL_KEY_VARS, "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_BEARER_TOKEN_BEDROCK"]:
        monkeypatch.delenv(name, raising=False)
    directory = tmp_path / "agent"
    directory.mkdir()
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(directory))
    clear_config_value_cache()
    return directory


def write_models(agent: Path, data: object) -> None:
    (agent / "models.json").write_text(data if isinstance(data, str) else json.dumps(data, indent=2))


def registry() -> ModelRegistry:
    return ModelRegistry().load()


FAKE = {
    "providers": {
        "fake": {
            "baseUrl": "http://127.0.0.1:9999/v1",
            "api": "openai-completions",
            "apiKey": "sk-fake",
            "compat": {"supportsDeveloperRole": False, "openRouterRouting": {"only": ["a"]}},
            "models": [
                {"id": "fake-model"},
                {
                    "id": "fake-think",
                    "name": "Fake Thinker",
                    "reasoning": True,
                    "input": ["text", "image"],
                    "contextWindow": 32000,
                    "maxTokens": 4000,
                    "cost": {"input": 1, "output": 2},
                    "compat": {"maxTokensField": "max_tokens", "openRouterRouting": {"order": ["b"]}},
                },
            ],
        }
    }
}


def test_builtins_only_and_nothing_available_without_keys(agent: Path) -> None:
    reg = registry()
    assert reg.errors == []
    assert {"anthropic", "openai", "google", "groq"} <= set(reg.providers())
    assert reg.available_models() == []
    assert reg.default_model() is None
    assert reg.api_key_for(reg.find("openai", "gpt-4o")) is None  # type: ignore[arg-type]
    assert reg.env_var_for("openai") == "OPENAI_API_KEY" and reg.env_var_for("nope") is None


def test_custom_provider_defaults_and_compat_merge(agent: Path) -> None:
    write_models(agent, FAKE)
    reg = registry()
    assert reg.errors == []
    plain = reg.find("fake", "fake-model")
    assert plain is not None
    assert plain == {
        "id": "fake-model",
        "name": "fake-model",
        "api": "openai-completions",
        "provider": "fake",
        "baseUrl": "http://127.0.0.1:9999/v1",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 128000,
        "maxTokens": 16384,
        "compat": {"supportsDeveloperRole": False, "openRouterRouting": {"only": ["a"]}},
    }
    think = reg.find("fake", "fake-think")
    assert think is not None
    assert think["name"] == "Fake Thinker" and think["reasoning"] is True and think["input"] == ["text", "image"]
    assert (think["contextWindow"], think["maxTokens"]) == (32000, 4000)
    assert think["cost"] == {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0}
    assert think["compat"] == {
        "supportsDeveloperRole": False,
        "maxTokensField": "max_tokens",
        "openRouterRouting": {"only": ["a"], "order": ["b"]},
    }
    assert reg.api_key_for(plain) == "sk-fake"
    assert [m["id"] for m in reg.available_models()] == ["fake-model", "fake-think"]
    assert reg.default_model() == plain


def test_builtin_provider_overrides_and_model_overrides(agent: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROXY_TOKEN", "tok-123")
    write_models(
        agent,
        {
            "providers": {
                "anthropic": {
                    "baseUrl": "https://proxy.example/anthropic",
                    "headers": {"X-Proxy": "PROXY_TOKEN"},
                    "modelOverrides": {
                        "claude-sonnet-4-5": {"name": "Sonnet via proxy", "maxTokens": 1000, "cost": {"input": 9}}
                    },
                },
                "openai": {"models": [{"id": "gpt-4o", "contextWindow": 5000}, {"id": "my-finetune"}]},
            }
        },
    )
    reg = registry()
    assert reg.errors == []
    sonnet = reg.find("anthropic", "claude-sonnet-4-5")
    assert sonnet is not None
    assert sonnet["baseUrl"] == "https://proxy.example/anthropic"
    assert sonnet["headers"] == {"X-Proxy": "tok-123"}
    assert sonnet["name"] == "Sonnet via proxy" and sonnet["maxTokens"] == 1000
    assert sonnet["cost"] == {"input": 9, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}
    assert sonnet["contextWindow"] == 200000  # untouched fields keep the built-in value
    opus = reg.find("anthropic", "claude-opus-4-7")
    assert opus is not None and opus["baseUrl"] == "https://proxy.example/anthropic" and opus["maxTokens"] == 128000
    # custom models on a built-in provider: api and baseUrl come from the built-in, same id replaces
    gpt4o = [m for m in reg.all_models() if m["provider"] == "openai" and m["id"] == "gpt-4o"]
    assert len(gpt4o) == 1 and gpt4o[0]["contextWindow"] == 5000 and gpt4o[0]["api"] == "openai-responses"
    finetune = reg.find("openai", "my-finetune")
    assert finetune is not None and finetune["baseUrl"] == "https://api.openai.com/v1"
    assert redacted(sonnet)["headers"] == {"X-Proxy": "***"} and sonnet["headers"]["X-Proxy"] == "tok-123"


def test_json_syntax_error_keeps_builtins(agent: Path) -> None:
    write_models(agent, '{\n  "providers": {\n    "x": {"baseUrl": "http://h"},\n    "y" {}\n  }\n}\n')
    reg = registry()
    assert len(reg.errors) == 1
    line = reg.errors[0]
    assert str(agent / "models.json") in line and "line 4, column 9" in line and "\n" not in line
    assert reg.find("anthropic", "claude-opus-4-7") is not None


def test_bad_provider_and_bad_model_are_skipped_alone(agent: Path) -> None:
    write_models(
        agent,
        {
            "providers": {
                "good": {
                    "baseUrl": "http://localhost:1234/v1",
                    "api": "openai-completions",
                    "apiKey": "sk-good-SECRET",
                    "models": [
                        {"id": "ok"},
                        {"id": "bad-window", "contextWindow": "big"},
                        {"name": "no id"},
                        {"id": "ok2", "input": ["video"]},
                    ],
                },
                "nobase": {"apiKey": "sk-nobase-SECRET", "api": "openai-completions", "models": [{"id": "m"}]},
                "noapi": {"baseUrl": "https://remote.example/v1", "apiKey": "k", "models": [{"id": "m"}]},
                "remote-nokey": {
                    "baseUrl": "https://remote.example/v1",
                    "api": "openai-completions",
                    "models": [{"id": "m"}],
                },
                "notobject": 5,
                "empty": {},
            }
        },
    )
    reg = registry()
    assert [m["id"] for m in reg.all_models() if m["provider"] == "good"] == ["ok"]
    assert not any(m["provider"] in {"nobase", "noapi", "remote-nokey", "notobject", "empty"} for m in reg.all_models())
    text = "\n".join(reg.errors)
    assert "providers.good.models[1] (bad-window).contextWindow" in text
    assert "providers.good.models[2].id" in text
    assert "providers.good.models[3] (ok2).input" in text
    assert 'providers.nobase: "baseUrl" is required' in text
    assert 'providers.noapi.models[0] (m): no "api" specified' in text
    assert 'providers.remote-nokey: "apiKey" is required' in text
    assert "providers.notobject: expected an object" in text
    assert "providers.empty: must specify" in text
    assert len(reg.errors) == 8
    assert all(str(agent / "models.json") in e for e in reg.errors)
    assert "SECRET" not in text


def test_local_models_need_no_key(agent: Path) -> None:
    write_models(
        agent,
        {
            "providers": {
                "ollama": {
                    "baseUrl": "http://localhost:11434/v1",
                    "api": "openai-completions",
                    "models": [{"id": "qwen3:8b"}],
                }
            }
        },
    )
    reg = registry()
    assert reg.errors == []
    model = reg.find("ollama", "qwen3:8b")
    assert model is not None and reg.is_available(model) and reg.api_key_for(model) is None
    assert reg.available_models() == [model]
    assert is_local_url("http://127.0.0.1:8080") and is_local_url("http://[::1]:1/v1")
    assert not is_local_url("https://api.openai.com/v1")


def test_key_order_runtime_auth_env_models_json(agent: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_models(agent, {"providers": {"openai": {"apiKey": "from-models-json"}}})
    reg = registry()
    gpt = reg.find("openai", "gpt-4o")
    assert gpt is not None
    assert reg.api_key_for(gpt) == "from-models-json"
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    assert reg.api_key_for(gpt) == "from-env"
    AuthStore().set_api_key("openai", "from-auth")
    reg.auth.reload()
    assert reg.api_key_for(gpt) == "from-auth"
    reg.set_runtime_api_key("openai", "from-flag")
    assert reg.api_key_for(gpt) == "from-flag"
    assert reg.has_auth("openai") and not reg.has_auth("groq")


def test_command_keys_and_headers_run_once(agent: Path, tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    write_models(
        agent,
        {
            "providers": {
                "corp": {
                    "baseUrl": "https://llm.corp.example/v1",
                    "api": "openai-completions",
                    "apiKey": f"!echo run >> {counter}; echo sk-from-cmd",
                    "authHeader": True,
                    "headers": {"X-Team": "!printf team-7"},
                    "models": [{"id": "a"}, {"id": "b"}],
                }
            }
        },
    )
    reg = registry()
    a, b = reg.find("corp", "a"), reg.find("corp", "b")
    assert a is not None and b is not None
    assert reg.api_key_for(a) == "sk-from-cmd" and reg.api_key_for(b) == "sk-from-cmd"
    assert a["headers"] == {"X-Team": "team-7", "Authorization": "Bearer sk-from-cmd"}
    assert counter.read_text().count("run") == 1
    assert "sk-from-cmd" not in json.dumps(redacted(a))


def test_resolve_exact_fuzzy_and_thinking_suffix(agent: Path) -> None:
    write_models(agent, FAKE)
    reg = registry()
    assert reg.resolve("fake/fake-model") == (reg.find("fake", "fake-model"), None)
    assert reg.resolve("FAKE-MODEL")[0]["id"] == "fake-model"
    model, level = reg.resolve("anthropic/claude-opus-4-7:high")
    assert (model["id"], level) == ("claude-opus-4-7", "high")
    model, level = reg.resolve("sonnet-4-5:low")
    assert (model["provider"], model["id"], level) == ("anthropic", "claude-sonnet-4-5", "low")  # alias, not dated
    assert reg.resolve("opus")[0]["id"] == "claude-opus-4-7"  # highest alias
    assert reg.resolve("Fake Thinker")[0]["id"] == "fake-think"  # display name
    assert reg.resolve("gpt-4o", provider="OpenAI")[0]["provider"] == "openai"
    assert reg.resolve("openai/gpt-5")[0]["id"] == "gpt-5"
    # ids with colons are tried whole before a suffix is split off
    write_models(
        agent,
        {
            "providers": {
                "ollama": {
                    "baseUrl": "http://localhost:11434/v1",
                    "api": "openai-completions",
                    "models": [{"id": "qwen3:8b"}],
                }
            }
        },
    )
    reg.load()
    assert reg.resolve("qwen3:8b") == (reg.find("ollama", "qwen3:8b"), None)
    assert reg.resolve("qwen3:8b:high")[1] == "high"


def test_resolve_errors_list_close_matches(agent: Path) -> None:
    reg = registry()
    with pytest.raises(ModelNotFoundError) as info:
        reg.resolve("claude-opus-4-77x")
    message = str(info.value)
    assert message.startswith('Model "claude-opus-4-77x" not found.') and "\n" not in message
    assert "anthropic/claude-opus-4-7" in message and "Did you mean" in message
    with pytest.raises(ModelNotFoundError, match='Unknown provider "nope"'):
        reg.resolve("x", provider="nope")
    with pytest.raises(ModelNotFoundError, match="groq/openai/gpt-oss-120b"):
        reg.resolve("openai/gpt-oss-120b:bogus")  # suggestions come from every provider
    with pytest.raises(ModelNotFoundError, match="not found"):
        reg.resolve("gpt-4o:bogus")  # an invalid suffix is part of the id for --model


def test_ambiguous_bare_id_prefers_the_authenticated_provider(agent: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reg = registry()
    with pytest.raises(ModelNotFoundError, match="groq/openai/gpt-oss-120b, openrouter/openai/gpt-oss-120b"):
        reg.resolve("openai/gpt-oss-120b")  # "openai" provider has no such id; two literal-id matches
    monkeypatch.setenv("GROQ_API_KEY", "g")
    assert reg.resolve("openai/gpt-oss-120b")[0]["provider"] == "groq"


def test_resolve_cli_custom_id_fallback(agent: Path) -> None:
    reg = registry()
    resolved = reg.resolve_cli("claude-next-9:high", provider="anthropic")
    assert resolved.model["id"] == resolved.model["name"] == "claude-next-9"
    assert resolved.model["provider"] == "anthropic" and resolved.model["api"] == "anthropic-messages"
    assert resolved.thinking_level == "high"
    assert resolved.warning == 'Model "claude-next-9" not found for provider "anthropic". Using custom model id.'
    assert reg.find("anthropic", "claude-next-9") is None  # not added to the registry
    with pytest.raises(ModelNotFoundError):
        reg.resolve("claude-next-9", provider="anthropic")


def test_list_models_table(agent: Path) -> None:
    write_models(agent, FAKE)
    reg = registry()
    out = reg.format_list()
    lines = out.splitlines()
    assert lines[0].split() == ["provider", "model", "context", "max-out", "thinking", "images"]
    assert lines[1].split() == ["fake", "fake-model", "128K", "16.4K", "no", "no"]
    assert lines[2].split() == ["fake", "fake-think", "32K", "4K", "yes", "yes"]
    assert lines[1].index("fake-model") == lines[0].index("model")  # columns aligned
    assert reg.format_list("think").splitlines()[1].split()[1] == "fake-think"
    assert reg.format_list("zzz") == 'No models matching "zzz"'
    assert format_model_list([]) == "No models available. Set API keys in environment variables."
    assert [format_token_count(n) for n in (999, 1000, 200000, 16384, 1_000_000, 1_048_576)] == [
        "999",
        "1K",
        "200K",
        "16.4K",
        "1M",
        "1.0M",
    ]


def test_fuzzy_filter_orders_best_first() -> None:
    items = ["anthropic claude-sonnet-4-5", "openai gpt-5", "openai gpt-4o", "groq openai/gpt-oss-120b"]
    assert fuzzy_filter(items, "gpt5", lambda s: s)[0] == "openai gpt-5"
    assert fuzzy_filter(items, "openai 4o", lambda s: s) == ["openai gpt-4o"]
    assert fuzzy_filter(items, "", lambda s: s) == items
    assert fuzzy_filter(items, "xyz", lambda s: s) == []


def test_broken_auth_json_is_reported_without_the_key(agent: Path) -> None:
    (agent / "auth.json").write_text('{"openai": {"type": "api_key", "key": "sk-LEAK-42"}')
    reg = registry()
    assert len(reg.errors) == 1 and "auth.json" in reg.errors[0]
    assert "LEAK" not in reg.errors[0]
    assert reg.available_models() == []


def test_unsupported_api_is_kept_with_a_warning(agent: Path) -> None:
    write_models(
        agent,
        {
            "providers": {
                "resp": {
                    "baseUrl": "https://r.example/v1",
                    "apiKey": "k",
                    "api": "bedrock-converse-stream",
                    "models": [
                        {"id": "r1"},
                        {"id": "r2", "api": "openai-completions"},
                        {"id": "r3", "api": "carrier-pigeon"},
                    ],
                }
            }
        },
    )
    reg = registry()
    assert [m["id"] for m in reg.all_models() if m["provider"] == "resp"] == ["r1", "r2", "r3"]
    assert len(reg.errors) == 2
    assert '(r1): api "bedrock-converse-stream" is not supported by pi_cli yet' in reg.errors[0]
    assert '"carrier-pigeon" is not a known api' in reg.errors[1]


def test_responses_gemini_and_codex_apis_are_accepted(agent: Path) -> None:
    models = [
        {"id": "r1", "api": "openai-responses"},
        {"id": "g1", "api": "google-generative-ai"},
        {"id": "c1", "api": "openai-codex-responses"},
    ]
    write_models(agent, {"providers": {"mine": {"baseUrl": "https://m.example/v1", "apiKey": "k", "models": models}}})
    reg = registry()
    assert reg.errors == []
    assert {m["id"]: m["api"] for m in reg.all_models() if m["provider"] == "mine"} == {
        "r1": "openai-responses",
        "g1": "google-generative-ai",
        "c1": "openai-codex-responses",
    }
