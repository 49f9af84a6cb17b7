"""ACP ``initialize`` answered before the ACP SDK is imported.

Importing the SDK (pydantic schema models) takes ~0.4 s, pi-acp answers ``initialize`` in ~130 ms
and editors wait for that answer before they show the agent. So the first message, when it is a
plain ``initialize``, is answered from :func:`initialize_result` — the same JSON the SDK would
serialise from :meth:`pi_cli.modes.acp.agent.PiAcpAgent.initialize` (tests/acp_mode compares the
two) — and the SDK is imported afterwards. Anything unusual in the request goes the slow way, so
the SDK's own validation answers it.

This module imports nothing from the SDK.
"""

from __future__ import annotations

from typing import Any

from pi_cli import __version__

PROTOCOL_VERSION = 1
_PARAM_KEYS = frozenset(("protocolVersion", "clientCapabilities", "clientInfo", "_meta"))


def initialize_result(protocol_version: int) -> dict[str, Any]:
    """The ``initialize`` result for a client asking ``protocol_version`` (key order as the SDK's)."""
    return {
        "protocolVersion": min(protocol_version, PROTOCOL_VERSION),
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
            "mcpCapabilities": {"http": True, "sse": False},
            "sessionCapabilities": {"list": {}},
        },
        "authMethods": [],
        "agentInfo": {"name": "pi_cli", "title": "pi", "version": __version__},
    }


def fast_answer(message: dict[str, Any] | None) -> dict[str, Any] | None:
    """The JSON-RPC response to ``message`` when it is an ``initialize`` this module may answer
    (an id, object params with a non-negative integer ``protocolVersion`` and only the schema's
    keys, capabilities and client info as objects); None otherwise (the SDK answers it)."""
    if not isinstance(message, dict) or message.get("method") != "initialize" or "id" not in message:
        return None
    params = message.get("params")
    if not isinstance(params, dict) or not set(params) <= _PARAM_KEYS:
        return None
    version = params.get("protocolVersion")
    if not isinstance(version, int) or isinstance(version, bool) or not 0 <= version <= 65535:
        return None
    if any(not isinstance(params.get(key, {}), dict) for key in ("clientCapabilities", "clientInfo", "_meta")):
        return None
    return {"jsonrpc": "2.0", "id": message["id"], "result": initialize_result(version)}
