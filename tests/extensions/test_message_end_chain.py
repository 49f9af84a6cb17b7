"""pi's ``message_end`` chaining: handlers may replace a finished message (same role) before the
session records it; later handlers, the agent's state, listeners and the session file all see the
replacement. A handler of another role is reported and ignored; each handler runs once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from extensions.test_session_control import make, one_turn


async def test_handlers_chain_and_the_replacement_is_what_is_recorded(faux: Any, tmp_path: Path) -> None:
    session, api, runner = make(faux, tmp_path)
    seen: list[tuple[str, Any]] = []
    errors: list[dict[str, Any]] = []
    runner.on_error = errors.append

    def price(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        message = event["message"]
        seen.append(("price", message["role"]))
        if message["role"] != "assistant":
            return None
        usage = {**message["usage"], "cost": {**message["usage"]["cost"], "total": 0.123}}
        return {"message": {**message, "usage": usage}}

    def stamp(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        message = event["message"]
        seen.append(("stamp", message.get("usage", {}).get("cost", {}).get("total")))
        if message["role"] == "assistant":
            return {"message": {**message, "content": [*message["content"], {"type": "text", "text": " [checked]"}]}}
        return {"message": {"role": "assistant", "content": []}}  # another role: refused

    api.on("message_end", price)
    api.on("message_end", stamp)
    heard: list[dict[str, Any]] = []
    session.subscribe(lambda event: heard.append(event["message"]) if event["type"] == "message_end" else None)
    await one_turn(faux, session)
    assistant = session.messages[-1]
    assert assistant["usage"]["cost"]["total"] == 0.123
    assert assistant["content"][-1] == {"type": "text", "text": " [checked]"}
    assert heard[-1]["content"][-1]["text"] == " [checked]"  # listeners hear the replacement
    assert ("stamp", 0.123) in seen  # the second handler saw the first one's replacement
    assert len([s for s in seen if s[0] == "price"]) == 2  # user + assistant, once each
    assert [e["event"] for e in errors] == ["message_end"] and "same role" in errors[0]["error"]
    assert session.messages[-2]["role"] == "user"  # the refused replacement changed nothing
    file = session.session_file
    assert file is not None
    recorded = [json.loads(line) for line in Path(file).read_text().splitlines()]  # noqa: ASYNC240
    last = [e for e in recorded if e.get("type") == "message"][-1]["message"]
    assert last["usage"]["cost"]["total"] == 0.123 and last["content"][-1]["text"] == " [checked]"
