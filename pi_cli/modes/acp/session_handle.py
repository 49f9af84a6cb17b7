"""One ACP session: an AgentSession, the translator that reports it, and its prompt turns.

``session/prompt`` answers when the run has settled. A prompt that arrives while a run is going
is queued as a steering message (delivered after the running tool batch) and answers when that
same run settles. ``session/cancel`` aborts the run, drops what was queued, and every open prompt
answers ``cancelled``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.modes.acp.content import prompt_to_message
from pi_cli.modes.acp.updates import Sender, Update, UpdateTranslator, chunk

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession

# pi's stop reasons → ACP's (anything else ends the turn normally).
_STOP_REASONS = {"length": "max_tokens", "aborted": "cancelled"}


class PromptFailed(Exception):
    """The run ended in an error (after retries); the message is the provider's error text."""


class AcpSession:
    """Owns one AgentSession for the ACP agent; see the module docstring."""

    def __init__(self, session: AgentSession, send: Sender) -> None:
        self.session = session
        self.cwd = Path(session.cwd)
        self.translator = UpdateTranslator(send, self.cwd, self.usage_update)
        self._unsubscribe = session.subscribe(self.translator.on_event)
        self._run: asyncio.Future[str] | None = None
        self._cancelled = False

    @property
    def busy(self) -> bool:
        return self._run is not None and not self._run.done()

    @property
    def session_id(self) -> str:
        return str(self.session.session_id)

    def usage_update(self) -> Update | None:
        """``usage_update``: context tokens in use, the window, and the session's cost so far."""
        usage = self.session.context_usage()
        if usage is None:
            return None
        cost = float(self.session.get_session_stats().get("cost") or 0.0)
        return {
            "sessionUpdate": "usage_update",
            "used": int(usage["tokens"]),
            "size": int(usage["contextWindow"]),
            "cost": {"amount": cost, "currency": "USD"},
        }

    async def prompt(self, blocks: list[dict[str, Any]]) -> str:
        """Run (or steer) with the blocks; returns the ACP stop reason once the run settles."""
        text, images = prompt_to_message(blocks)
        if text.startswith("/compact") and text[8:9] in ("", " ", "\n") and not self.busy:
            await self._compact(text[8:].strip() or None)
            return "end_turn"
        if self.busy:
            runner = self.session.extensions
            found = runner.command_for(text) if runner is not None else None
            if runner is not None and found is not None:  # as pi: an extension command runs now, not steering
                await runner.run_command(*found)
                return "end_turn"
            self.session.steer(text, images or None)
            assert self._run is not None
            return await asyncio.shield(self._run)
        run = self.session.begin_prompt(text, images or None)  # raises PiError before anything runs
        self._cancelled = False
        self._run = asyncio.get_running_loop().create_future()
        future = self._run
        try:
            if run is not None:
                await run
            await self.translator.flush()
            reason = self._stop_reason()
        except BaseException as exc:
            if not future.done():
                future.set_exception(exc)
                future.exception()  # retrieved here, so a lone failure is not logged as unhandled
            raise
        if isinstance(reason, PromptFailed):
            future.set_exception(reason)
            future.exception()
            raise reason
        future.set_result(reason)
        return reason

    async def _compact(self, instructions: str | None) -> None:
        try:
            result = await self.session.compact_now(instructions)
        except Exception as exc:  # nothing to compact, the summary request failed, ...
            raise PromptFailed(f"Compaction failed: {exc}") from None
        before = result.get("tokensBefore") if isinstance(result, dict) else None
        note = f"Compacted the conversation ({before} tokens before)." if before else "Compacted the conversation."
        await self.translator.send_now(chunk("agent_message_chunk", note))

    def _stop_reason(self) -> str | PromptFailed:
        if self._cancelled:
            return "cancelled"
        end = self.translator.last_agent_end or {}
        if end.get("reason") == "max_turns":
            return "max_turn_requests"
        last = next((m for m in reversed(self.session.messages) if m.get("role") == "assistant"), None)
        stop = str((last or {}).get("stopReason") or "stop")
        if stop == "error":
            return PromptFailed(str((last or {}).get("errorMessage") or "The model request failed."))
        return _STOP_REASONS.get(stop, "end_turn")

    async def cancel(self) -> None:
        """Abort the run; queued steering and follow-ups are dropped (their prompts are cancelled)."""
        if not self.busy:
            return
        self._cancelled = True
        self.session.clear_queues()
        self.session.abort_bash()
        await self.session.abort()

    def steer(self, text: str) -> None:
        self.session.steer(text)

    def follow_up(self, text: str) -> None:
        self.session.follow_up(text)

    async def close(self) -> None:
        self._unsubscribe()
        await self.session.dispose()
