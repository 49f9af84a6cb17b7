"""Virtual models: what ``pi.register_virtual_model(definition)`` adds and how its requests run.

A definition (a dict or an object; pi's camelCase names or snake_case) has ``provider``, ``id``,
optional ``name``, ``thinking_levels`` (offered for selection; default ``["off"]``),
``context_window``, ``max_tokens``, ``input`` (default text and images) and ``route(request, ctx)``
— sync or async — answering ``{"model": <a physical model>, "thinkingLevel": level, "state"?}``.

The model is listed in the session's registry (``/model``, ``--model``, settings) with ``api``
:data:`VIRTUAL_API`; every request with it goes through :func:`stream_virtual`, which asks the
router and streams the physical model with its own credentials, the level clamped to it. The
assistant message records the physical model and level (the provider fills them in).

``request``: ``model``/``thinkingLevel`` (the selection), ``reason`` (``"user"`` after a user's
message, else ``"continuation"``: pi_cli does not tell retries and direct requests apart),
``previous`` (the physical ``{model, thinkingLevel}`` of the last successful reply in the
context), ``state`` (what the router last returned as ``state`` for this model, kept in memory for
the session: unlike pi it does not follow the session tree or survive a restart), ``messages``
and ``signal``. A router that raises, or answers a virtual or unknown model, ends the request in
an error the conversation shows.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from pi_cli.ai.event_stream import AssistantMessageEventStream
from pi_cli.ai.options import StreamOptions
from pi_cli.ai.transport.provider_common import error_event, new_output
from pi_cli.ai.types import THINKING_LEVELS, AssistantMessageEvent, Context, Model
from pi_cli.extensions.rendering.component import field_of

VIRTUAL_API = "pi-virtual"


@dataclass(eq=False)
class VirtualModel:
    """One registered virtual model: its catalogue entry, router, and the router's state."""

    model: Model
    route: Callable[..., Any]
    source: str
    context: Callable[[], Any]  # the ``ctx`` handed to the router
    registry: Any  # the session's ModelRegistry: physical models and their keys
    state: Any = field(default=None)


def virtual_model_entry(definition: Any) -> tuple[Model, Callable[..., Any]]:
    """The catalogue entry and router of ``definition``; raises ``ValueError`` naming what is
    missing or wrong."""
    provider, model_id, route = (
        field_of(definition, "provider"),
        field_of(definition, "id"),
        field_of(definition, "route"),
    )
    if not isinstance(provider, str) or not provider or not isinstance(model_id, str) or not model_id:
        raise ValueError("register_virtual_model: provider and id must be non-empty strings")
    if not callable(route):
        raise ValueError(f"register_virtual_model({provider}/{model_id}): route must be callable")
    levels = list(field_of(definition, "thinking_levels", "thinkingLevels") or ["off"])
    unknown = [level for level in levels if level not in THINKING_LEVELS]
    if unknown:
        raise ValueError(f"register_virtual_model({provider}/{model_id}): unknown thinking level {unknown[0]!r}")
    model: dict[str, Any] = {
        "id": model_id,
        "name": str(field_of(definition, "name") or model_id),
        "api": VIRTUAL_API,
        "provider": provider,
        "baseUrl": "",
        "reasoning": any(level != "off" for level in levels),
        "thinkingLevelMap": {level: (level if level in levels else None) for level in THINKING_LEVELS},
        "input": list(field_of(definition, "input") or ["text", "image"]),
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": int(field_of(definition, "context_window", "contextWindow") or 0),
        "maxTokens": int(field_of(definition, "max_tokens", "maxTokens") or 0),
        "virtual": True,
    }
    return model, route  # type: ignore[return-value]


_ACTIVE: dict[tuple[str, str], VirtualModel] = {}


def activate(virtual: VirtualModel) -> None:
    """Serve requests for ``virtual.model`` (replacing an earlier one of the same provider/id)."""
    from pi_cli.ai.stream import register_api

    register_api(VIRTUAL_API, stream_virtual)
    _ACTIVE[(virtual.model["provider"], virtual.model["id"])] = virtual


def deactivate(provider: str, model_id: str) -> None:
    _ACTIVE.pop((provider, model_id), None)


def stream_virtual(model: Model, context: Context, options: StreamOptions) -> AssistantMessageEventStream:
    """``stream`` for :data:`VIRTUAL_API` models: route, then the physical model's stream."""
    return AssistantMessageEventStream(_routed(model, context, options))


async def _routed(model: Model, context: Context, options: StreamOptions) -> AsyncIterator[AssistantMessageEvent]:
    virtual = _ACTIVE.get((model["provider"], model["id"]))
    try:
        if virtual is None:
            raise LookupError(f"virtual model {model['provider']}/{model['id']} is not registered")
        physical, level = await _route(virtual, model, context, options)
    except Exception as exc:  # the router's failure is this request's error, shown in the conversation
        yield error_event(new_output(model), f"Virtual model {model['provider']}/{model['id']}: {exc}", aborted=False)
        return
    from pi_cli.ai.models import clamp_thinking_level
    from pi_cli.ai.stream import stream

    level = clamp_thinking_level(physical, level)
    key = virtual.registry.api_key_for(physical) if virtual.registry is not None else None
    routed = replace(options, reasoning=None if level == "off" else level, api_key=key or options.api_key)
    async for event in stream(physical, context, routed):
        if event["type"] in ("done", "error"):  # the level the router picked, not the selection's
            final: Any = event["message"] if event["type"] == "done" else event["error"]
            final["thinkingLevel"] = level
        yield event


async def _route(virtual: VirtualModel, model: Model, context: Context, options: StreamOptions) -> tuple[Model, str]:
    messages: list[Any] = list(context.get("messages") or [])
    last: Any = messages[-1] if messages else {}
    request = {
        "model": model,
        "thinkingLevel": options.reasoning or "off",
        "reason": "user" if last.get("role") == "user" else "continuation",
        "previous": _previous(virtual.registry, messages),
        "state": virtual.state,
        "messages": messages,
        "signal": options.signal,
    }
    answer = virtual.route(request, virtual.context())
    if inspect.isawaitable(answer):
        answer = await answer
    physical = field_of(answer, "model")
    if not isinstance(physical, dict) or "api" not in physical:
        raise ValueError("route() answered no model")
    if physical.get("virtual") or physical.get("api") == VIRTUAL_API:
        raise ValueError("route() answered a virtual model; it must pick a physical one")
    state = field_of(answer, "state")
    if state is not None:
        virtual.state = state
    chosen: Model = physical  # type: ignore[assignment]
    return chosen, str(field_of(answer, "thinking_level", "thinkingLevel") or "off")


def _previous(registry: Any, messages: list[Any]) -> dict[str, Any] | None:
    """The physical model and level of the last successful reply (for sticky routing)."""
    for message in reversed(messages):
        if message.get("role") == "assistant" and message.get("stopReason") not in ("error", "aborted"):
            found = registry.find(message.get("provider", ""), message.get("model", "")) if registry else None
            return None if found is None else {"model": found, "thinkingLevel": message.get("thinkingLevel")}
    return None
