"""Dispatch a request to the provider that implements ``model["api"]``.

Provider modules are imported on first use so that ``pi --version`` and the faux-only test paths
never import httpx. A provider module exposes ``stream(model, context, options)``; tests and
extensions may register more with :func:`register_api`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from pi_cli.ai.event_stream import AssistantMessageEventStream
from pi_cli.ai.options import StreamOptions
from pi_cli.ai.types import AssistantMessage, Context, Model

StreamFn = Callable[[Model, Context, StreamOptions], AssistantMessageEventStream]

_BUILTIN_MODULES: dict[str, str] = {
    "openai-completions": "pi_cli.ai.providers.openai_completions",
    "anthropic-messages": "pi_cli.ai.providers.anthropic",
    "openai-responses": "pi_cli.ai.providers.openai_responses",
    "openai-codex-responses": "pi_cli.ai.providers.openai_codex",
    "google-generative-ai": "pi_cli.ai.providers.google",
    "faux": "pi_cli.ai.providers.faux_demo",
}
_registry: dict[str, StreamFn] = {}


def register_api(api: str, fn: StreamFn) -> None:
    """Route models whose ``api`` equals ``api`` to ``fn`` (replacing any earlier entry)."""
    _registry[api] = fn


def unregister_api(api: str) -> None:
    """Drop the route for ``api`` (a no-op when there is none)."""
    _registry.pop(api, None)


def resolve_stream_fn(api: str) -> StreamFn:
    """The stream function for ``api``; raises ``KeyError`` naming the api when none exists."""
    fn = _registry.get(api)
    if fn is None and api in _BUILTIN_MODULES:
        module = importlib.import_module(_BUILTIN_MODULES[api])
        fn = module.stream
        _registry[api] = fn
    if fn is None:
        raise KeyError(f"No provider registered for api: {api}")
    return fn


def preload(api: str) -> None:
    """Import the provider module for ``api`` ahead of its first request (safe from any thread:
    the import lock serialises it with a request that starts meanwhile). An unknown or broken
    provider is left for that request to report."""
    try:
        resolve_stream_fn(api)
    except Exception:  # the request names the problem; a warm-up must not
        return


def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessageEventStream:
    """Start a streamed request. Never raises for provider failures: they arrive as an error event."""
    return resolve_stream_fn(model["api"])(model, context, options or StreamOptions())


async def complete(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessage:
    """Run a request to the end and return the final assistant message."""
    return await stream(model, context, options).result()
