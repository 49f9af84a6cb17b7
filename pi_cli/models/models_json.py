"""Parsing ``models.json`` (pi's schema) into custom models and overrides, one problem per line.

Checks are hand-written rather than a schema library so that each problem names the exact place
(``providers.ollama.models[1].contextWindow``) and only the broken provider or model is skipped.
Secrets stay out of messages: errors quote field names and ids, never values.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pi_cli.ai import models as catalogue
from pi_cli.ai.types import THINKING_LEVELS, Model
from pi_cli.config.auth import resolve_config_value

SUPPORTED_APIS = frozenset(
    {
        "openai-completions",
        "openai-responses",
        "openai-codex-responses",
        "anthropic-messages",
        "google-generative-ai",
        "faux",
    }
)
# pi's other wire protocols: valid in a pi models.json, not implemented by pi_cli yet.
PI_ONLY_APIS = frozenset(
    {
        "azure-openai-responses",
        "google-vertex",
        "google-gemini-cli",
        "bedrock-converse-stream",
        "mistral-conversations",
    }
)
DEFAULT_CONTEXT_WINDOW = 128_000
DEFAULT_MAX_TOKENS = 16_384
_COST_KEYS = ("input", "output", "cacheRead", "cacheWrite")


_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}


def is_local_url(url: str) -> bool:
    """True when ``url`` points at this machine (Ollama, LM Studio, llama.cpp, a fake server)."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return host in _LOCAL_HOSTS or host.endswith(".localhost") or host.startswith("127.")


class FieldError(ValueError):
    """One invalid field; ``str()`` is ``"<field path>: <what is wrong>"``."""


def merge_compat(base: dict[str, Any] | None, top: dict[str, Any] | None) -> dict[str, Any] | None:
    """``top`` over ``base``; nested routing objects (``openRouterRouting`` …) merge key by key."""
    if not top:
        return dict(base) if base else None
    out = dict(base or {})
    for key, value in top.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


def resolve_headers(headers: dict[str, str] | None) -> dict[str, str]:
    """Header values through ``!cmd`` / env / literal resolution; empty results are dropped."""
    out: dict[str, str] = {}
    for name, value in (headers or {}).items():
        resolved = resolve_config_value(value)
        if resolved:
            out[name] = resolved
    return out


# --- field checks ---------------------------------------------------------------------------


def _checked(obj: dict[str, Any], key: str, where: str, ok: Callable[[Any], bool], expected: str) -> Any:
    """``obj[key]`` when present and accepted by ``ok``; None when absent or null. Anything else
    raises one :class:`FieldError` naming the field (``where.key``) and what it should be."""
    value = obj.get(key)
    if value is None or ok(value):
        return value
    raise FieldError(f"{where}.{key}: expected {expected}")


def _is_whole_positive(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and value > 0 and value == int(value)


def _opt_str(obj: dict[str, Any], key: str, where: str) -> str | None:
    value: str | None = _checked(obj, key, where, lambda v: isinstance(v, str) and bool(v), "a non-empty string")
    return value


def _opt_bool(obj: dict[str, Any], key: str, where: str) -> bool | None:
    value: bool | None = _checked(obj, key, where, lambda v: isinstance(v, bool), "true or false")
    return value


def _opt_positive_int(obj: dict[str, Any], key: str, where: str) -> int | None:
    value = _checked(obj, key, where, _is_whole_positive, "a positive whole number")
    return None if value is None else int(value)


def _opt_str_map(obj: dict[str, Any], key: str, where: str) -> dict[str, str] | None:
    def ok(v: Any) -> bool:
        return isinstance(v, dict) and all(isinstance(item, str) for item in v.values())

    value = _checked(obj, key, where, ok, "an object of string values")
    return None if value is None else dict(value)


def _opt_object(obj: dict[str, Any], key: str, where: str) -> dict[str, Any] | None:
    value = _checked(obj, key, where, lambda v: isinstance(v, dict), "an object")
    return None if value is None else dict(value)


def _opt_input(obj: dict[str, Any], where: str) -> list[str] | None:
    value = obj.get("input")
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(v in ("text", "image") for v in value):
        raise FieldError(f'{where}.input: expected a list of "text" and/or "image"')
    return list(dict.fromkeys(value))


def _opt_cost(obj: dict[str, Any], where: str) -> dict[str, float] | None:
    value = obj.get("cost")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise FieldError(f"{where}.cost: expected an object with input, output, cacheRead, cacheWrite")
    out: dict[str, float] = {}
    for key in _COST_KEYS:
        price = value.get(key)
        if price is None:
            continue
        if isinstance(price, bool) or not isinstance(price, int | float) or price < 0:
            raise FieldError(f"{where}.cost.{key}: expected a number >= 0 ($ per million tokens)")
        out[key] = price
    return out


def _opt_level_map(obj: dict[str, Any], where: str) -> dict[str, str | None] | None:
    value = obj.get("thinkingLevelMap")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise FieldError(f"{where}.thinkingLevelMap: expected an object")
    for level, mapped in value.items():
        if level not in THINKING_LEVELS:
            raise FieldError(f"{where}.thinkingLevelMap.{level}: unknown thinking level")
        if mapped is not None and not isinstance(mapped, str):
            raise FieldError(f"{where}.thinkingLevelMap.{level}: expected a string or null")
    return dict(value)


# --- results --------------------------------------------------------------------------------


@dataclass(slots=True)
class ModelPatch:
    """A ``modelOverrides`` entry: a partial model laid over a built-in one."""

    fields: dict[str, Any]
    cost: dict[str, float] | None = None
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None

    def apply(self, model: Model) -> Model:
        out: dict[str, Any] = dict(catalogue.copy_model(model))
        out.update(self.fields)
        if self.cost:
            out["cost"] = {**out["cost"], **self.cost}
        if self.headers:
            out["headers"] = {**out.get("headers", {}), **resolve_headers(self.headers)}
        if self.compat:
            out["compat"] = merge_compat(out.get("compat"), self.compat)
        return out  # type: ignore[return-value]


@dataclass(slots=True)
class ProviderOverride:
    """A provider entry's ``baseUrl``/``headers``/``compat`` applied to its built-in models."""

    base_url: str | None = None
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None

    def apply(self, model: Model) -> Model:
        out: dict[str, Any] = dict(catalogue.copy_model(model))
        if self.base_url:
            out["baseUrl"] = self.base_url
        if self.headers:
            out["headers"] = {**out.get("headers", {}), **resolve_headers(self.headers)}
        if self.compat:
            out["compat"] = merge_compat(self.compat, out.get("compat"))
        return out  # type: ignore[return-value]


@dataclass(slots=True)
class CustomModels:
    models: list[Model] = field(default_factory=list)
    provider_overrides: dict[str, ProviderOverride] = field(default_factory=dict)
    model_overrides: dict[tuple[str, str], ModelPatch] = field(default_factory=dict)
    api_keys: dict[str, str] = field(default_factory=dict)  # raw apiKey config per provider
    errors: list[str] = field(default_factory=list)


def _patch_fields(obj: dict[str, Any], where: str) -> dict[str, Any]:
    """The plain model fields present in ``obj``, checked (cost, headers, compat are separate)."""
    values: dict[str, Any] = {
        "name": _opt_str(obj, "name", where),
        "reasoning": _opt_bool(obj, "reasoning", where),
        "input": _opt_input(obj, where),
        "contextWindow": _opt_positive_int(obj, "contextWindow", where),
        "maxTokens": _opt_positive_int(obj, "maxTokens", where),
        "thinkingLevelMap": _opt_level_map(obj, where),
    }
    return {key: value for key, value in values.items() if value is not None}


def _builtin_template(provider: str) -> Model | None:
    builtins = catalogue.get_builtin_models(provider)
    return builtins[0] if builtins else None


def _custom_model(
    provider: str, cfg: dict[str, Any], raw: Any, where: str, base_url: str, default_api: str | None
) -> Model:
    if not isinstance(raw, dict):
        raise FieldError(f"{where}: expected an object")
    model_id = raw.get("id")
    if not isinstance(model_id, str) or not model_id.strip():
        raise FieldError(f"{where}.id: required, a non-empty string")
    where = f"{where} ({model_id})"
    fields = _patch_fields(raw, where)
    api = _opt_str(raw, "api", where) or default_api
    if not api:
        raise FieldError(f'{where}: no "api" specified. Set it at provider or model level')
    cost = _opt_cost(raw, where) or {}
    headers = {
        **resolve_headers(_opt_str_map(cfg, "headers", where)),
        **resolve_headers(_opt_str_map(raw, "headers", where)),
    }
    if cfg.get("authHeader") is True and isinstance(cfg.get("apiKey"), str):
        key = resolve_config_value(cfg["apiKey"])
        if key:
            headers["Authorization"] = f"Bearer {key}"
    model: dict[str, Any] = {
        "id": model_id,
        "name": fields.get("name", model_id),
        "api": api,
        "provider": provider,
        "baseUrl": base_url,
        "reasoning": fields.get("reasoning", False),
        "input": fields.get("input", ["text"]),
        "cost": {key: cost.get(key, 0) for key in _COST_KEYS},
        "contextWindow": fields.get("contextWindow", DEFAULT_CONTEXT_WINDOW),
        "maxTokens": fields.get("maxTokens", DEFAULT_MAX_TOKENS),
    }
    if headers:
        model["headers"] = headers
    compat = merge_compat(_opt_object(cfg, "compat", where), _opt_object(raw, "compat", where))
    if compat:
        model["compat"] = compat
    if "thinkingLevelMap" in fields:
        model["thinkingLevelMap"] = fields["thinkingLevelMap"]
    return model  # type: ignore[return-value]


def _load_provider(name: str, cfg: Any, path: Path, out: CustomModels) -> None:
    where = f"providers.{name}"
    if not isinstance(cfg, dict):
        raise FieldError(f"{where}: expected an object")
    base_url = _opt_str(cfg, "baseUrl", where)
    api_key = _opt_str(cfg, "apiKey", where)
    api = _opt_str(cfg, "api", where)
    headers = _opt_str_map(cfg, "headers", where)
    compat = _opt_object(cfg, "compat", where)
    _opt_bool(cfg, "authHeader", where)
    models = cfg.get("models")
    if models is not None and not isinstance(models, list):
        raise FieldError(f"{where}.models: expected a list")
    overrides = _opt_object(cfg, "modelOverrides", where) or {}
    template = _builtin_template(name)
    if not models and not base_url and not overrides and not headers and not compat and not api_key:
        raise FieldError(f'{where}: must specify "baseUrl", "modelOverrides", or "models"')
    effective_url = base_url or (template["baseUrl"] if template else None)
    if models:
        if not effective_url:
            raise FieldError(f'{where}: "baseUrl" is required when defining custom models')
        if not api_key and template is None and not is_local_url(effective_url):
            raise FieldError(f'{where}: "apiKey" is required when defining custom models')
    # The provider itself is valid from here on; bad models or overrides are skipped one by one.
    if api_key:
        out.api_keys[name] = api_key
    if template is not None and (base_url or headers or compat):
        out.provider_overrides[name] = ProviderOverride(base_url, headers, compat)
    default_api = api or (template["api"] if template else None)
    for i, raw in enumerate(models or []):
        try:
            model = _custom_model(name, cfg, raw, f"{where}.models[{i}]", effective_url or "", default_api)
        except FieldError as exc:
            out.errors.append(f"{path}: {exc}; model skipped")
            continue
        out.models.append(model)
        if model["api"] not in SUPPORTED_APIS:
            # Kept (the file stays valid for pi), but say now why requests to it will fail.
            kind = "is not supported by pi_cli yet" if model["api"] in PI_ONLY_APIS else "is not a known api"
            out.errors.append(
                f'{path}: {where}.models[{i}] ({model["id"]}): api "{model["api"]}" {kind} '
                f"(use {', '.join(sorted(SUPPORTED_APIS - {'faux'}))})"
            )
    for model_id, raw in overrides.items():
        owhere = f"{where}.modelOverrides.{model_id}"
        try:
            if not isinstance(raw, dict):
                raise FieldError(f"{owhere}: expected an object")
            out.model_overrides[(name, model_id)] = ModelPatch(
                _patch_fields(raw, owhere),
                _opt_cost(raw, owhere),
                _opt_str_map(raw, "headers", owhere),
                _opt_object(raw, "compat", owhere),
            )
        except FieldError as exc:
            out.errors.append(f"{path}: {exc}; override skipped")


def parse_models_json(path: Path) -> CustomModels:
    """Everything usable in ``path`` (a missing file is simply empty), plus one line per problem."""
    out = CustomModels()
    try:
        text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
    except FileNotFoundError:
        return out
    except (OSError, UnicodeDecodeError) as exc:
        out.errors.append(f"Could not read {path}: {exc.__class__.__name__}; custom models not loaded")
        return out
    if not text.strip():
        return out
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        out.errors.append(
            f"Invalid JSON in {path}: line {exc.lineno}, column {exc.colno}: {exc.msg}; custom models not loaded"
        )
        return out
    except RecursionError:  # absurdly deep nesting; json raises this instead of a decode error
        out.errors.append(f"Invalid JSON in {path}: nested too deeply; custom models not loaded")
        return out
    providers = data.get("providers") if isinstance(data, dict) else None
    if not isinstance(providers, dict):
        out.errors.append(f'{path}: expected an object with a "providers" object; custom models not loaded')
        return out
    for name, cfg in providers.items():
        try:
            _load_provider(name, cfg, path, out)
        except FieldError as exc:
            out.errors.append(f"{path}: {exc}; provider skipped")
    return out
