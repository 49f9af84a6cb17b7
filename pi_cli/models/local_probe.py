"""Find a local OpenAI-compatible server when no provider is configured.

Ollama (127.0.0.1:11434) and LM Studio (127.0.0.1:1234) both answer ``GET /v1/models`` with
``{"data": [{"id": ...}, ...]}``. The probe uses a raw socket request with a short timeout (no
httpx import at start-up) and only ever talks to the loopback address. Callers skip it in
offline mode.
"""

from __future__ import annotations

import json
import socket
from typing import Any

from pi_cli.ai.types import Model

LOCAL_SERVERS: tuple[tuple[str, str, int], ...] = (
    ("ollama", "Ollama", 11434),
    ("lmstudio", "LM Studio", 1234),
)
LOCAL_API_KEY = "local"


def _get_json(port: int, path: str, timeout: float) -> Any:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        request = f"GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json\r\n\r\n"
        sock.sendall(request.encode("ascii"))
        chunks: list[bytes] = []
        while True:
            data = sock.recv(65536)
            if not data:
                break
            chunks.append(data)
            if sum(len(c) for c in chunks) > 4_000_000:
                break
    raw = b"".join(chunks)
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line = head.split(b"\r\n", 1)[0]
    if b" 200 " not in status_line + b" ":
        return None
    return json.loads(body.decode("utf-8", errors="replace"))


def local_model(provider: str, label: str, port: int, model_id: str) -> Model:
    """A models.json-style custom model for a local server (pi's custom-model defaults)."""
    return {
        "id": model_id,
        "name": f"{model_id} ({label})",
        "api": "openai-completions",
        "provider": provider,
        "baseUrl": f"http://127.0.0.1:{port}/v1",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0},
        "contextWindow": 128000,
        "maxTokens": 16384,
        "compat": {"supportsStore": False, "supportsDeveloperRole": False, "maxTokensField": "max_tokens"},
    }


def probe_local_servers(timeout: float = 0.3) -> list[Model]:
    """Models offered by the first local server that answers, else an empty list."""
    for provider, label, port in LOCAL_SERVERS:
        try:
            payload = _get_json(port, "/v1/models", timeout)
        except (OSError, ValueError):
            continue
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            continue
        ids = [str(item["id"]) for item in data if isinstance(item, dict) and item.get("id")]
        if ids:
            return [local_model(provider, label, port, model_id) for model_id in ids]
    return []
