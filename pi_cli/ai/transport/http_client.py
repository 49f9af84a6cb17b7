"""The shared HTTP client, abort plumbing and the pre-body retry loop used by providers.

* One lazily created ``httpx.AsyncClient`` per event loop (connection pooling; creating a client
  per request costs milliseconds). Timeouts: connect 10 s, write 30 s, pool 10 s, and ``read`` =
  the request's idle timeout, because httpx applies it to every socket read.
* :class:`AbortScope` turns an :class:`~pi_cli.ai.abort.AbortSignal` into a cancellation of the
  task that is waiting on the network *at that moment* (a flag marks those waits), so an abort
  closes the HTTP stream immediately without racing every chunk read against an event.
* :func:`open_stream` sends the request and, up to ``options.max_retries`` times (pi's
  ``retry.provider.maxRetries``, 0 by default, so by default the session's auto-retry alone
  decides), retries before the first body byte: connection errors,
  timeouts, 408/409/429/5xx (``x-should-retry`` overrides either way), waiting ``retry-after-ms`` or
  ``retry-after`` (seconds or an HTTP date) when the server says, else 0.5 s·2ⁿ capped at 8 s minus
  up to 25 % jitter. A server-requested delay above ``max_retry_delay_ms`` fails at once. Sleeps are
  abortable. Failures raise :class:`ProviderError` with pi-style text; nothing is retried once the
  body streams.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import os
import random
import ssl
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterable

import httpx

from pi_cli.ai.abort import AbortSignal
from pi_cli.ai.options import StreamOptions
from pi_cli.ai.transport.asyncio_backend import use_asyncio_backend
from pi_cli.ai.transport.http1 import Body
from pi_cli.ai.transport.http_errors import format_http_error, redact
from pi_cli.ai.transport.sse import SSEDecoder, SSEEvent

MAX_ERROR_BODY_BYTES = 64 * 1024
# Keyed by the loop object itself (weakly): a client's pool is bound to the loop it was made on, and an
# id() of a dead loop can be reused by a new one.
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = weakref.WeakKeyDictionary()
_plain_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = weakref.WeakKeyDictionary()
_stream_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = weakref.WeakKeyDictionary()
BURST_BYTES = 64 * 1024  # a read this big means data is waiting: no reason to hold the next one


class ProviderError(Exception):
    """A request failure whose message is ready for ``errorMessage`` (already redacted)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class AbortedError(Exception):
    """The abort signal fired while the provider was waiting."""


def get_client(url: str | None = None) -> httpx.AsyncClient:
    """The shared client for the running event loop (created on first use).

    A plain ``http://`` URL (a local server) gets its own client without the CA bundle, whose
    loading costs ~30 ms of start-up; its TLS context still demands verification, so TLS through it
    fails instead of going unverified. With a proxy configured the full client is used.
    """
    loop = asyncio.get_running_loop()
    plain = url is not None and url.startswith("http://") and not _proxied()
    clients = _plain_clients if plain else _clients
    client = clients.get(loop)
    if client is None or client.is_closed:
        client = httpx.AsyncClient(
            timeout=httpx.Timeout(300.0, connect=10.0, write=30.0, pool=10.0),
            limits=httpx.Limits(max_connections=32, max_keepalive_connections=8),
            verify=ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT) if plain else True,
        )
        use_asyncio_backend(client)
        clients[loop] = client
    return client


def _proxied() -> bool:
    return any(k.lower().endswith("_proxy") for k in os.environ)


def stream_client(url: str) -> httpx.AsyncClient:
    """The client for provider streams on the running loop: pi_cli's HTTP/1.1 transport
    (:mod:`~pi_cli.ai.transport.http1`), or :func:`get_client`'s with a proxy configured or
    ``PI_HTTP_BACKEND`` set to ``anyio``/``httpcore`` (httpx's own machinery, a way out)."""
    if _proxied() or os.environ.get("PI_HTTP_BACKEND", "").lower() in ("anyio", "httpcore"):
        return get_client(url)
    loop = asyncio.get_running_loop()
    client = _stream_clients.get(loop)
    if client is None or client.is_closed:
        from pi_cli.ai.transport.http1 import StreamTransport

        client = httpx.AsyncClient(
            transport=StreamTransport(_tls_context),
            timeout=httpx.Timeout(300.0, connect=10.0, write=30.0, pool=10.0),
        )
        _stream_clients[loop] = client
    return client


def _tls_context() -> ssl.SSLContext:
    context = httpx.create_ssl_context()
    context.set_alpn_protocols(["http/1.1"])
    return context


def request_timeout(options: StreamOptions) -> httpx.Timeout:
    """httpx timeouts for one request: ``timeout_s`` between reads, connecting capped at 10 s."""
    return httpx.Timeout(options.timeout_s, connect=min(10.0, options.timeout_s), write=30.0, pool=10.0)


class AbortScope:
    """Cancels the current task on abort, but only while it waits on the network or a backoff."""

    __slots__ = ("_remove", "fired", "signal", "task", "waiting")

    def __init__(self, signal: AbortSignal | None) -> None:
        self.signal = signal
        self.task = asyncio.current_task()
        self.waiting = False
        self.fired = False
        self._remove = signal.add_callback(self._on_abort) if signal is not None else None

    @property
    def aborted(self) -> bool:
        return self.signal is not None and self.signal.aborted

    def _on_abort(self) -> None:
        if self.waiting and not self.fired and self.task is not None:
            self.fired = True
            self.task.cancel()

    def absorb_cancel(self) -> bool:
        """Call from ``except CancelledError``: True (and the cancel undone) if our abort caused it."""
        if self.fired and self.task is not None:
            self.fired = False
            self.task.uncancel()
            return True
        return False

    def close(self) -> None:
        if self._remove is not None:
            self._remove()
            self._remove = None

    async def sleep(self, seconds: float) -> None:
        """An abortable sleep; raises :class:`AbortedError` when the signal fires."""
        if self.aborted:
            raise AbortedError()
        self.waiting = True
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            if self.absorb_cancel():
                raise AbortedError() from None
            raise
        finally:
            self.waiting = False


def _header_delay(headers: httpx.Headers) -> float | None:
    """Server-requested delay in seconds (``retry-after-ms`` wins over ``retry-after``)."""
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _should_retry(response: httpx.Response) -> bool:
    override = response.headers.get("x-should-retry")
    if override == "true":
        return True
    if override == "false":
        return False
    return response.status_code in (408, 409, 429) or response.status_code >= 500


def backoff_delay(attempt: int, base_s: float) -> float:
    """Exponential backoff with up to 25 % jitter, capped at 8 s (scaled with the base)."""
    delay: float = min(base_s * (2**attempt), 16 * base_s)
    return delay * (1 - 0.25 * random.random())


async def open_stream(
    url: str,
    headers: dict[str, str],
    body: bytes,
    options: StreamOptions,
    scope: AbortScope,
    provider: str,
    *,
    error_style: str = "openai",
    secrets: Iterable[str | None] = (),
) -> httpx.Response:
    """POST ``body`` and return the streaming 2xx response; see the module docstring for retries."""
    client = stream_client(url)
    secrets = list(secrets)
    # Bodies are read raw (no decoder layer per chunk), so ask for them uncompressed.
    headers = {"accept-encoding": "identity", **headers}
    base_s = max(0, options.retry_base_delay_ms) / 1000
    cap_s = options.max_retry_delay_ms / 1000 if options.max_retry_delay_ms > 0 else math.inf
    attempt = 0
    while True:
        if scope.aborted:
            raise AbortedError()
        request = client.build_request("POST", url, headers=headers, content=body, timeout=request_timeout(options))
        server_delay: float | None = None
        scope.waiting = True
        try:
            response = await client.send(request, stream=True)
        except asyncio.CancelledError:
            if scope.absorb_cancel():
                raise AbortedError() from None
            raise
        except httpx.TimeoutException:
            message, retry = f"Request timed out. (provider: {provider})", True
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise ProviderError(redact(f"Invalid request URL {url!r} (provider: {provider}): {exc}", secrets)) from None
        except httpx.HTTPError as exc:
            message = redact(f"Connection error. (provider: {provider}: {exc})", secrets)
            retry = True
        else:
            if response.is_success:
                return response
            try:
                text = await _read_bounded(response)
            except asyncio.CancelledError:
                if scope.absorb_cancel():
                    raise AbortedError() from None
                raise
            finally:
                await response.aclose()
            message = format_http_error(
                response.status_code, text, provider, style=error_style, secrets=secrets,
                content_type=response.headers.get("content-type", ""), reason=response.reason_phrase,
            )  # fmt: skip
            retry = _should_retry(response)
            server_delay = _header_delay(response.headers)
            if not retry or attempt >= options.max_retries:
                raise ProviderError(message, response.status_code)
        finally:
            scope.waiting = False
        if not retry or attempt >= options.max_retries:
            raise ProviderError(message)
        if server_delay is not None and server_delay > cap_s:
            raise ProviderError(
                f"Server requested {math.ceil(server_delay)}s retry delay (max: {math.ceil(cap_s)}s). {message}"
            )
        delay = server_delay if server_delay is not None else backoff_delay(attempt, base_s)
        await scope.sleep(delay)
        attempt += 1


async def _read_bounded(response: httpx.Response) -> str:
    data = bytearray()
    async for chunk in response.aiter_bytes():
        data += chunk
        if len(data) >= MAX_ERROR_BODY_BYTES:
            break
    return data.decode("utf-8", errors="replace")


def error_text(exc: BaseException, provider: str, secrets: Iterable[str | None] = ()) -> str:
    """A one-line message for an exception raised while reading a response body."""
    if isinstance(exc, ProviderError):
        return str(exc)
    if isinstance(exc, httpx.TimeoutException):
        return f"Request timed out. (provider: {provider})"
    if isinstance(exc, httpx.HTTPError):
        return redact(f"Connection error. (provider: {provider}: {exc})", secrets)
    return redact(f"{type(exc).__name__}: {exc} (provider: {provider})", secrets)


def is_json_response(response: httpx.Response) -> bool:
    """A 200 with a JSON (not event-stream) content type carries an error report, not a stream."""
    content_type = response.headers.get("content-type", "")
    return "json" in content_type and "event-stream" not in content_type


async def json_body_error(
    response: httpx.Response, provider: str, style: str = "openai", secrets: Iterable[str | None] = ()
) -> str:
    """The error message of a JSON body that arrived where a stream was expected."""
    text = await _read_bounded(response)
    return format_http_error(
        response.status_code, text, provider, style=style, secrets=secrets,
        content_type=response.headers.get("content-type", ""), reason=response.reason_phrase,
    )  # fmt: skip


async def sse_batches(
    response: httpx.Response,
    scope: AbortScope,
    answer_complete: Callable[[], bool] | None = None,
    gather_s: float = 0.0,
) -> AsyncIterator[list[SSEEvent]]:
    """SSE events of a response body, one list per network read (the last from the EOF flush).

    Reads wait with ``scope.waiting`` set, so an abort cancels them at once; after each read the
    abort flag is checked and :class:`AbortedError` raised. A read that fails once
    ``answer_complete()`` is true ends the body as EOF would: the answer is kept. With
    ``gather_s`` > 0 (and pi_cli's own transport), a small read leaves the socket unread for that
    long, so a trickling stream arrives in batches instead of one wake-up per event.
    """
    decoder = SSEDecoder()
    body = response.extensions.get("pi_body")
    if not isinstance(body, Body):
        async for raw in _raw_reads(response, scope, answer_complete):
            events = decoder.feed(raw)
            if events:
                yield events
        yield decoder.close()
        return
    while True:
        if scope.aborted:
            raise AbortedError()
        try:
            raw = body.take()
            if not raw and not body.done:
                scope.waiting = True
                try:
                    raw = await body.read_some()
                finally:
                    scope.waiting = False
        except Exception:
            if answer_complete is None or not answer_complete():
                raise
            break
        if not raw:
            break
        if scope.aborted:
            raise AbortedError()
        if gather_s and len(raw) < BURST_BYTES:
            body.hold(gather_s)
        events = decoder.feed(raw)
        if events:
            yield events
    yield decoder.close()


async def _raw_reads(
    response: httpx.Response, scope: AbortScope, answer_complete: Callable[[], bool] | None
) -> AsyncIterator[bytes]:
    """The body through httpx (other transports: tests' mocks, proxies)."""
    chunks = response.aiter_raw().__aiter__()
    while True:
        if scope.aborted:
            raise AbortedError()
        scope.waiting = True
        try:
            raw = await chunks.__anext__()
        except StopAsyncIteration:
            break
        except Exception:
            if answer_complete is None or not answer_complete():
                raise
            break
        finally:
            scope.waiting = False
        if scope.aborted:
            raise AbortedError()
        yield raw
