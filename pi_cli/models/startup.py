"""Choose the start-up model and thinking level (pi's order, spec §1.4).

1. ``--model`` (with ``--provider``; ``provider/id``, fuzzy, ``:level`` suffix). An unknown id on
   a known provider becomes a copy of that provider's first model with the new id (pi warns and
   does the same); an unknown provider or model is an error naming ``--list-models``.
2. the first ``--models`` scope entry;
3. the resumed session's model, when it still has credentials;
4. ``defaultProvider``/``defaultModel`` from settings;
5. the first model with credentials, preferring each provider's built-in default;
6. nothing configured: a local OpenAI-compatible server (unless offline), else the faux demo model.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from pi_cli.ai.types import THINKING_LEVELS, Model
from pi_cli.errors import MissingApiKeyError, ModelError, UsageError


class ModelFlags(Protocol):
    """The command-line choices the start-up model depends on (a ``SessionOptions`` has them)."""

    @property
    def provider(self) -> str | None: ...

    @property
    def model(self) -> str | None: ...

    @property
    def models(self) -> list[str] | None: ...

    @property
    def api_key(self) -> str | None: ...

    @property
    def offline(self) -> bool: ...


PREFERRED_DEFAULTS: dict[str, str] = {
    "anthropic": "claude-opus-4-7",
    "openai": "gpt-5.4",
    "google": "gemini-3.1-pro-preview",
}
DEMO_NOTICE = (
    "No model configured: using the offline demo model (it does not call an LLM). To use a real model, "
    "set an API key such as ANTHROPIC_API_KEY or OPENAI_API_KEY, add the key to auth.json, or define a "
    'provider in models.json (see the README\'s "Configuring a provider").'
)


@dataclass(slots=True)
class ModelChoice:
    model: Model
    thinking: str | None = None
    notices: list[str] = field(default_factory=list)
    extra_keys: dict[str, str] = field(default_factory=dict)
    extra_models: list[Model] = field(default_factory=list)
    scoped: list[tuple[Model, str | None]] = field(default_factory=list)
    source: str = "cli"


def _resolve(registry: Any, pattern: str) -> tuple[Model, str | None] | None:
    try:
        model, level = registry.resolve(pattern)
    except LookupError:
        return None
    return model, level


def resolve_cli_model(
    registry: Any, provider: str | None, pattern: str, notices: list[str]
) -> tuple[Model, str | None]:
    """``--provider``/``--model`` to a model and an optional thinking level from a ``:level`` suffix."""
    try:
        resolved = registry.resolve_cli(pattern, provider)
    except LookupError as exc:
        raise ModelError(f"Error: {exc}") from None
    if resolved.warning:
        notices.append(f"Warning: {resolved.warning}")
    return resolved.model, resolved.thinking_level


def scope_matches(registry: Any, pattern: str, has_key: Callable[[Model], bool]) -> list[tuple[Model, str | None]]:
    """``--models`` entries: a glob (``anthropic/*``, ``*sonnet*``) over available models'
    ``provider/id`` and ``id``, or one fuzzy pattern; each may end in ``:level``."""
    level: str | None = None
    head, colon, tail = pattern.rpartition(":")
    if colon and tail in THINKING_LEVELS:
        pattern, level = head, tail
    if any(ch in pattern for ch in "*?["):
        lowered = pattern.lower()
        return [
            (m, level)
            for m in registry.available_models()
            if has_key(m)
            and (
                fnmatch.fnmatchcase(f"{m['provider']}/{m['id']}".lower(), lowered)
                or fnmatch.fnmatchcase(m["id"].lower(), lowered)
            )
        ]
    found = _resolve(registry, pattern)
    if found is None:
        return []
    return [(found[0], level or found[1])]


def _first_available(registry: Any, has_key: Callable[[Model], bool]) -> Model | None:
    available: list[Model] = [m for m in registry.available_models() if has_key(m)]
    if not available:
        return None
    for provider, model_id in PREFERRED_DEFAULTS.items():
        for candidate in available:
            if candidate["provider"] == provider and candidate["id"] == model_id:
                return candidate
    first: Model = available[0]
    return first


def choose_model(
    options: ModelFlags,
    settings: Any,
    registry: Any,
    has_key: Callable[[Model], bool],
    session_model: dict[str, str] | None = None,
    probe: Callable[[], list[Model]] | None = None,
) -> ModelChoice:
    """Apply the order in the module docstring. Raises a ``PiError`` for a bad explicit choice."""
    notices: list[str] = []
    if options.api_key and not options.model:
        raise UsageError("Error: --api-key requires a model.", hint="Pass --model (or --provider and --model) with it.")
    scoped: list[tuple[Model, str | None]] = []
    for pattern in options.models or []:
        matches = scope_matches(registry, pattern, has_key)
        if not matches:
            notices.append(f'Warning: No models match pattern "{pattern}"')
        scoped.extend(m for m in matches if all(m[0] is not s[0] for s in scoped))
    if options.model:
        model, level = resolve_cli_model(registry, options.provider, options.model, notices)
        if not options.api_key and not has_key(model):
            raise MissingApiKeyError(model["provider"], registry.env_var_for(model["provider"]))
        return ModelChoice(model, level, notices, scoped=scoped, source="cli")
    if scoped:
        return ModelChoice(scoped[0][0], scoped[0][1], notices, scoped=scoped, source="scope")
    if session_model:
        stored: Model | None = registry.find(session_model.get("provider", ""), session_model.get("modelId", ""))
        if stored is not None and has_key(stored):
            return ModelChoice(stored, None, notices, source="session")
    default_provider = getattr(settings, "default_provider", None)
    default_model = getattr(settings, "default_model", None)
    if default_provider and default_model:
        saved: Model | None = registry.find(default_provider, default_model)
        if saved is not None and has_key(saved):
            return ModelChoice(saved, None, notices, source="settings")
    fallback = _first_available(registry, has_key)
    if fallback is not None:
        return ModelChoice(fallback, None, notices, source="available")
    if probe is not None and not options.offline:
        local = probe()
        if local:
            first = local[0]
            notices.append(f"No API key configured: using {first['id']} from the local server at {first['baseUrl']}.")
            return ModelChoice(
                first, None, notices, extra_keys={first["provider"]: "local"}, extra_models=local, source="local"
            )
    from pi_cli.ai.providers.faux_demo import DEMO_MODEL

    notices.append(DEMO_NOTICE)
    return ModelChoice(DEMO_MODEL, None, notices, extra_models=[DEMO_MODEL], source="demo")


def configuration_problem(registry: Any, settings: Any) -> str | None:
    """Why a start-up that fell back to the demo model had something configured that could not be
    used (models.json problems, a saved default model that is gone or has no key), or None when
    nothing was configured at all — then the demo is the right answer."""
    errors = [str(line) for line in getattr(registry, "errors", []) or []]
    if errors:
        return errors[0]
    default_provider = getattr(settings, "default_provider", None)
    default_model = getattr(settings, "default_model", None)
    if default_provider and default_model:
        return f'the saved default model "{default_provider}/{default_model}" is not available (no key, or unknown)'
    return None
