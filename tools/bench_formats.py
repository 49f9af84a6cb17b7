"""``python tools/bench_formats.py``: provider CPU per wire format for one ~20,000-token answer.

The same answer (23,000 six-character text deltas) is generated in each format by the fake
server's event builders and replayed, without a socket, through the SSE decoder and that format's
parser, event by event as the network would deliver them. Best of five runs; prints one row per
format: format, SSE bytes, deltas, CPU seconds (the ``stream`` benchmark's budget is 0.3 s).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from fake_llm_events import anthropic_events, openai_events  # noqa: E402
from fake_llm_google import google_events  # noqa: E402
from fake_llm_responses import responses_events  # noqa: E402

from pi_cli.ai.providers.anthropic import EventParser  # noqa: E402
from pi_cli.ai.providers.google import GeminiParser  # noqa: E402
from pi_cli.ai.providers.openai_completions import ChunkParser  # noqa: E402
from pi_cli.ai.providers.openai_responses import ResponsesParser  # noqa: E402
from pi_cli.ai.transport.provider_common import new_output  # noqa: E402
from pi_cli.ai.transport.sse import SSEDecoder  # noqa: E402

CHUNKS = 23_000
WORD = "token "
RUNS = 5
TURN = {"text": WORD, "text_repeat": CHUNKS, "chunk_size": len(WORD)}


def _model(api: str) -> Any:
    return {
        "id": "bench",
        "name": "bench",
        "api": api,
        "provider": "bench",
        "baseUrl": "http://unused",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 200_000,
        "maxTokens": 32_000,
    }


def _named(pairs: list[tuple[str, str]]) -> list[bytes]:
    return [f"event: {name}\ndata: {data}\n\n".encode() for name, data in pairs]


def _bodies() -> dict[str, list[bytes]]:
    request = {"model": "bench"}
    named = _named
    return {
        "openai-completions": [f"data: {d}\n\n".encode() for d in openai_events(TURN, request, 1, 100)],
        "anthropic-messages": named(anthropic_events(TURN, request, 1, 100)),
        "openai-responses": named(responses_events(TURN, request, 1, 100)),
        "google-generative-ai": [f"data: {d}\r\n\r\n".encode() for d in google_events(TURN, request, 1, 100)],
    }


def _replay(api: str, writes: list[bytes]) -> tuple[float, int]:
    model = _model(api)
    output = new_output(model)
    decoder = SSEDecoder()
    deltas = 0
    cpu = time.process_time()
    if api == "openai-completions":
        chunk_parser = ChunkParser(output, model)
        for write in writes:
            for sse in decoder.feed(write):
                if sse.data != "[DONE]":
                    deltas += sum(e["type"] == "text_delta" for e in chunk_parser.feed_chunk(json.loads(sse.data)))
    elif api == "anthropic-messages":
        event_parser = EventParser(output, model)
        for write in writes:
            for sse in decoder.feed(write):
                deltas += sum(e["type"] == "text_delta" for e in event_parser.handle(sse.event, json.loads(sse.data)))
    else:
        parser: Any = ResponsesParser(output, model) if api == "openai-responses" else GeminiParser(output, model)
        for write in writes:
            for sse in decoder.feed(write):
                deltas += sum(e["type"] == "text_delta" for e in parser.feed(sse))
        parser.finish()
    elapsed = time.process_time() - cpu
    if output["content"][0]["text"] != WORD * CHUNKS:  # type: ignore[typeddict-item]
        raise RuntimeError(f"{api}: wrong text")
    return elapsed, deltas


def main() -> None:
    for api, writes in _bodies().items():
        best = min(_replay(api, writes) for _ in range(RUNS))
        size = sum(len(w) for w in writes)
        print(f"{api}\t{size / 1e6:.1f} MB\t{best[1]} deltas\t{best[0]:.3f} s CPU")


if __name__ == "__main__":
    main()
