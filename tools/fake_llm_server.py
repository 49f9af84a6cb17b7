"""A scripted fake LLM server: real HTTP on 127.0.0.1, OpenAI, Anthropic and Gemini streaming shapes.

Nothing here touches the internet. Tests, benchmarks and other engineers' end-to-end checks point a
model's ``baseUrl`` at this server and script what it answers.

Endpoints
---------
* ``POST /v1/chat/completions`` (or any path ending in ``/chat/completions``): OpenAI chat
  completions SSE. Use ``server.openai_base_url`` (``http://127.0.0.1:PORT/v1``) as the model's
  ``baseUrl``, as pi's OpenAI ``baseUrl`` includes ``/v1``.
* ``POST /v1/messages`` (or any path ending in ``/messages``): Anthropic messages SSE. Use
  ``server.anthropic_base_url`` (``http://127.0.0.1:PORT``) as the model's ``baseUrl``.
* ``POST /v1/responses`` (any path ending in ``/responses``): OpenAI Responses SSE (see
  ``fake_llm_responses`` for its extra turn keys); ``baseUrl`` = ``server.openai_base_url``.
* ``POST /v1beta/models/<id>:streamGenerateContent?alt=sse``: Gemini SSE (see ``fake_llm_google``);
  ``baseUrl`` = ``server.google_base_url``.
* ``GET /health``: ``200 ok`` (not logged, consumes no turn).
* The login endpoints of Anthropic, OpenAI Codex and GitHub Copilot (``/oauth/authorize``,
  ``/v1/oauth/token``, ``/oauth/token``, ``/login/device/code``, ...): see ``fake_llm_oauth``
  (not logged, consume no turn; ``server.oauth`` holds their state).

Each POST consumes the next scripted turn (FIFO). With an empty queue the server answers
``500 {"error":{"message":"fake server: no scripted turn left"}}`` (or, with ``loop=True`` /
``--loop``, starts over from the first turn of the script).

Script format
-------------
A script is a JSON list of turns (or ``{"turns": [...]}``). A turn is an object; every key is
optional:

==================== =========================================================================
key                  meaning
==================== =========================================================================
``text``             answer text, streamed in ``chunk_size`` pieces
``text_repeat``      int: the text is ``text * text_repeat`` (big answers without big scripts)
``thinking``         reasoning text, streamed before the text (OpenAI: ``reasoning_content``
                     deltas; Anthropic: a ``thinking`` block)
``reasoning_field``  OpenAI delta key for thinking (default ``reasoning_content``)
``thinking_signature`` Anthropic signature sent as one ``signature_delta`` (default ``"sig-1"``;
                     ``null`` = no signature delta, as if cut off)
``redacted_thinking`` Anthropic: a ``redacted_thinking`` block with this ``data`` first
``tool_calls``       list of ``{"name", "arguments" (object or raw JSON string), "id"?}``;
                     arguments stream in ``chunk_size`` pieces
``interleave_tools`` bool: OpenAI tool-call fragments alternate between calls (index 0,1,0,1)
``chunk_size``       characters per delta (default 8)
``finish_reason``    OpenAI ``finish_reason`` / Anthropic ``stop_reason``; default ``tool_calls``/
                     ``tool_use`` with tool calls, else ``stop``/``end_turn``; ``null`` = none sent
``usage``            ``{"input", "output", "cache_read", "cache_write", "reasoning"}`` (defaults:
                     input = request bytes // 4, output = answer chars // 4, caches 0, reasoning
                     not reported by OpenAI/Anthropic); ``null`` = OpenAI sends no usage chunk
``usage_extra``      fields merged into the raw OpenAI usage / Anthropic ``message_delta`` usage
                     (e.g. OpenRouter's ``{"cost": 0.5, "is_byok": false}``)
``done``             OpenAI: send ``data: [DONE]`` at the end (default true)
``error_event``      mid-stream error after the content instead of finishing. OpenAI: sent as
                     ``data: {"error": <value>}``; Anthropic: ``event: error`` with
                     ``{"type":"error","error": <value>}``
``status``           HTTP status; a non-2xx status answers with ``body`` and no stream
``body``             error body: a string sent verbatim, or JSON (default
                     ``{"error":{"message":"fake error <status>"}}``)
``headers``          extra response headers, e.g. ``{"retry-after": "1"}``
``content_type``     response content type (default ``text/event-stream``, errors
                     ``application/json``)
``raw``              string or list of strings sent as the body instead of generated events;
                     each list item is one write (delays apply between writes); a lone
                     surrogate ``\\udc80``-``\\udcff`` sends that raw byte (invalid UTF-8)
``newline``          line ending of generated SSE lines (default ``"\\n"``; try ``"\\r\\n"``)
``split_bytes``      int: re-split the body into writes of this many bytes (may cut UTF-8)
``delay_first``      seconds before the response headers are sent
``delay_chunk``      seconds between writes
``rate``             writes per second, paced against a clock so the rate does not drift with
                     the sleeps' overshoot (benchmarks: ``chunk_size`` 4 at ``rate`` 100 is
                     ~100 tokens/s); overrides ``delay_chunk``
``drop_after``       int: close the connection abruptly after this many writes (no terminal
                     chunk, so the client sees a broken body)
``stall_after``      int: after this many writes send nothing more and hold the connection open
                     until the client closes it or the server stops
``stall``            bool: send every write, then hold the connection open without ending the body
``model``            model name reported in chunks (default: the request's ``model``)
``id``               response id (default ``chatcmpl-fake-N`` / ``msg_fake_N``)
==================== =========================================================================

"Writes" are SSE events (one ``data:`` message each) unless ``raw`` or ``split_bytes`` says
otherwise.

Request log
-----------
Every POST is appended to ``server.requests`` (and, with ``log_path`` / ``--log``, written as one
JSON line) as ``{"index", "method", "path", "headers" (lower-case names), "body" (parsed JSON, or
the text if it is not JSON), "turn" (index into the script or None), "client_closed" (set True
when the client hung up on a stalled response)}``.

Use from tests
--------------
In the test's event loop::

    server = FakeLLMServer([{"text": "hi"}])
    await server.start()          # or: async with FakeLLMServer(turns) as server:
    model["baseUrl"] = server.openai_base_url
    ...
    await server.stop()

From synchronous code (its own loop in a daemon thread)::

    with FakeLLMServer(turns) as server:   # start_in_thread() / stop_thread()
        ...

As a subprocess: ``python tools/fake_llm_server.py --script turns.json [--log req.jsonl] [--loop]``
prints ``http://127.0.0.1:PORT`` as the first line of stdout (flushed) and serves until SIGTERM or
SIGINT. The OpenAI base URL is that line + ``/v1``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
import threading
from collections import deque
from pathlib import Path
from types import TracebackType
from typing import Any

# tools/ is on sys.path both when this file runs as a script and when tests import it.
from fake_llm_events import Turn, anthropic_events, dumps, openai_events
from fake_llm_google import google_events
from fake_llm_oauth import FakeOAuth
from fake_llm_responses import responses_events

_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    408: "Request Timeout",
    413: "Payload Too Large",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    529: "Overloaded",
}


# --- HTTP plumbing ---------------------------------------------------------------------------


class FakeLLMServer:
    """A scripted server; see the module docstring for the script format and usage."""

    def __init__(
        self,
        turns: list[Turn] | None = None,
        *,
        log_path: str | Path | None = None,
        loop: bool = False,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self._script: list[Turn] = list(turns or [])
        self._queue: deque[tuple[int, Turn]] = deque(enumerate(self._script))
        self._loop_script = loop
        self._host = host
        self._port = port
        self._log_path = Path(log_path) if log_path else None
        self.requests: list[dict[str, Any]] = []
        self.port = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._thread: threading.Thread | None = None
        self._thread_loop: asyncio.AbstractEventLoop | None = None
        self.oauth = FakeOAuth()  # the login endpoints (see fake_llm_oauth)

    # -- script -----------------------------------------------------------------------------

    def add_turns(self, turns: list[Turn]) -> None:
        """Append turns to the queue (and to the script used by ``loop``)."""
        for turn in turns:
            self._queue.append((len(self._script), turn))
            self._script.append(turn)

    @property
    def pending(self) -> int:
        """Turns not yet consumed."""
        return len(self._queue)

    def _next_turn(self) -> tuple[int | None, Turn | None]:
        if not self._queue and self._loop_script and self._script:
            self._queue.extend(enumerate(self._script))
        if not self._queue:
            return None, None
        return self._queue.popleft()

    # -- addresses --------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return f"http://{self._host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return self.base_url + "/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.base_url

    @property
    def google_base_url(self) -> str:
        return self.base_url + "/v1beta"

    # -- lifecycle (in the caller's loop) ---------------------------------------------------

    async def start(self) -> FakeLLMServer:
        self._server = await asyncio.start_server(self._handle, self._host, self._port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1.0)
            self._server = None

    async def __aenter__(self) -> FakeLLMServer:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # -- lifecycle (own loop in a daemon thread) --------------------------------------------

    def start_in_thread(self) -> FakeLLMServer:
        ready = threading.Event()
        loop = asyncio.new_event_loop()
        self._thread_loop = loop

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.run_until_complete(self.start())
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self.stop())
            loop.close()

        self._thread = threading.Thread(target=run, name="fake-llm-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop_thread(self) -> None:
        if self._thread_loop is not None and self._thread is not None:
            self._thread_loop.call_soon_threadsafe(self._thread_loop.stop)
            self._thread.join(10)
            self._thread = None
            self._thread_loop = None

    def __enter__(self) -> FakeLLMServer:
        return self.start_in_thread()

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.stop_thread()

    # -- connection handling ----------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            while await self._one_request(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:
            pass  # stop() cancels open connections; swallowing keeps asyncio from logging it
        finally:
            self._tasks.discard(task)
            with contextlib.suppress(Exception):
                writer.close()

    async def _one_request(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Serve one request; False when the connection should close."""
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = [*lines[0].split(" ", 2), "", ""][:3]
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            raw = bytearray()
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                raw += await reader.readexactly(size + 2)
                if size == 0:
                    break
                del raw[-2:]
            body_bytes = bytes(raw[:-2]) if raw.endswith(b"\r\n") else bytes(raw)
        else:
            body_bytes = await reader.readexactly(int(headers.get("content-length", "0") or 0))
        if method == "GET" and path.startswith("/health"):
            await self._send_plain(writer, 200, "ok", "text/plain", {})
            return True
        if self.oauth.handles(path):  # login endpoints (fake_llm_oauth): no scripted turn consumed
            status, payload, extra = self.oauth.handle(method, path, headers, body_bytes)
            await self._send_plain(writer, status, payload, "application/json", extra)
            return True
        text = body_bytes.decode("utf-8", errors="replace")
        try:
            body: Any = json.loads(text)
        except ValueError:
            body = text
        turn_index, turn = self._next_turn()
        entry = {
            "index": len(self.requests),
            "method": method,
            "path": path,
            "headers": headers,
            "body": body,
            "turn": turn_index,
            "client_closed": False,
        }
        self.requests.append(entry)
        if self._log_path is not None:
            with self._log_path.open("a", encoding="utf-8") as log:
                log.write(json.dumps({k: v for k, v in entry.items() if k != "client_closed"}) + "\n")
        if turn is None:
            await self._send_plain(
                writer,
                500,
                dumps({"error": {"message": "fake server: no scripted turn left"}}),
                "application/json",
                {},
            )
            return True
        if turn.get("delay_first"):
            await asyncio.sleep(float(turn["delay_first"]))
        status = int(turn.get("status", 200))
        if not 200 <= status < 300:
            err_body = turn.get("body", {"error": {"message": f"fake error {status}"}})
            payload = err_body if isinstance(err_body, str) else dumps(err_body)
            await self._send_plain(
                writer, status, payload, turn.get("content_type", "application/json"), turn.get("headers", {})
            )
            return True
        request = body if isinstance(body, dict) else {}
        writes = self._body_writes(turn, path, request, len(body_bytes), len(self.requests))
        return await self._stream(writer, reader, turn, writes, entry)

    def _body_writes(self, turn: Turn, path: str, request: dict[str, Any], nbytes: int, number: int) -> list[bytes]:
        nl = turn.get("newline", "\n")
        if "raw" in turn:
            raw = turn["raw"]
            # surrogateescape: "\udcff" in a script sends the single byte 0xff (invalid UTF-8 tests).
            writes = (
                [raw.encode("utf-8", "surrogateescape")]
                if isinstance(raw, str)
                else [item.encode("utf-8", "surrogateescape") for item in raw]
            )
        elif path.split("?", 1)[0].rstrip("/").endswith("/responses"):
            writes = [
                f"event: {name}{nl}data: {data}{nl}{nl}".encode()
                for name, data in responses_events(turn, request, number, nbytes)
            ]
        elif ":streamGenerateContent" in path:
            named = {**request, "model": path.split("/models/", 1)[-1].split(":", 1)[0]}  # the id is in the path
            writes = [f"data: {data}{nl}{nl}".encode() for data in google_events(turn, named, number, nbytes)]
        elif path.split("?", 1)[0].rstrip("/").endswith("/messages"):  # pi 1.6 adds ?beta=true
            writes = [
                f"event: {name}{nl}data: {data}{nl}{nl}".encode()
                for name, data in anthropic_events(turn, request, number, nbytes)
            ]
        else:
            writes = [f"data: {data}{nl}{nl}".encode() for data in openai_events(turn, request, number, nbytes)]
        split = turn.get("split_bytes")
        if split:
            whole = b"".join(writes)
            writes = [whole[i : i + int(split)] for i in range(0, len(whole), int(split))]
        return writes

    async def _stream(
        self,
        writer: asyncio.StreamWriter,
        reader: asyncio.StreamReader,
        turn: Turn,
        writes: list[bytes],
        entry: dict[str, Any],
    ) -> bool:
        headers = {
            "content-type": turn.get("content_type", "text/event-stream"),
            "cache-control": "no-cache",
            "transfer-encoding": "chunked",
            **turn.get("headers", {}),
        }
        status = int(turn.get("status", 200))
        writer.write(self._head(status, headers))
        await writer.drain()
        delay = float(turn.get("delay_chunk", 0))
        rate = float(turn.get("rate", 0) or 0)
        started = asyncio.get_running_loop().time()
        drop_after = turn.get("drop_after")
        stall_after = turn.get("stall_after")
        if not delay and not rate and drop_after is None and stall_after is None and not turn.get("stall"):
            # Fast path (benchmarks): one write, still one HTTP chunk per SSE event.
            writer.write(b"".join(b"%x\r\n%s\r\n" % (len(data), data) for data in writes) + b"0\r\n\r\n")
            await writer.drain()
            return True
        for count, data in enumerate(writes):
            if drop_after is not None and count >= int(drop_after):
                await writer.drain()
                writer.close()
                return False
            if stall_after is not None and count >= int(stall_after):
                break
            if rate and count:
                await writer.drain()
                wait = started + count / rate - asyncio.get_running_loop().time()
                if wait > 0:
                    await asyncio.sleep(wait)
            elif delay and count:
                await writer.drain()
                await asyncio.sleep(delay)
            writer.write(b"%x\r\n%s\r\n" % (len(data), data))
            if delay or rate or count % 64 == 0:
                await writer.drain()
        else:
            if drop_after is not None:  # everything written, then the connection breaks
                await writer.drain()
                writer.close()
                return False
            if not turn.get("stall"):
                writer.write(b"0\r\n\r\n")
                await writer.drain()
                return True
        # stall: hold the connection until the client goes away (or stop() cancels us)
        await writer.drain()
        while True:
            if not await reader.read(4096):
                entry["client_closed"] = True
                return False

    @staticmethod
    def _head(status: int, headers: dict[str, str]) -> bytes:
        lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    async def _send_plain(
        self, writer: asyncio.StreamWriter, status: int, body: str, content_type: str, extra: dict[str, str]
    ) -> None:
        data = body.encode()
        headers = {"content-type": content_type, "content-length": str(len(data)), **extra}
        writer.write(self._head(status, headers) + data)
        await writer.drain()


def load_script(path: str | Path) -> list[Turn]:
    """Read a script file: a JSON list of turns or ``{"turns": [...]}``."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    turns = data.get("turns") if isinstance(data, dict) else data
    if not isinstance(turns, list) or not all(isinstance(t, dict) for t in turns):
        raise ValueError(f'{path}: expected a JSON list of turn objects (or {{"turns": [...]}})')
    return turns


async def _serve(args: argparse.Namespace) -> None:
    server = FakeLLMServer(
        load_script(args.script) if args.script else [], log_path=args.log, loop=args.loop, port=args.port
    )
    await server.start()
    print(server.base_url, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Scripted fake OpenAI/Anthropic/Gemini streaming server (127.0.0.1).")
    parser.add_argument("--script", help="JSON file: list of turns (see module docstring)")
    parser.add_argument("--log", help="append every request as a JSON line to this file")
    parser.add_argument("--loop", action="store_true", help="restart the script when it runs out")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    args = parser.parse_args(argv)
    try:
        asyncio.run(_serve(args))
    except (OSError, ValueError) as exc:
        print(f"fake_llm_server: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
