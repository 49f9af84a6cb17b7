"""The built-in model catalogue, cost arithmetic, env API keys and thinking-level helpers.

The catalogue lives in ``models_builtin.json`` next to this module: a handful of current models per
provider with pi's ids, context windows, output limits and $/Mtok prices (taken from pi's generated
model list). As in pi, ``openai`` models use the Responses API (``openai-responses``) and
``google`` models Gemini's native API (``google-generative-ai``), with pi's ``thinkingLevelMap``.

This module must stay cheap to import (``pi --version`` and ``--list-models`` reach it): stdlib
only, and the JSON is read on first use.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from pi_cli.ai.types import THINKING_LEVELS, Cost, Model, ThinkingLevel, Usage, js_number

_CATALOGUE_FILE = Path(__file__).with_name("models_builtin.json")
# Providers reached only through a subscription login: their models are listed once logged in.
LOGIN_ONLY_PROVIDERS = frozenset(("github-copilot", "openai-codex"))

# Environment variables holding each provider's API key, first set wins (pi-ai's env-api-keys).
ENV_KEY_NAMES: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"),
    "openai": ("OPENAI_API_KEY",),
    "google": ("GEMINI_API_KEY",),
    "google-vertex": ("GOOGLE_CLOUD_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "azure-openai-responses": ("AZURE_OPENAI_API_KEY",),
    "vercel-ai-gateway": ("AI_GATEWAY_API_KEY",),
    "zai": ("ZAI_API_KEY",),
    "minimax": ("MINIMAX_API_KEY",),
    "minimax-cn": ("MINIMAX_CN_API_KEY",),
    "moonshotai": ("MOONSHOT_API_KEY",),
    "moonshotai-cn": ("MOONSHOT_API_KEY",),
    "huggingface": ("HF_TOKEN",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "opencode": ("OPENCODE_API_KEY",),
    "opencode-go": ("OPENCODE_API_KEY",),
    "kimi-coding": ("KIMI_API_KEY",),
    "cloudflare-workers-ai": ("CLOUDFLARE_API_KEY",),
    "cloudflare-ai-gateway": ("CLOUDFLARE_API_KEY",),
    "xiaomi": ("XIAOMI_API_KEY",),
    "github-copilot": ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"),
}

# Bedrock authenticates through the AWS credential chain, not a key; any of these means "configured".
_AWS_CREDENTIAL_VARS = (
    "AWS_PROFILE",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
)
AUTHENTICATED_MARKER = "<authenticated>"

# The model each provider starts on when nothing else is chosen (pi 0.73.1's list where it has one).
DEFAULT_MODEL_PER_PROVIDER: dict[str, str] = {
    "anthropic": "claude-opus-4-7",
    "openai": "gpt-5.4",
    "google": "gemini-3.1-pro-preview",
    "openrouter": "anthropic/claude-sonnet-4.5",
    "xai": "grok-4-1-fast-non-reasoning",
    "groq": "openai/gpt-oss-120b",
    "cerebras": "zai-glm-4.7",
    "mistral": "devstral-medium-latest",
}


@lru_cache(maxsize=1)
def _catalogue() -> dict[str, list[dict[str, Any]]]:
    with _CATALOGUE_FILE.open(encoding="utf-8") as fh:
        raw: dict[str, list[dict[str, Any]]] = json.load(fh)
    for provider, models in raw.items():
        for model in models:
            model["provider"] = provider
    return raw


def copy_model(model: Model) -> Model:
    """A copy whose nested containers (cost, input, headers, compat) are independent of ``model``."""
    out: dict[str, Any] = dict(model)
    out["cost"] = dict(model["cost"])
    out["input"] = list(model["input"])
    for key in ("headers", "compat", "thinkingLevelMap"):
        if key in out and isinstance(out[key], dict):
            out[key] = json.loads(json.dumps(out[key]))
    return out  # type: ignore[return-value]


def get_providers() -> list[str]:
    """Providers with built-in models, in catalogue order."""
    return list(_catalogue())


def get_builtin_models(provider: str | None = None) -> list[Model]:
    """Fresh copies of the built-in models (all providers, or one); callers may mutate them."""
    cat = _catalogue()
    providers = [provider] if provider is not None else list(cat)
    return [copy_model(m) for p in providers for m in cat.get(p, [])]  # type: ignore[arg-type]


def get_model(provider: str, model_id: str) -> Model | None:
    """A copy of the built-in model ``provider/model_id``, or ``None``."""
    for model in _catalogue().get(provider, []):
        if model["id"] == model_id:
            return copy_model(model)  # type: ignore[arg-type]
    return None


def calculate_cost(model: Model, usage: Usage) -> Cost:
    """Fill ``usage["cost"]`` from the model's $/Mtok prices (in place, as pi does) and return it.

    A model without prices (or a missing price) costs nothing rather than failing mid-stream. As pi
    1.6: Anthropic's one-hour cache writes (``cacheWrite1h``) cost twice the input price, and the
    cost is marked ``totalFromProvider: false`` (our estimate, not the provider's bill).
    """
    prices: Any = model.get("cost") or {}
    cost = usage["cost"]
    long_write = usage.get("cacheWrite1h") or 0
    cost["input"] = prices.get("input", 0) / 1_000_000 * usage["input"]
    cost["output"] = prices.get("output", 0) / 1_000_000 * usage["output"]
    cost["cacheRead"] = prices.get("cacheRead", 0) / 1_000_000 * usage["cacheRead"]
    short_write = usage["cacheWrite"] - long_write
    cost["cacheWrite"] = (prices.get("cacheWrite", 0) * short_write + prices.get("input", 0) * 2 * long_write) / 1e6
    cost["total"] = cost["input"] + cost["output"] + cost["cacheRead"] + cost["cacheWrite"]
    for key in ("input", "output", "cacheRead", "cacheWrite", "total"):  # 0 and 2, not 0.0 and 2.0, as pi
        cost[key] = js_number(cost[key])
    cost["totalFromProvider"] = False
    return cost


def env_api_key(provider: str, environ: dict[str, str] | None = None) -> str | None:
    """The provider's API key from its environment variables (first non-empty wins), else ``None``.

    Bedrock, whose credentials come from the AWS chain, answers ``"<authenticated>"`` when any AWS
    credential variable is set. Unknown providers have no env key.
    """
    env = os.environ if environ is None else environ
    if provider == "amazon-bedrock":
        has_pair = bool(env.get("AWS_ACCESS_KEY_ID")) and bool(env.get("AWS_SECRET_ACCESS_KEY"))
        if has_pair or any(env.get(name) for name in _AWS_CREDENTIAL_VARS):
            return AUTHENTICATED_MARKER
        return None
    for name in ENV_KEY_NAMES.get(provider, ()):
        value = env.get(name)
        if value:
            return value
    return None


def env_var_name(provider: str) -> str | None:
    """The variable to suggest to a user for ``provider``, or ``None`` when it has none."""
    if provider == "anthropic":
        return "ANTHROPIC_API_KEY"  # the OAuth-token variable listed first is not what people set
    names = ENV_KEY_NAMES.get(provider)
    return names[0] if names else None


def models_are_equal(a: Model | None, b: Model | None) -> bool:
    """Same provider and id (pi's ``modelsAreEqual``); ``None`` never equals anything."""
    if a is None or b is None:
        return False
    return a["id"] == b["id"] and a["provider"] == b["provider"]


# --- thinking levels ------------------------------------------------------------------------

_XHIGH_MARKERS = ("gpt-5.2", "gpt-5.3", "gpt-5.4", "gpt-5.5", "opus-4-6", "opus-4.6", "opus-4-7", "opus-4.7")


def supports_xhigh(model: Model) -> bool:
    """Whether the model accepts ``xhigh`` (an explicit ``thinkingLevelMap`` entry, else pi's id list)."""
    level_map = model.get("thinkingLevelMap")
    if level_map is not None and "xhigh" in level_map:
        return level_map["xhigh"] is not None
    return any(marker in model["id"] for marker in _XHIGH_MARKERS)


def supported_thinking_levels(model: Model) -> list[ThinkingLevel]:
    """Levels the model accepts: ``["off"]`` for non-reasoning models; a ``null`` map entry removes one.

    ``max`` is offered only when the model's ``thinkingLevelMap`` maps it (pi 1.6's opt-in rule);
    ``xhigh`` also when the id is one of pi's known xhigh models (catalogue entries without a map).
    """
    if not model.get("reasoning"):
        return ["off"]
    level_map = model.get("thinkingLevelMap") or {}
    levels: list[ThinkingLevel] = []
    for level in THINKING_LEVELS:
        if level in level_map and level_map[level] is None:
            continue
        if level == "xhigh" and not supports_xhigh(model):
            continue
        if level == "max" and level_map.get("max") is None:
            continue
        levels.append(level)
    return levels


def clamp_thinking_level(model: Model, level: str) -> ThinkingLevel:
    """The nearest level the model supports, searching upward from ``level`` first, then downward."""
    available = supported_thinking_levels(model)
    if level in available:
        return level
    if level not in THINKING_LEVELS:
        return available[0]
    start = THINKING_LEVELS.index(level)
    for candidate in THINKING_LEVELS[start:]:
        if candidate in available:
            return candidate
    for candidate in reversed(THINKING_LEVELS[:start]):
        if candidate in available:
            return candidate
    return available[0]


def is_thinking_level(value: str) -> bool:
    """True for pi's level names (``off``, ``minimal`` … ``xhigh``, ``max``)."""
    return value in THINKING_LEVELS
