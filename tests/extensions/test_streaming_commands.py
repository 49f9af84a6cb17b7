"""Extension commands and ``input`` handlers while the agent streams (pi 1.6.0's ``prompt`` with
``streamingBehavior``): a registered ``/command`` runs at once and is never queued as steering; other
text passes ``input`` (with ``streamingBehavior``) before it is queued. Session, TUI and inline."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pi_cli.ai.providers.faux import faux_assistant, faux_text
from pi_cli.extensions import ExtensionRunner
from pi_cli.extensions.api import ExtensionAPI


class Recorder:
    """An extension with ``/mark`` (records its args and whether the agent was busy) and an
    ``input`` handler that upper-cases queued text and consumes ``drop``."""

    def __init__(self) -> None:
        self.marks: list[tuple[str, bool]] = []
        self.inputs: list[dict[str, Any]] = []

    def register(self, pi: ExtensionAPI) -> None:
        def mark(args: str, ctx: Any) -> None:
            self.marks.append((args, ctx.is_idle()))

        def on_input(event: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
            self.inputs.append({k: event[k] for k in ("text", "source", "streamingBehavior")})
            if event["text"] == "drop":
                return {"action": "handled"}
            return {"action": "transform", "text": event["text"].upper()} if event["streamingBehavior"] else None

        pi.register_command("mark", mark, "record a mark")
        pi.on("input", on_input)


def gated(faux: Any) -> asyncio.Event:
    """The next model reply waits for the returned event (the agent streams until then)."""
    release = asyncio.Event()

    async def reply(context: Any, options: Any, index: int) -> Any:
        await release.wait()
        return faux_assistant([faux_text("done")])

    faux.set_responses([reply])
    return release


def make_session(faux: Any, cwd: Path, recorder: Recorder) -> tuple[Any, ExtensionRunner]:
    from pi_cli.session.assembly import SessionParts, build_session

    runner = ExtensionRunner(str(cwd))
    recorder.register(ExtensionAPI(runner, "ext.py"))
    session = build_session(cwd=cwd, parts=SessionParts(extensions=runner), system_prompt="t", model=faux.model())
    return session, runner


async def until(predicate: Callable[[], bool], step: Callable[[], Any] | None = None, tries: int = 2000) -> None:
    for _ in range(tries):
        if predicate():
            return
        await (step() if step is not None else asyncio.sleep(0.005))
    raise AssertionError("condition not reached")


def sent_texts(faux: Any) -> list[str]:
    return [str(m.get("content")) for r in faux.requests for m in r.context["messages"]]


async def test_session_dispositions_while_streaming(faux: Any, tmp_path: Path) -> None:
    recorder = Recorder()
    session, _runner = make_session(faux, tmp_path, recorder)
    assert await session.prepare_prompt("drop", None, "steer") == ("handled", None)
    assert recorder.inputs[-1]["streamingBehavior"] is None  # idle: no streaming behaviour (pi)
    release = gated(faux)
    run = asyncio.ensure_future(session.prompt("first"))
    await until(lambda: session.is_streaming and faux.call_count == 1)
    assert await session.prepare_prompt("/mark now", None, "steer") == ("handled", None)
    assert recorder.marks == [("now", False)]  # ran during the stream
    assert await session.prepare_prompt("drop", None, "steer") == ("handled", None)
    assert await session.prepare_prompt("later", None, "followUp") == ("queued", None)
    assert session.steering_messages == [] and session.follow_up_messages == ["LATER"]
    assert recorder.inputs[-1] == {"text": "later", "source": "interactive", "streamingBehavior": "followUp"}
    faux.append_responses([faux_assistant([faux_text("after")])])
    release.set()
    await run
    assert not any("/mark" in text for text in sent_texts(faux))


async def test_tui_runs_an_extension_command_typed_while_streaming(faux: Any, tmp_path: Path) -> None:
    from pi_cli.modes.interactive import make_app

    recorder = Recorder()
    session, _runner = make_session(faux, tmp_path, recorder)
    app = make_app(session, keymap={})
    async with app.run_test(size=(90, 30)) as pilot:
        release = gated(faux)
        app.editor.load_text("first")
        await pilot.press("enter")
        await until(lambda: app.running and faux.call_count == 1, lambda: pilot.pause(0.01))
        app.editor.load_text("/mark while busy")
        await pilot.press("enter")
        await until(lambda: bool(recorder.marks), lambda: pilot.pause(0.01))
        assert recorder.marks == [("while busy", False)]
        app.editor.load_text("steer me")
        await pilot.press("enter")
        await until(lambda: session.steering_messages == ["STEER ME"], lambda: pilot.pause(0.01))
        assert recorder.inputs[-1]["streamingBehavior"] == "steer"
        faux.append_responses([faux_assistant([faux_text("steered")])])
        release.set()
        await until(lambda: not app.running and faux.call_count == 2, lambda: pilot.pause(0.01))
        assert not any("/mark" in text for text in sent_texts(faux))
        assert "STEER ME" in str(faux.requests[1].context["messages"])


async def test_inline_runs_an_extension_command_typed_while_streaming(faux: Any, tmp_path: Path) -> None:
    from pi_cli.modes.inline.controller import InlineController

    recorder = Recorder()
    session, _runner = make_session(faux, tmp_path, recorder)
    printed: list[Any] = []
    controller = InlineController(session, printed.append, lambda: None, lambda: None)
    release = gated(faux)
    controller.submit("first")
    await until(lambda: controller.running and faux.call_count == 1)
    controller.submit("/mark inline")
    await until(lambda: bool(recorder.marks))
    assert recorder.marks == [("inline", False)] and session.steering_messages == []
    controller.submit("drop")  # consumed by the input handler: nothing queued
    controller.submit("more", follow_up=True)
    await until(lambda: session.follow_up_messages == ["MORE"])
    assert session.steering_messages == []
    faux.append_responses([faux_assistant([faux_text("followed")])])
    release.set()
    await until(lambda: not controller.running and faux.call_count == 2)
    assert not any("/mark" in text for text in sent_texts(faux))


async def test_refusals_surface_from_prepare_prompt(faux: Any, tmp_path: Path) -> None:
    """With extensions the preflight still raises (RPC turns it into the one failure response)."""
    from pi_cli.errors import AgentBusyError

    recorder = Recorder()
    session, _runner = make_session(faux, tmp_path, recorder)
    release = gated(faux)
    run = asyncio.ensure_future(session.prompt("first"))
    await until(lambda: session.is_streaming and faux.call_count == 1)
    with pytest.raises(AgentBusyError):
        await session.prepare_prompt("no behaviour given")
    release.set()
    await run
