"""One streaming HTTP provider call: the parts the OpenAI and Anthropic providers share.

Both providers follow the same frame: check the model's api, build and send the request (with
retries, see :func:`pi_cli.ai.transport.http_client.open_stream`), treat a 200 JSON body as an error report,
parse the stream, and end any failure in one terminal ``error`` event that keeps the partial
content. :class:`ProviderCall` holds that frame; each provider keeps only its parsing.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import httpx

from pi_cli.ai.options import StreamOptions
from pi_cli.ai.sanitize import encode_body
from pi_cli.ai.transport.http_client import (
    AbortedError,
    AbortScope,
    ProviderError,
    error_text,
    is_json_response,
    json_body_error,
    open_stream,
)
from pi_cli.ai.transport.provider_common import error_event, new_output
from pi_cli.ai.types import Context, ErrorEvent, Model

RequestBuilder = Callable[[Model, Context, StreamOptions], tuple[str, dict[str, str], dict[str, Any]]]


class ProviderCall:
    """State of one provider request, from the ``start`` event to the terminal event.

    Create it inside the provider's async generator: the abort scope cancels the task it was
    created in. ``output`` is the message the provider fills; ``close()`` must run when the
    generator ends, however it ends.
    """

    def __init__(self, model: Model, options: StreamOptions) -> None:
        self.model = model
        self.options = options
        self.provider = model["provider"]
        self.output = new_output(model)
        self.scope = AbortScope(options.signal)
        self.secrets = [options.api_key]
        self.response: httpx.Response | None = None

    async def open(self, api: str, build_request: RequestBuilder, context: Context, error_style: str) -> httpx.Response:
        """Send the request and return the 2xx streaming response, or raise a one-line error.

        ``error_style`` picks how HTTP error bodies are read (``"openai"`` or ``"anthropic"``).
        """
        model = self.model
        if model["api"] != api:
            raise ProviderError(f"Model {self.provider}/{model['id']} has api {model['api']}, not {api}")
        url, headers, body = build_request(model, context, self.options)
        if self.options.on_payload is not None:
            replaced = self.options.on_payload(body)
            if inspect.isawaitable(replaced):
                replaced = await replaced
            if isinstance(replaced, dict):  # an extension's before_provider_request replaced it
                body = replaced
        self.response = await open_stream(
            url,
            headers,
            encode_body(body),
            self.options,
            self.scope,
            self.provider,
            error_style=error_style,
            secrets=self.secrets,
        )
        if self.options.on_response is not None:
            told = self.options.on_response(
                {"status": self.response.status_code, "headers": dict(self.response.headers)}
            )
            if inspect.isawaitable(told):
                await told
        if is_json_response(self.response):
            raise ProviderError(await json_body_error(self.response, self.provider, error_style, self.secrets))
        content_type = self.response.headers.get("content-type", "")
        if "html" in content_type:  # a proxy or login page answered; its body is no event stream
            detail = await json_body_error(self.response, self.provider, error_style, self.secrets)
            raise ProviderError(f"Expected an event stream, got {content_type.split(';')[0].strip()}: {detail}")
        return self.response

    def describe(self, exc: Exception) -> str:
        """A one-line, secret-free message for ``exc``."""
        return error_text(exc, self.provider, self.secrets)

    def failure(
        self,
        exc: Exception | None,
        finalize: Callable[[], None],
        describe: Callable[[Exception], str] | None = None,
    ) -> ErrorEvent:
        """The terminal event after ``exc`` (``None``: the task was cancelled by our own abort).

        ``finalize`` settles the partial content (e.g. parses half-streamed tool arguments) first.
        An abort, however it surfaced, reads "Request was aborted" with stopReason ``aborted``.
        """
        finalize()
        if exc is None or isinstance(exc, AbortedError) or self.scope.aborted:
            return error_event(self.output, "Request was aborted", aborted=True)
        return error_event(self.output, (describe or self.describe)(exc), aborted=False)

    async def close(self) -> None:
        """Detach from the abort signal and release the connection."""
        self.scope.close()
        if self.response is not None:
            await self.response.aclose()
