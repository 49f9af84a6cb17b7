"""Print mode (``pi -p``): run the prompt(s), print the final assistant text, exit.

As pi: the first message (stdin + ``@files`` + first argument) then each further message runs in
turn, each waiting for the previous run (with its retries). Afterwards, when the last message is
an assistant message that ended in ``error`` or ``aborted``, its ``errorMessage`` goes to stderr and
the exit code is 1; otherwise each text block is printed followed by a newline. Tool activity is
not printed. Notices (warnings, the demo-model hint) go to stderr.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from pi_cli.errors import PiError
from pi_cli.modes.rpc.lifecycle import run_with_signals, write_notices

if TYPE_CHECKING:
    from pi_cli.ai.types import ImageContent
    from pi_cli.session.agent_session import AgentSession


def for_terminal(text: str, stream: Any) -> str:
    """``text`` neutralised when ``stream`` is a terminal, else unchanged.

    Model text (or a server's error text) could carry cursor moves, title changes, OSC 52 clipboard
    writes or OSC 8 links; on a TTY they are stripped. A pipe or a file gets the exact text, since a
    script may want it byte for byte (pi prints it raw in both cases).
    """
    try:
        is_tty = bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        is_tty = False
    if not is_tty:
        return text
    from pi_cli.tools.sanitize import strip_control_sequences

    return strip_control_sequences(text)


async def send_all(session: AgentSession, first: str, images: list[ImageContent], rest: list[str]) -> None:
    """The initial message (if any) and then every further message, sequentially."""
    if first or images:
        await session.prompt(first, images or None)
    for message in rest:
        await session.prompt(message)


def final_output(messages: list[dict[str, Any]]) -> tuple[str, str | None]:
    """(stdout text, stderr error or None) for the transcript's last message."""
    if not messages:
        return "", None
    last = messages[-1]
    if last.get("role") != "assistant":
        return "", None
    reason = last.get("stopReason")
    if reason in ("error", "aborted"):
        return "", last.get("errorMessage") or f"Request {reason}"
    texts = [block.get("text", "") + "\n" for block in last.get("content", []) if block.get("type") == "text"]
    return "".join(texts), None


def retry_line(event: dict[str, Any]) -> str | None:
    """What print mode tells stderr while it waits to retry (it is silent otherwise, and a dead
    server took ~19 s before any word): ``Retrying (1/3) in 2s: 503 overloaded``."""
    kind = event.get("type")
    if kind == "auto_retry_start":
        delay = int(event.get("delayMs", 0) or 0) / 1000
        error = " ".join(str(event.get("errorMessage") or "").split())[:200]
        return f"Retrying ({event.get('attempt')}/{event.get('maxAttempts')}) in {delay:g}s: {error}"
    if kind == "auto_retry_end" and event.get("success"):
        return f"Retry {event.get('attempt')} succeeded"
    return None


def write_retry_progress(event: dict[str, Any]) -> None:
    """A session listener for the headless modes: each :func:`retry_line` to stderr."""
    line = retry_line(event)
    if line is not None:
        sys.stderr.write(for_terminal(line, sys.stderr) + "\n")
        sys.stderr.flush()


async def run_print_mode(session: AgentSession, first: str, images: list[ImageContent], rest: list[str]) -> int:
    """Returns the exit code: 0, or 1 on a model error / abort / preflight error."""
    write_notices(session)
    session.subscribe(write_retry_progress)

    async def body() -> int:
        try:
            await send_all(session, first, images, rest)
        except PiError as exc:
            sys.stderr.write(for_terminal(f"{exc}", sys.stderr) + "\n")
            return 1
        out, err = final_output(session.messages)
        if err is not None:
            sys.stderr.write(for_terminal(err, sys.stderr) + "\n")
            return 1
        if out:
            sys.stdout.write(for_terminal(out, sys.stdout))
            sys.stdout.flush()
        return 0

    try:
        return await run_with_signals(session, body)
    finally:
        await session.dispose()
