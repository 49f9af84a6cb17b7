"""``ctx.model_registry``: the session's models for extensions (pi's ModelRegistry, snake_case).

``find(provider, model_id)``, ``get_all()``, ``get_available()``, ``has_configured_auth(model)``,
``get_api_key(model)`` read the registry the session chose its model from (``models.json``, the
built-in catalogue, extensions' providers). ``complete`` and ``stream_simple`` ask a model
directly, outside the conversation — an extension's own request, e.g. a summary: the key comes
from the registry unless ``options`` gives one, and nothing is added to the session. Before the
registry is bound (an embedder without one) the reads are empty and the requests need a key in
``options``.
"""

from __future__ import annotations

from typing import Any

from pi_cli.ai.options import StreamOptions
from pi_cli.ai.types import AssistantMessage, Context, Model

# pi's option names (and pi_cli's snake_case ones) → StreamOptions fields; others are ignored.
_OPTION_NAMES = {
    "api_key": "api_key", "apiKey": "api_key", "signal": "signal", "max_tokens": "max_tokens",
    "maxTokens": "max_tokens", "temperature": "temperature", "headers": "headers",
    "session_id": "session_id", "sessionId": "session_id", "reasoning": "reasoning",
    "reasoningEffort": "reasoning", "reasoning_effort": "reasoning",
}  # fmt: skip


class ModelRegistryView:
    """What an extension may do with the session's models; ``registry`` is the session's
    ModelRegistry (None: not bound yet)."""

    def __init__(self, registry: Any) -> None:
        self._registry = registry

    def find(self, provider: str, model_id: str) -> Model | None:
        return None if self._registry is None else self._registry.find(provider, model_id)

    def get_all(self) -> list[Model]:
        return [] if self._registry is None else list(self._registry.all_models())

    def get_available(self) -> list[Model]:
        """Models usable now: their provider has a credential, or they are local."""
        return [] if self._registry is None else list(self._registry.available_models())

    def has_configured_auth(self, model: Model) -> bool:
        return self._registry is not None and bool(self._registry.is_available(model))

    def get_api_key(self, model: Model) -> str | None:
        """The key pi_cli would send for ``model`` (``--api-key``, auth.json, env, models.json)."""
        return None if self._registry is None else self._registry.api_key_for(model)

    def _options(self, model: Model, options: StreamOptions | dict[str, Any] | None) -> StreamOptions:
        if isinstance(options, StreamOptions):
            built = options
        else:
            fields = {_OPTION_NAMES[k]: v for k, v in (options or {}).items() if k in _OPTION_NAMES and v is not None}
            built = StreamOptions(**fields)
        if built.api_key is None:
            built.api_key = self.get_api_key(model)
        return built

    async def complete(
        self, model: Model, context: Context | dict[str, Any], options: StreamOptions | dict[str, Any] | None = None
    ) -> AssistantMessage:
        """One request to ``model`` run to the end: the assistant message (its ``content``
        blocks, ``stopReason``, ``errorMessage`` when the provider failed — it does not raise)."""
        from pi_cli.ai.stream import complete

        return await complete(model, context, self._options(model, options))  # type: ignore[arg-type]

    def stream_simple(
        self, model: Model, context: Context | dict[str, Any], options: StreamOptions | dict[str, Any] | None = None
    ) -> Any:
        """The same request as a stream: ``async for event in stream`` (pi's events), then
        ``await stream.result()`` for the final message."""
        from pi_cli.ai.stream import stream

        return stream(model, context, self._options(model, options))  # type: ignore[arg-type]
