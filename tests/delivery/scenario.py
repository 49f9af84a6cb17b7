"""A scripted model and randomised moments for "text typed while the agent runs reaches the model".

Each round sends ``task N``; while its run is at one of :data:`POINTS` the front end under test
submits ``FOLLOW N`` (Enter or Alt+Enter, chosen at random), and the round passes once a request
to the model carries that text. The model answers by the request's content:

* ``task N`` with the ``tool`` point → a ``bash`` call (``sleep``), then text after its result;
* anything else → a few hundred characters of text, streamed in small chunks.

Points (issue 32): ``before`` the first token, ``mid``-text, during a ``tool`` call, and at the
``end`` — a random 0–6 ms after ``agent_end``, which lands before, at and after the run settles.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pi_cli.ai.providers.faux import faux_assistant, faux_text, faux_tool_call

POINTS = ("before", "mid", "tool", "end")
ANSWER = "Working on it: " + "a first answer in small pieces. " * 3
TOOL_SLEEP_S = 0.04


@dataclass(slots=True)
class Round:
    index: int
    point: str
    key: str  # "enter" (steering) or "alt+enter" (a follow-up)
    delay: float  # seconds after the point's event
    at_delta: int = 3  # ``mid``: submit after this many text deltas

    @property
    def prompt(self) -> str:
        return f"task {self.index}"

    @property
    def follow(self) -> str:
        return f"FOLLOW {self.index}"

    def describe(self) -> str:
        return f"round {self.index}: {self.key} at {self.point} +{self.delay * 1000:.1f} ms"


def plan(rounds: int, seed: int) -> list[Round]:
    """``rounds`` rounds spread evenly over the points, keys and delays drawn from ``seed``."""
    rng = random.Random(seed)
    out = []
    for index in range(rounds):
        point = POINTS[index % len(POINTS)]
        delay = {"before": 0.0, "mid": rng.uniform(0, 0.01), "tool": rng.uniform(0, TOOL_SLEEP_S * 0.8)}.get(
            point, rng.uniform(0, 0.006)
        )
        out.append(Round(index, point, rng.choice(("enter", "alt+enter")), delay, rng.randint(1, 6)))
    return out


def user_texts(messages: list[Any]) -> list[str]:
    texts = []
    for message in messages:
        if message.get("role") == "user":
            content = message["content"]
            texts.append(content if isinstance(content, str) else "".join(b.get("text", "") for b in content))
    return texts


class ScriptedModel:
    """The faux provider's replies for a run of :class:`Round`s (see the module doc)."""

    def __init__(self, faux: Any) -> None:
        self.faux = faux
        self.current: Round | None = None
        self.released = asyncio.Event()
        self.seen: set[str] = set()  # user texts the model has been sent
        faux.tokens_per_second = 2000

    def __call__(self, context: Any, options: Any, index: int) -> Any:
        self.faux.append_responses([self])  # answer every request this way
        messages = context["messages"]
        last = messages[-1] if messages else {}
        texts = user_texts(messages[-8:])  # a round adds at most a few messages
        self.seen.update(texts)
        round_ = self.current
        wants_tool = round_ is not None and round_.point == "tool" and texts[-1:] == [round_.prompt]
        if last.get("role") == "user" and wants_tool:
            return faux_assistant([faux_tool_call("bash", {"command": f"sleep {TOOL_SLEEP_S}"})])
        reply = faux_assistant([faux_text(ANSWER)])
        if round_ is not None and round_.point == "before" and texts[-1:] == [round_.prompt]:
            return self._held(reply)  # no token until the follow-up has been submitted
        return reply

    async def _held(self, reply: Any) -> Any:
        await self.released.wait()
        return reply

    def arm(self, round_: Round) -> None:
        self.current = round_
        self.released = asyncio.Event()

    def start(self) -> None:
        self.faux.set_responses([self])

    def reached(self, text: str) -> bool:
        """Whether some request to the model carried ``text`` as a user message."""
        return text in self.seen


class Trigger:
    """Calls ``submit(round)`` once at the round's point, watching the session's events."""

    def __init__(self, session: Any, submit: Callable[[Round], Any]) -> None:
        self._submit = submit
        self._round: Round | None = None
        self._deltas = 0
        self.tasks: list[asyncio.Future[Any]] = []
        self.stranded: list[str] = []  # the invariant's breaches: a run settled with text still queued
        self._session = session
        self._unsubscribe = session.subscribe(self._on_event)

    def arm(self, round_: Round) -> None:
        self._round = round_
        self._deltas = 0

    def fire(self) -> None:
        round_, self._round = self._round, None
        if round_ is not None:
            self.tasks.append(asyncio.ensure_future(_maybe_await(self._submit(round_))))

    def _later(self, delay: float) -> None:
        asyncio.get_running_loop().call_later(delay, self.fire)

    def _on_event(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        session = self._session
        if kind == "agent_settled" and not event["aborted"] and session.agent.has_queued_messages():
            self.stranded.append(str(session.steering_messages + session.follow_up_messages))
        round_ = self._round
        if round_ is None:
            return
        if round_.point == "mid" and kind == "message_update":
            if event.get("assistantMessageEvent", {}).get("type") == "text_delta":
                self._deltas += 1
                if self._deltas == round_.at_delta:
                    self._later(round_.delay)
        elif (round_.point == "tool" and kind == "tool_execution_start") or (
            round_.point == "end" and kind == "agent_end"
        ):
            self._later(round_.delay)

    def close(self) -> None:
        self._unsubscribe()


async def _maybe_await(value: Any) -> Any:
    if asyncio.iscoroutine(value) or isinstance(value, asyncio.Future):
        return await value
    return value


async def wait_until(condition: Callable[[], Any], what: str | Callable[[], str], timeout: float = 5.0) -> None:
    """Poll ``condition`` every 5 ms; fail after ``timeout`` with ``what`` (called then, if callable)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"not reached in {timeout:g} s: {what() if callable(what) else what}")
        await asyncio.sleep(0.005)


async def drive_rounds(
    session: Any, model: ScriptedModel, rounds: list[Round], send_prompt: Callable[[Round], Any],
    submit: Callable[[Round], Any],
) -> None:  # fmt: skip
    """Play ``rounds`` through a front end: ``send_prompt`` types a round's prompt and Enter,
    ``submit`` its follow-up text and key; each round must reach the model, and no run may settle
    (unaborted) with text still queued."""
    trigger = Trigger(session, submit)

    def queued() -> str:
        return str(session.steering_messages + session.follow_up_messages)

    try:
        for round_ in rounds:
            model.arm(round_)
            trigger.arm(round_)
            send_prompt(round_)
            prompt, follow = round_.prompt, round_.follow
            await wait_until(lambda: session.is_streaming or model.reached(prompt), round_.describe)  # noqa: B023
            if round_.point == "before":
                trigger.fire()
                await wait_until(lambda: session.follow_up_messages or session.steering_messages, round_.describe)
                model.released.set()
            await wait_until(
                lambda: model.reached(follow) and not session.is_streaming,  # noqa: B023
                lambda: f"{round_.describe()} (queued: {queued()})",  # noqa: B023
            )
    finally:
        trigger.close()
    assert trigger.stranded == []  # every run that settled unaborted had delivered its queue
    assert session.steering_messages == [] and session.follow_up_messages == []
