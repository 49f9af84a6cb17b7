"""``python tools/bench.py stream``: a 20,000-token answer through the OpenAI provider.

The fake server runs as a subprocess (its CPU is not ours) and streams ~23,000 six-character
chunks (~138 kB of text; ~20,000 tokens at ~7 characters each). Figures, best of several runs:

* wall and process CPU seconds from ``stream()`` to the final event over real HTTP (our provider
  plus the HTTP/1.1 transport), and the CPU of just reading the same body the way providers do;
* the provider's own CPU: the same recorded bytes replayed through the SSE decoder and chunk parser
  without a socket (budget ≤ 0.3 s);
* peak RSS of this process.

``--stages`` instead reports CPU µs per event, stage by stage, on issue 29's paced stream (4,000
characters/s in 4-character events) and ``pi -p`` beside pi 1.6.0; see ``tools/stream_stages.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

NAME = "stream"
BUDGET = "provider adds <= 0.3 s CPU for ~23,000 chunks"
CHUNKS = 23_000
WORD = "token "  # 6 characters per chunk
RUNS = 5


def _model(base_url: str) -> Any:
    return {
        "id": "bench",
        "name": "bench",
        "api": "openai-completions",
        "provider": "bench",
        "baseUrl": base_url,
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 200_000,
        "maxTokens": 32_000,
    }


async def _through_provider(base_url: str) -> tuple[float, float, int]:
    from pi_cli.ai.options import StreamOptions
    from pi_cli.ai.stream import stream

    context: Any = {"messages": [{"role": "user", "content": "write a lot", "timestamp": 0}]}
    wall, cpu = time.perf_counter(), time.process_time()
    deltas = 0
    s = stream(_model(base_url), context, StreamOptions(api_key="bench"))
    async for event in s:
        if event["type"] == "text_delta":
            deltas += 1
    final = await s.result()
    if final["stopReason"] != "stop" or len(final["content"][0]["text"]) != CHUNKS * len(WORD):  # type: ignore[typeddict-item]
        raise RuntimeError(f"unexpected result: {final['stopReason']} {final.get('errorMessage')}")
    return time.perf_counter() - wall, time.process_time() - cpu, deltas


async def _transport_only(base_url: str) -> tuple[float, bytes]:
    """CPU of reading the same body the way providers do (their client, their body reader)."""
    from pi_cli.ai.options import StreamOptions
    from pi_cli.ai.transport.http_client import AbortScope, open_stream

    body = bytearray()
    cpu = time.process_time()
    headers = {"content-type": "application/json"}
    request = b'{"model": "bench", "messages": []}'
    url = base_url + "/chat/completions"
    response = await open_stream(url, headers, request, StreamOptions(), AbortScope(None), "bench")
    reader = response.extensions.get("pi_body")
    if reader is None:  # httpx's own transport (a proxy, PI_HTTP_BACKEND)
        async for raw in response.aiter_raw():
            body += raw
    else:
        while raw := await reader.read_some():
            body += raw
    await response.aclose()
    return time.process_time() - cpu, bytes(body)


def _replay(body: bytes) -> float:
    """Provider CPU without a socket: decoder + chunk parser over the recorded body, event by event."""
    from pi_cli.ai.providers.openai_completions import ChunkParser
    from pi_cli.ai.transport.provider_common import new_output
    from pi_cli.ai.transport.sse import SSEDecoder

    pieces = [piece + b"\n\n" for piece in body.split(b"\n\n") if piece]
    cpu = time.process_time()
    model = _model("http://unused")
    output = new_output(model)
    parser = ChunkParser(output, model)
    decoder = SSEDecoder()
    for piece in pieces:
        for sse in decoder.feed(piece):
            for _event in parser.feed(sse):
                pass
    parser.end_events()
    return time.process_time() - cpu


def run() -> list[tuple[str, str, str, bool]]:
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "turns.json"
        script.write_text(json.dumps([{"text": WORD, "text_repeat": CHUNKS, "chunk_size": len(WORD)}]))
        server = subprocess.Popen(
            [sys.executable, str(ROOT / "tools" / "fake_llm_server.py"), "--script", str(script), "--loop"],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            base_url = server.stdout.readline().strip() + "/v1"

            async def measure() -> tuple[list[tuple[float, float, int]], list[float], bytes]:
                runs = [await _through_provider(base_url) for _ in range(RUNS)]
                transport = []
                body = b""
                for _ in range(RUNS):
                    cpu, body = await _transport_only(base_url)
                    transport.append(cpu)
                return runs, transport, body

            runs, transport, body = asyncio.run(measure())
        finally:
            server.terminate()
            server.wait(5)
    replay = min(_replay(body) for _ in range(RUNS))
    wall = min(r[0] for r in runs)
    cpu = min(r[1] for r in runs)
    deltas = runs[0][2]
    transport_cpu = min(transport)
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return [
        ("stream: text deltas", f"{deltas}", f"{CHUNKS}", deltas == CHUNKS),
        ("stream: wall, HTTP end to end", f"{wall:.3f} s", "-", True),
        ("stream: CPU, provider + HTTP", f"{cpu:.3f} s", "-", True),
        ("stream: CPU, HTTP body read only", f"{transport_cpu:.3f} s", "-", True),
        (
            "stream: CPU, provider added (HTTP)",
            f"{max(0.0, cpu - transport_cpu):.3f} s",
            "<= 0.300 s",
            cpu - transport_cpu <= 0.3,
        ),
        ("stream: CPU, provider (replayed bytes)", f"{replay:.3f} s", "<= 0.300 s", replay <= 0.3),
        ("stream: peak RSS", f"{rss_mib:.0f} MiB", "-", True),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_stream.py", description=__doc__.split("\n")[0])
    parser.add_argument("--stages", action="store_true", help="µs per event, stage by stage (tools/stream_stages.py)")
    parser.add_argument("--events", type=int, default=3000, help="events per in-process round (--stages)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--window", type=float, default=4.0, help="seconds of pi -p measured per round (--stages)")
    parser.add_argument("--reference-pi", action="store_true", help="also pi 1.6.0 (--stages)")
    args = parser.parse_args(argv)
    if args.stages:
        from stream_stages import report

        for line in report(args.events, args.rounds, args.window, args.reference_pi):
            print(line, flush=True)
        return 0
    for row in run():
        print(*row, sep="\t")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
