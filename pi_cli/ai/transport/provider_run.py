"""The streaming loop of an SSE provider, around a per-format parser.

Every HTTP provider (OpenAI chat completions and Responses, Codex, Anthropic, Gemini) differs only in
how it reads events; everything else —
``start`` first, the request through :class:`~pi_cli.ai.transport.provider_call.ProviderCall` (retries,
JSON/HTML bodies that are no stream), abort checks between events, the terminal ``done``/``error``
with the partial content kept — is this loop. A format supplies an :class:`EventParser`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Protocol

from pi_cli.ai.event_stream import AssistantMessageEventStream
from pi_cli.ai.options import StreamOptions
from pi_cli.ai.transport.http_client import AbortedError, sse_batches
from pi_cli.ai.transport.provider_call import ProviderCall, RequestBuilder
from pi_cli.ai.transport.provider_common import done_event, error_event
from pi_cli.ai.transport.sse import SSEEvent
from pi_cli.ai.types import AssistantMessage, AssistantMessageEvent, Context, Model


class EventParser(Protocol):
    """One response's decoder: fills ``output`` in place and returns stream events."""

    def feed(self, sse: SSEEvent) -> list[AssistantMessageEvent]:
        """Apply one SSE event; raise :class:`~pi_cli.ai.transport.http_client.ProviderError` for an error event."""
        ...

    def complete(self) -> bool:
        """True once the terminal event arrived (the rest of the body is not needed)."""
        ...

    def answered(self) -> bool:
        """True once the answer is whole, so a connection that breaks afterwards loses nothing."""
        ...

    def finish(self) -> list[AssistantMessageEvent]:
        """After the body: raise if it ended too early, else the ``*_end`` events still owed."""
        ...

    def stop_error(self) -> str | None:
        """An error the answer itself reported (refusal, safety stop), or ``None``."""
        ...

    def finalize_args(self) -> None:
        """Settle half-streamed tool arguments (on failure; no events)."""
        ...

    def describe_failure(self, exc: Exception, message: str) -> str:
        """The ``errorMessage`` for ``exc`` (``message`` is the generic one-line text)."""
        ...


ParserFactory = Callable[[AssistantMessage, Model], EventParser]


def _describer(parser: EventParser, call: ProviderCall) -> Callable[[Exception], str]:
    return lambda exc: parser.describe_failure(exc, call.describe(exc))


async def run_sse(
    model: Model,
    context: Context,
    options: StreamOptions,
    *,
    api: str,
    build_request: RequestBuilder,
    error_style: str,
    make_parser: ParserFactory,
) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one request of ``api``; never raises for provider failures (they end in ``error``).

    ``start`` comes once the server has accepted the request, as in pi-ai: a request refused (an
    HTTP error) or aborted before that yields only its ``error``, so the session's ``message_start``
    already holds the final message."""
    call = ProviderCall(model, options)
    output = call.output
    scope = call.scope
    parser = make_parser(output, model)
    observe = options.on_stream_event
    try:
        response = await call.open(api, build_request, context, error_style=error_style)
        yield {"type": "start", "partial": output}
        async for batch in sse_batches(response, scope, parser.answered, options.gather_ms / 1000):
            for sse in batch:
                if scope.aborted:  # aborted while the consumer held an event
                    raise AbortedError()
                if observe is not None:
                    told = observe(model, sse.event, sse.data)
                    if told is not None:
                        await told
                for event in parser.feed(sse):
                    yield event
            if parser.complete():
                break
        for event in parser.finish():
            yield event
        problem = parser.stop_error()
        yield done_event(output) if problem is None else error_event(output, problem, aborted=False)
    except asyncio.CancelledError:
        if not scope.absorb_cancel():
            raise
        yield call.failure(None, parser.finalize_args)
    except Exception as exc:
        yield call.failure(exc, parser.finalize_args, _describer(parser, call))
    finally:
        await call.close()


def sse_stream(
    api: str, build_request: RequestBuilder, make_parser: ParserFactory, error_style: str = "openai"
) -> Callable[[Model, Context, StreamOptions | None], AssistantMessageEventStream]:
    """A provider's ``stream(model, context, options)`` over :func:`run_sse`: every SSE provider's
    entry point is this with its own api name, request builder and event parser."""

    def stream(model: Model, context: Context, options: StreamOptions | None = None) -> AssistantMessageEventStream:
        return AssistantMessageEventStream(
            run_sse(
                model,
                context,
                options or StreamOptions(),
                api=api,
                build_request=build_request,
                error_style=error_style,
                make_parser=make_parser,
            )
        )

    return stream
