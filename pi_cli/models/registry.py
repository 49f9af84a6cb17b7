"""All models pi_cli can use: the built-in catalogue plus ``models.json``, with their credentials.

``models.json`` uses pi's schema::

    {"providers": {"<name>": {"baseUrl", "apiKey", "api", "headers", "compat", "authHeader",
                              "models": [{"id", "name", "api", "reasoning", "input", "cost",
                                          "contextWindow", "maxTokens", "headers", "compat",
                                          "thinkingLevelMap"}],
                              "modelOverrides": {"<built-in id>": {...partial model...}}}}}

A provider with ``models`` adds (or replaces, by id) models; a built-in provider's name with only
``baseUrl``/``headers``/``compat``/``apiKey`` re-routes its built-in models; ``modelOverrides``
patch single built-in models. Custom model defaults: name = id, reasoning false, input
``["text"]``, zero cost, contextWindow 128000, maxTokens 16384. ``apiKey`` and header values go
through :func:`~pi_cli.config.auth.resolve_config_value` (``!cmd``, env var name, literal).

A broken file never stops loading: a JSON syntax error drops ``models.json`` (built-ins remain);
a bad provider or model is skipped. Each problem is one line in :attr:`ModelRegistry.errors`
naming the file and the line or field. No key or header value ever appears in those lines.

Credentials for a provider, first found wins: a runtime key (``--api-key``), ``auth.json``, the
provider's env variable, ``models.json`` ``apiKey``. Models served from the local machine
(``localhost``, ``127.0.0.1``, ``::1``) count as available without a key.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_cli.ai import models as catalogue
from pi_cli.ai.types import Model, ThinkingLevel
from pi_cli.config import paths
from pi_cli.config.auth import AuthStore, resolve_config_value
from pi_cli.models import resolver
from pi_cli.models.models_json import CustomModels, FieldError, _load_provider, is_local_url, parse_models_json


class ModelNotFoundError(LookupError):
    """A model pattern or provider matched nothing; ``str()`` is one line, with close matches."""

    def __init__(self, message: str, suggestions: list[str] | None = None) -> None:
        self.suggestions = suggestions or []
        if self.suggestions:
            message = f"{message} Did you mean: {', '.join(self.suggestions)}?"
        super().__init__(message)


@dataclass(slots=True)
class ResolvedModel:
    """Result of :meth:`ModelRegistry.resolve_cli`: the model, a ``:level`` suffix, a warning."""

    model: Model
    thinking_level: ThinkingLevel | None = None
    warning: str | None = None


def redacted(model: Model) -> Model:
    """A copy of ``model`` whose header values are masked: use it wherever a model is shown or
    serialised (RPC ``get_state``, JSON output), since resolved headers may carry credentials."""
    out = catalogue.copy_model(model)
    if "headers" in out:
        out["headers"] = {name: "***" for name in out["headers"]}
    return out


class ModelRegistry:
    """Built-in and custom models, and the API key for each.

    Construct, then :meth:`load` (also used to re-read ``models.json``, e.g. by ``/model``).
    """

    def __init__(
        self,
        auth: AuthStore | None = None,
        models_json_path: Path | None = None,
    ) -> None:
        self.auth = auth if auth is not None else AuthStore()
        self.models_json_path = models_json_path if models_json_path is not None else paths.models_json_path()
        self.errors: list[str] = []
        self._models: list[Model] = []
        self._custom_api_keys: dict[str, str] = {}
        self._runtime_keys: dict[str, str] = {}
        self._loaded = False
        self._extension_providers: dict[str, dict[str, Any]] = {}  # register_provider, kept over reloads
        self._virtual: dict[tuple[str, str], Model] = {}  # register_virtual_model, kept over reloads

    # --- loading ----------------------------------------------------------------------------

    def load(self) -> ModelRegistry:
        """(Re)read ``models.json`` and rebuild the model list; returns ``self``."""
        custom: CustomModels = parse_models_json(self.models_json_path)
        self.auth.reload()
        self.errors = [*custom.errors, *self.auth.errors]
        self._custom_api_keys = dict(custom.api_keys)
        models: list[Model] = []
        for model in catalogue.get_builtin_models():
            if model["provider"] in catalogue.LOGIN_ONLY_PROVIDERS and not self.auth.has(model["provider"]):
                continue  # a subscription's models mean nothing until you log in to it (/login)
            override = custom.provider_overrides.get(model["provider"])
            if override is not None:
                model = override.apply(model)
            patch = custom.model_overrides.get((model["provider"], model["id"]))
            if patch is not None:
                model = patch.apply(model)
            models.append(model)
        index = {(m["provider"], m["id"]): i for i, m in enumerate(models)}
        for model in custom.models:
            key = (model["provider"], model["id"])
            if key in index:
                models[index[key]] = model
            else:
                index[key] = len(models)
                models.append(model)
        self._models = models
        self._loaded = True
        for name, config in self._extension_providers.items():
            self._apply_provider(name, config)
        self._apply_virtual()
        return self

    def register_virtual_model(self, model: Model) -> None:
        """An extension's virtual model (``pi.register_virtual_model``): listed like any model,
        hiding a physical model of the same provider and id; kept across :meth:`load`."""
        self._ensure_loaded()
        self._virtual[(model["provider"], model["id"])] = model
        self._apply_virtual()

    def unregister_virtual_model(self, provider: str, model_id: str) -> None:
        if self._virtual.pop((provider, model_id), None) is not None:
            self.load()

    def _apply_virtual(self) -> None:
        if self._virtual:
            kept = [m for m in self._models if (m["provider"], m["id"]) not in self._virtual]
            self._models = kept + list(self._virtual.values())

    def register_provider(self, name: str, config: dict[str, Any]) -> list[str]:
        """An extension's provider in ``models.json``'s shape (``pi.register_provider``): its
        ``models`` replace the provider's models, ``baseUrl``/``headers`` alone re-route the
        existing ones, ``apiKey`` is its key. Kept across :meth:`load`. Returns problem lines."""
        self._ensure_loaded()
        self._extension_providers[name] = config
        return self._apply_provider(name, config)

    def unregister_provider(self, name: str) -> None:
        """Forget an extension's provider (``pi.unregister_provider``): the models it added go,
        built-in or ``models.json`` models it overrode come back. Unknown names: nothing."""
        if self._extension_providers.pop(name, None) is not None:
            self._custom_api_keys.pop(name, None)
            self.load()  # rebuilt from the catalogue, models.json and the remaining providers

    def _apply_provider(self, name: str, config: dict[str, Any]) -> list[str]:
        custom = CustomModels()
        try:
            _load_provider(name, config, Path(f"register_provider({name!r})"), custom)
        except FieldError as exc:
            return [f"register_provider({name!r}): {exc}"]
        if name in custom.api_keys:
            self._custom_api_keys[name] = custom.api_keys[name]
        override = custom.provider_overrides.get(name)
        models = self._models
        if custom.models:
            models = [m for m in models if m["provider"] != name] + list(custom.models)
        elif override is not None:
            models = [override.apply(m) if m["provider"] == name else m for m in models]
        self._models = models
        return list(custom.errors)

    refresh = load

    def _ensure_loaded(self) -> None:
        if not self._loaded:
            self.load()

    # --- queries ----------------------------------------------------------------------------

    def all_models(self) -> list[Model]:
        """Every known model, built-ins first (catalogue order), then custom ones."""
        self._ensure_loaded()
        return list(self._models)

    def providers(self) -> list[str]:
        self._ensure_loaded()
        return list(dict.fromkeys(m["provider"] for m in self._models))

    def find(self, provider: str, model_id: str) -> Model | None:
        """The model with exactly this provider and id."""
        self._ensure_loaded()
        for model in self._models:
            if model["provider"] == provider and model["id"] == model_id:
                return model
        return None

    def has_auth(self, provider: str) -> bool:
        """Whether a credential is configured for ``provider`` (``!cmd`` values are not run)."""
        return (
            provider in self._runtime_keys
            or self.auth.has(provider)
            or catalogue.env_api_key(provider) is not None
            or provider in self._custom_api_keys
        )

    def is_available(self, model: Model) -> bool:
        if model.get("virtual"):  # under a provider of its own it needs no key; else that provider's
            physical = any(m["provider"] == model["provider"] and not m.get("virtual") for m in self._models)
            return not physical or self.has_auth(model["provider"])
        return self.has_auth(model["provider"]) or is_local_url(model.get("baseUrl", ""))

    def available_models(self) -> list[Model]:
        """Models that can be used now: their provider has a credential, or they are local."""
        self._ensure_loaded()
        return [m for m in self._models if self.is_available(m)]

    def default_model(self) -> Model | None:
        """First available model, preferring each provider's default (pi's initial choice)."""
        available = self.available_models()
        for provider, model_id in catalogue.DEFAULT_MODEL_PER_PROVIDER.items():
            for model in available:
                if model["provider"] == provider and model["id"] == model_id:
                    return model
        return available[0] if available else None

    # --- credentials ------------------------------------------------------------------------

    def set_runtime_api_key(self, provider: str, key: str) -> None:
        """A key for this process only (``--api-key``); wins over every stored one."""
        self._runtime_keys[provider] = key

    def api_key_for_provider(self, provider: str) -> str | None:
        """The key for ``provider``: runtime, auth.json, env, then models.json ``apiKey`` (resolved)."""
        runtime = self._runtime_keys.get(provider)
        if runtime:
            return runtime
        stored = self.auth.api_key(provider) or self._oauth_token(provider)
        if stored:
            return stored
        env = catalogue.env_api_key(provider)
        if env:
            return env
        configured = self._custom_api_keys.get(provider)
        return resolve_config_value(configured) if configured else None

    def _oauth_token(self, provider: str) -> str | None:
        """A subscription login's access token (refreshed when expired); raises ``LoginError``
        with a one-line reason when the refresh fails."""
        record = self.auth.get(provider)
        if record is None or record.get("type") != "oauth":
            return None
        from pi_cli.oauth.credentials import OAuthCredentials  # only for OAuth users

        return OAuthCredentials(self.auth).access_token(provider)

    def api_key_for(self, model: Model) -> str | None:
        """The key to send for ``model`` (see :meth:`api_key_for_provider`)."""
        return self.api_key_for_provider(model["provider"])

    def env_var_for(self, provider: str) -> str | None:
        """The environment variable a user should set for ``provider`` (None if it has none)."""
        return catalogue.env_var_name(provider)

    # --- resolving patterns -----------------------------------------------------------------

    def resolve(self, pattern: str, provider: str | None = None) -> tuple[Model, ThinkingLevel | None]:
        """A model from ``provider/id``, ``id``, a partial id or name, each optionally ``:level``.

        Raises :class:`ModelNotFoundError` (unknown provider, or nothing matches; the message lists
        close matches). Unlike :meth:`resolve_cli` it never invents a model.
        """
        resolved = self._resolve(pattern, provider, allow_custom_id=False)
        return resolved.model, resolved.thinking_level

    def resolve_cli(
        self, pattern: str, provider: str | None = None, thinking: ThinkingLevel | None = None
    ) -> ResolvedModel:
        """pi's ``--model``/``--provider`` resolution, including its fallback: an unknown id on a
        known provider becomes a copy of that provider's default model with the new id, plus the
        warning ``Model "x" not found for provider "p". Using custom model id.`` to print."""
        return self._resolve(pattern, provider, allow_custom_id=True, cli_thinking=thinking)

    def _resolve(
        self,
        pattern: str,
        cli_provider: str | None,
        *,
        allow_custom_id: bool,
        cli_thinking: ThinkingLevel | None = None,
    ) -> ResolvedModel:
        models = self.all_models()
        if not models:
            raise ModelNotFoundError("No models available. Check your installation or add models to models.json.")
        canonical = {m["provider"].lower(): m["provider"] for m in models}
        provider: str | None = None
        if cli_provider:
            provider = canonical.get(cli_provider.lower())
            if provider is None:
                raise ModelNotFoundError(
                    f'Unknown provider "{cli_provider}". Use --list-models to see available providers/models.'
                )
        text = pattern.strip()
        inferred = False
        if provider is None and "/" in text:
            head, _, rest = text.partition("/")
            if head.lower() in canonical:
                provider, text, inferred = canonical[head.lower()], rest, True
        if provider is None:
            exact = self._unique_exact(text, pattern, models)
            if exact is not None:
                return ResolvedModel(exact)
        elif cli_provider and text.lower().startswith(provider.lower() + "/"):
            text = text[len(provider) + 1 :]
        candidates = [m for m in models if m["provider"] == provider] if provider else models
        match = resolver.parse_model_pattern(text, candidates)
        if match.model is not None:
            if inferred and not self.has_auth(match.model["provider"]):
                # "xiaomi/mimo" might be a literal id on another, authenticated provider.
                raw = [
                    m
                    for m in models
                    if m["id"].lower() == pattern.strip().lower()
                    and not catalogue.models_are_equal(m, match.model)
                    and self.has_auth(m["provider"])
                ]
                if len(raw) == 1:
                    return ResolvedModel(raw[0])
            return ResolvedModel(match.model, match.thinking_level, match.warning)
        if inferred:
            # "openai/gpt-4o:extended" may be an OpenRouter id rather than provider "openai".
            exact = self._unique_exact(pattern.strip(), pattern, models)
            if exact is not None:
                return ResolvedModel(exact)
            whole = resolver.parse_model_pattern(pattern.strip(), models)
            if whole.model is not None:
                return ResolvedModel(whole.model, whole.thinking_level, whole.warning)
        if provider and allow_custom_id:
            fallback = self._custom_id_model(provider, text, cli_thinking)
            if fallback is not None:
                return fallback
        display = f"{provider}/{text}" if provider else pattern
        raise ModelNotFoundError(
            f'Model "{display}" not found. Use --list-models to see available models.',
            resolver.close_matches(pattern if inferred or not provider else text, models if inferred else candidates),
        )

    def _unique_exact(self, text: str, pattern: str, models: list[Model]) -> Model | None:
        """The one model whose id or ``provider/id`` is ``text``; several → the single one with a
        credential, else :class:`ModelNotFoundError` naming them (pi refuses to guess)."""
        lower = text.lower()
        exact = [m for m in models if lower in (m["id"].lower(), f"{m['provider']}/{m['id']}".lower())]
        if len(exact) <= 1:
            return exact[0] if exact else None
        authed = [m for m in exact if self.has_auth(m["provider"])]
        if len(authed) == 1:
            return authed[0]
        refs = ", ".join(sorted(f"{m['provider']}/{m['id']}" for m in exact))
        hint = (
            "No matching provider is authenticated."
            if not authed
            else "More than one matching provider is authenticated."
        )
        raise ModelNotFoundError(
            f'Model "{pattern}" is ambiguous across providers: {refs}. {hint} Use --provider or provider/model.'
        )

    def _custom_id_model(self, provider: str, text: str, cli_thinking: ThinkingLevel | None) -> ResolvedModel | None:
        model_id, level = text, None
        if cli_thinking is None:
            head, colon, suffix = text.rpartition(":")
            if colon and catalogue.is_thinking_level(suffix):
                model_id, level = head, suffix
        own = [m for m in self._models if m["provider"] == provider]
        if not own or not model_id:
            return None
        default_id = catalogue.DEFAULT_MODEL_PER_PROVIDER.get(provider)
        base = next((m for m in own if m["id"] == default_id), own[0])
        model = catalogue.copy_model(base)
        model["id"] = model_id
        model["name"] = model_id
        requested = cli_thinking or level
        if requested and requested != "off":
            model["reasoning"] = True
        warning = f'Model "{model_id}" not found for provider "{provider}". Using custom model id.'
        return ResolvedModel(model, level, warning)  # type: ignore[arg-type]

    # --- output -----------------------------------------------------------------------------

    def format_list(self, search: str | None = None) -> str:
        """``--list-models [search]``: the table of available models (pi lists only those)."""
        return resolver.format_model_list(self.available_models(), search)


__all__ = ["ModelNotFoundError", "ModelRegistry", "ResolvedModel", "is_local_url", "redacted"]
