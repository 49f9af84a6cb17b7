"""The session's end-of-run rule (issue 32): a run settles only once nothing queued is left.

The agent polls its queues after each turn; text queued after the last poll — while ``agent_end``
listeners, a retry or a compaction ran — used to wait in an idle agent for good. Now the session
continues for it, and ``agent_settled`` comes after; after an abort the queues stay as they were.
"""

from __future__ import annotations

import asyncio
from typing import Any

from delivery.scenario import user_texts
from pi_cli.ai.providers.faux import faux_assistant, faux_text


async def test_a_follow_up_queued_while_agent_end_listeners_run_is_delivered_before_settling(
    faux: Any, session: Any
) -> None:
    faux.set_responses([faux_assistant([faux_text("first")]), faux_assistant([faux_text("second")])])
    seen: list[str] = []

    async def slow_listener(event: dict[str, Any]) -> None:
        seen.append(event["type"])
        if event["type"] == "agent_end" and seen.count("agent_end") == 1:
            await asyncio.sleep(0.02)  # e.g. an RPC writer draining, an extension's handler

    session.subscribe(slow_listener)
    run = asyncio.ensure_future(session.prompt("one"))
    while "agent_end" not in seen:
        await asyncio.sleep(0.001)
    assert session.is_streaming  # the run has not settled: the text joins this run
    session.follow_up("two")
    await run
    assert faux.call_count == 2
    assert user_texts(faux.requests[1].context["messages"]) == ["one", "two"]
    assert seen.count("agent_settled") == 1 and seen[-1] == "agent_settled"
    assert session.follow_up_messages == [] and not session.agent.has_queued_messages()


async def test_after_an_abort_the_queue_is_kept_for_the_front_end(faux: Any, session: Any) -> None:
    release = asyncio.Event()

    async def slow(context: Any, options: Any, index: int) -> Any:
        await release.wait()
        return faux_assistant([faux_text("never")])

    faux.set_responses([slow])
    run = asyncio.ensure_future(session.prompt("one"))
    while faux.call_count == 0:
        await asyncio.sleep(0.001)
    session.follow_up("kept")
    await session.abort()
    await run
    assert faux.call_count == 1  # nothing more was sent
    assert session.follow_up_messages == ["kept"]  # TUI/inline put it back in the editor; RPC keeps it
    assert session.clear_queues() == ([], ["kept"])


async def test_a_prompt_sent_while_agent_settled_is_announced_starts_after_it(faux: Any, session: Any) -> None:
    faux.set_responses([faux_assistant([faux_text("first")]), faux_assistant([faux_text("second")])])
    order: list[str] = []
    later: list[Any] = []

    async def listener(event: dict[str, Any]) -> None:
        if event["type"] in ("agent_start", "agent_settled"):
            order.append(event["type"])
        if event["type"] == "agent_settled" and not later:
            later.append(asyncio.ensure_future(session.begin_prompt("two")))  # idle now: the next run
            await asyncio.sleep(0.01)
            order.append("settled-delivered")

    session.subscribe(listener)
    await session.prompt("one")
    await later[0]
    assert order == ["agent_start", "agent_settled", "settled-delivered", "agent_start", "agent_settled"]
