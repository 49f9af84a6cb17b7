"""The built-in catalogue, cost arithmetic, env keys and thinking clamps."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pi_cli.ai import models
from pi_cli.ai.types import empty_usage

IMPLEMENTED_APIS = {
    "openai-completions",
    "openai-responses",
    "openai-codex-responses",
    "anthropic-messages",
    "google-generative-ai",
}
REQUIRED_PROVIDERS = {"anthropic", "openai", "google", "openrouter", "groq", "xai", "mistral", "cerebras"}


def test_catalogue_covers_required_providers_with_sane_fields() -> None:
    assert set(models.get_providers()) >= REQUIRED_PROVIDERS
    seen: set[tuple[str, str]] = set()
    for m in models.get_builtin_models():
        key = (m["provider"], m["id"])
        assert key not in seen, key
        seen.add(key)
        assert m["api"] in IMPLEMENTED_APIS
        assert m["baseUrl"].startswith("https://")
        assert 0 < m["maxTokens"] <= m["contextWindow"] * 2
        assert m["contextWindow"] >= 8000
        assert set(m["cost"]) == {"input", "output", "cacheRead", "cacheWrite"}
        assert all(v >= 0 for v in m["cost"].values())
        assert set(m["input"]) <= {"text", "image"} and "text" in m["input"]
    for provider in REQUIRED_PROVIDERS:
        assert len(models.get_builtin_models(provider)) >= 4, provider


def test_known_facts_from_pi_catalogue() -> None:
    opus = models.get_model("anthropic", "claude-opus-4-7")
    assert opus is not None
    assert opus["api"] == "anthropic-messages" and opus["baseUrl"] == "https://api.anthropic.com"
    assert (opus["contextWindow"], opus["maxTokens"]) == (1_000_000, 128_000)
    assert opus["cost"] == {"input": 5, "output": 25, "cacheRead": 0.5, "cacheWrite": 6.25}
    gemini = models.get_model("google", "gemini-2.5-pro")
    assert gemini is not None and gemini["baseUrl"] == "https://generativelanguage.googleapis.com/v1beta"
    assert gemini["api"] == "google-generative-ai"
    gpt = models.get_model("openai", "gpt-5.4")
    assert gpt is not None and gpt["api"] == "openai-responses" and gpt["baseUrl"] == "https://api.openai.com/v1"
    assert gpt.get("thinkingLevelMap") == {"off": None, "xhigh": "xhigh"}  # pi's: reasoning cannot be turned off
    for provider, model_id in models.DEFAULT_MODEL_PER_PROVIDER.items():
        assert models.get_model(provider, model_id) is not None, (provider, model_id)
    assert models.get_model("anthropic", "nope") is None
    assert models.get_model("nope", "claude-opus-4-7") is None


def test_returned_models_are_independent_copies() -> None:
    a = models.get_model("openai", "gpt-4o")
    assert a is not None
    a["cost"]["input"] = 999
    a["input"].append("image")
    b = models.get_model("openai", "gpt-4o")
    assert b is not None and b["cost"]["input"] == 2.5


def test_calculate_cost_mutates_usage() -> None:
    model = models.get_model("anthropic", "claude-sonnet-4-5")
    assert model is not None
    usage = empty_usage()
    usage.update(input=1_000_000, output=500_000, cacheRead=2_000_000, cacheWrite=100_000)
    cost = models.calculate_cost(model, usage)
    assert cost is usage["cost"]
    assert cost["input"] == pytest.approx(3.0)
    assert cost["output"] == pytest.approx(7.5)
    assert cost["cacheRead"] == pytest.approx(0.6)
    assert cost["cacheWrite"] == pytest.approx(0.375)
    assert cost["total"] == pytest.approx(3.0 + 7.5 + 0.6 + 0.375)


def test_env_api_key_names_and_precedence() -> None:
    env = {"ANTHROPIC_API_KEY": "a-key", "OPENAI_API_KEY": "", "GEMINI_API_KEY": "g"}
    assert models.env_api_key("anthropic", env) == "a-key"
    env["ANTHROPIC_OAUTH_TOKEN"] = "oauth"
    assert models.env_api_key("anthropic", env) == "oauth"
    assert models.env_api_key("openai", env) is None  # empty counts as unset
    assert models.env_api_key("google", env) == "g"
    assert models.env_api_key("unknown-provider", env) is None
    assert models.env_api_key("amazon-bedrock", {"AWS_PROFILE": "x"}) == models.AUTHENTICATED_MARKER
    assert models.env_api_key("amazon-bedrock", {"AWS_ACCESS_KEY_ID": "x"}) is None
    expected = {
        "openai": "OPENAI_API_KEY",
        "google": "GEMINI_API_KEY",
        "groq": "GROQ_API_KEY",
        "xai": "XAI_API_KEY",
        "openrouter": "OPENROUTER_API_KEY",
        "mistral": "MISTRAL_API_KEY",
        "cerebras": "CEREBRAS_API_KEY",
        "anthropic": "ANTHROPIC_API_KEY",
    }
    for provider, name in expected.items():
        assert models.env_var_name(provider) == name
        assert models.env_api_key(provider, {name: "k"}) == "k"
    assert models.env_var_name("my-local") is None


def test_env_api_key_reads_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GROQ_API_KEY", "from-env")
    assert models.env_api_key("groq") == "from-env"


def test_thinking_levels_and_clamp() -> None:
    gpt4o = models.get_model("openai", "gpt-4o")
    sonnet = models.get_model("anthropic", "claude-sonnet-4-5")
    opus = models.get_model("anthropic", "claude-opus-4-7")
    assert gpt4o and sonnet and opus
    assert models.supported_thinking_levels(gpt4o) == ["off"]
    assert models.clamp_thinking_level(gpt4o, "high") == "off"
    assert models.clamp_thinking_level(sonnet, "xhigh") == "high"  # nothing above: search downward
    assert models.clamp_thinking_level(opus, "xhigh") == "xhigh"
    assert models.clamp_thinking_level(sonnet, "medium") == "medium"
    custom = dict(sonnet, thinkingLevelMap={"minimal": None, "low": None})
    assert models.clamp_thinking_level(custom, "minimal") == "medium"  # upward first  # type: ignore[arg-type]
    assert models.clamp_thinking_level(sonnet, "bogus") == "off"


def test_models_are_equal() -> None:
    a = models.get_model("groq", "openai/gpt-oss-120b")
    b = models.get_model("openrouter", "openai/gpt-oss-120b")
    assert models.models_are_equal(a, models.get_model("groq", "openai/gpt-oss-120b"))
    assert not models.models_are_equal(a, b)
    assert not models.models_are_equal(a, None)


def test_import_is_light() -> None:
    code = (
        "import sys, pi_cli.ai.models as m; m.get_builtin_models();"
        "bad=[n for n in ('pydantic','httpx','textual') if n in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
