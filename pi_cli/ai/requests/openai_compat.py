"""``compat`` flags of OpenAI-compatible servers: explicit model/provider values win, else detection.

pi resolves every field as ``explicit ?? detected`` where detection looks at the provider name and
the base URL. As in pi 1.6, only OpenAI's own API (provider ``openai`` or ``api.openai.com``) gets
the ``developer`` role for a reasoning model's system prompt — other hosts' chat templates often
reject it, and every host takes ``system`` — and no tool is sent with ``strict`` unless the model's
compat asks for it. Known quirks: cerebras, xai, chutes, deepseek, z.ai, moonshot, opencode and
cloudflare are "non-standard" (no ``store``); chutes, moonshot, mistral,
cloudflare's gateway and local servers (ollama, vLLM, LM Studio, llama.cpp) want ``max_tokens``;
xai, z.ai, moonshot and cloudflare's gateway take no ``reasoning_effort``; OpenRouter takes a
``reasoning`` object and, for ``anthropic/*`` models, Anthropic-style ``cache_control`` marks;
Mistral wants an assistant turn between a tool result and a user message and thinking as text.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from pi_cli.ai.types import Model

DEFAULTS: dict[str, Any] = {
    "supportsStore": True,
    "supportsDeveloperRole": False,
    "supportsReasoningEffort": True,
    "supportsUsageInStreaming": True,
    "maxTokensField": "max_completion_tokens",
    "requiresToolResultName": False,
    "requiresAssistantAfterToolResult": False,
    "requiresThinkingAsText": False,
    "requiresReasoningContentOnAssistantMessages": False,
    "thinkingFormat": "openai",
    "supportsStrictMode": False,
    "cacheControlFormat": None,
    "sendSessionAffinityHeaders": False,
    "supportsLongCacheRetention": True,
    "supportsFinishReason": True,
    "requiresMistralToolIds": False,
}

_LOCAL_PROVIDERS = {"ollama", "vllm", "lmstudio", "lm-studio", "llama.cpp", "llamacpp", "llama-cpp"}
_LOCAL_PORTS = {11434, 1234, 8000, 8080}


def _host_port(base_url: str) -> tuple[str, int | None]:
    try:
        parsed = urlparse(base_url)
        return (parsed.hostname or "").lower(), parsed.port
    except ValueError:
        return "", None


def detect_compat(model: Model) -> dict[str, Any]:
    """Flags implied by the provider name and base URL (only the ones that differ from defaults)."""
    provider = model.get("provider", "").lower()
    url = model.get("baseUrl", "").lower()
    host, port = _host_port(url)
    is_zai = provider == "zai" or "api.z.ai" in url or "bigmodel.cn" in url
    is_xai = provider == "xai" or "api.x.ai" in url
    is_moonshot = provider.startswith("moonshot") or "api.moonshot." in url
    is_deepseek = provider == "deepseek" or "deepseek.com" in url
    is_cf_gateway = provider == "cloudflare-ai-gateway" or "gateway.ai.cloudflare.com" in url
    is_cf = is_cf_gateway or provider.startswith("cloudflare") or "api.cloudflare.com" in url
    is_openrouter = provider == "openrouter" or "openrouter.ai" in url
    is_mistral = provider == "mistral" or "api.mistral.ai" in url
    is_chutes = "chutes.ai" in url
    is_groq = provider == "groq" or "groq.com" in url
    is_local = provider in _LOCAL_PROVIDERS or (
        provider not in {"openai", "openrouter"}
        and host in {"localhost", "127.0.0.1", "0.0.0.0", "::1"}
        and port in _LOCAL_PORTS
    )
    non_standard = (
        provider == "cerebras"
        or "cerebras.ai" in url
        or is_xai
        or is_chutes
        or is_deepseek
        or is_zai
        or is_moonshot
        or provider == "opencode"
        or "opencode.ai" in url
        or is_cf
    )
    out: dict[str, Any] = {}
    if provider == "openai" or "api.openai.com" in url:
        out["supportsDeveloperRole"] = True
    if non_standard or is_mistral or is_local:
        out["supportsStore"] = False
    if is_chutes or is_moonshot or is_cf_gateway or is_mistral or is_local or is_deepseek or is_zai:
        out["maxTokensField"] = "max_tokens"
    if is_xai or is_zai or is_moonshot or is_cf_gateway:
        out["supportsReasoningEffort"] = False
    if is_deepseek:
        out["thinkingFormat"] = "deepseek"
        out["requiresReasoningContentOnAssistantMessages"] = True
    elif is_zai:
        out["thinkingFormat"] = "zai"
    elif is_openrouter:
        out["thinkingFormat"] = "openrouter"
        if model.get("id", "").startswith("anthropic/"):
            out["cacheControlFormat"] = "anthropic"
    if is_mistral:
        out["requiresAssistantAfterToolResult"] = True
        out["requiresThinkingAsText"] = True
        out["requiresToolResultName"] = True
        out["requiresMistralToolIds"] = True
    if is_groq:
        out["supportsStore"] = False
    return out


def resolve_compat(model: Model) -> dict[str, Any]:
    """Every flag resolved: explicit ``model["compat"]`` values, else detected, else the default."""
    resolved = dict(DEFAULTS)
    resolved.update(detect_compat(model))
    explicit = model.get("compat") or {}
    resolved.update({key: value for key, value in explicit.items() if value is not None})
    return resolved
