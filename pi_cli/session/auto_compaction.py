"""When and how an AgentSession compacts its context (pi §6), on top of
:mod:`pi_cli.compaction.compactor` (which cuts and summarises).

* manual (``/compact``, RPC ``compact``): ``compaction_start{reason:"manual"}`` … ``compaction_end``;
  failures raise with pi's message (``Nothing to compact (session too small)``, ...).
* overflow: the run ended with a context-overflow error → the error leaves the agent's context,
  the session is compacted (``willRetry: true``) and the run continues; once per user prompt.
* threshold: after a successful run whose context passes ``window − reserveTokens`` → compact, no
  automatic continuation.

Every compaction is abortable (``abort()``); afterwards the agent's messages are rebuilt from the
session file (summary + kept entries). A failure or cancellation ends with ``compaction_end``
(``errorMessage`` / ``aborted``) and extensions' ``session_compact_failed`` (pi 1.6.0).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from pi_cli.errors import PiError
from pi_cli.session.abort_slot import AbortSlot

if TYPE_CHECKING:
    from pi_cli.agent.agent import Agent
    from pi_cli.config.settings import Settings
    from pi_cli.extensions.runner import ExtensionRunner
    from pi_cli.session.model_control import ModelControl
    from pi_cli.session.store_bridge import SessionStoreBridge


class CompactionFailed(PiError):
    pass


@dataclass(eq=False)
class AutoCompactor:
    """The compaction state of one session: enabled flag, the running compaction, and the
    once-per-prompt overflow attempt. It compacts ``store``'s session with ``models``' model and
    key, rebuilds ``agent``'s transcript, and announces through ``emit`` (and ``extensions``)."""

    agent: Agent
    store: SessionStoreBridge
    models: ModelControl
    settings: Settings
    emit: Callable[[dict[str, Any]], Awaitable[None]]
    extensions: ExtensionRunner | None
    overflow_attempted: bool = field(default=False, init=False)
    enabled: bool = field(init=False)  # from ``settings``; /settings and RPC toggle it
    _slot: AbortSlot = field(default_factory=lambda: AbortSlot("Compaction cancelled"), init=False)

    def __post_init__(self) -> None:
        self.enabled = self.settings.compaction.enabled

    @property
    def running(self) -> bool:
        return self._slot.active

    def abort(self) -> None:
        self._slot.abort()

    def _enabled(self) -> bool:
        return self.enabled and self.store.manager is not None

    async def compact(
        self, reason: str, custom_instructions: str | None = None, will_retry: bool = False
    ) -> dict[str, Any]:
        """Run one compaction with events; returns pi's result JSON. Raises CompactionFailed."""
        from pi_cli.compaction.compactor import CompactionAbortedError, CompactionError, run_compaction

        manager = self.store.manager
        model = self.models.model
        if manager is None or model is None:
            # As pi: the refusal still comes as a compaction_start/compaction_end pair, so every
            # front end reports it from the events alone.
            await self.emit({"type": "compaction_start", "reason": reason})
            message = "Compaction needs a stored session and a model."
            await self._failed({"type": "compaction_end", "reason": reason, "aborted": False, "willRetry": False,
                                "errorMessage": f"Compaction failed: {message}"}, False)  # fmt: skip
            raise CompactionFailed(message)
        if reason != "manual":
            from pi_cli.compaction.compactor import prepare_compaction

            if prepare_compaction(manager.get_branch(), self.settings) is None:
                # pi 1.6.0 skips an automatic compaction that has nothing to summarise without a
                # word: no compaction_start/compaction_end, the run ends as it would have.
                raise CompactionFailed("Nothing to compact (session too small)")
        ext = self.extensions
        before = None
        from_extension = [False]  # an extension's session_before_compact supplied the summary
        if ext is not None and ext.has_handlers("session_before_compact"):
            from pi_cli.extensions.session_events import before_compact

            async def before(preparation: dict[str, Any], entries: list[Any]) -> Any:
                event = {"preparation": preparation, "branchEntries": entries, "reason": reason,
                         "customInstructions": custom_instructions, "willRetry": will_retry}  # fmt: skip
                answer = await before_compact(ext, event)
                from_extension[0] = isinstance(answer, dict) and isinstance(answer.get("compaction"), dict)
                return answer

        with self._slot.hold() as signal:
            await self.emit({"type": "compaction_start", "reason": reason})
            # No "result" key until there is one: pi's result is undefined on failure, so its JSON
            # leaves the key out.
            end: dict[str, Any] = {"type": "compaction_end", "reason": reason, "aborted": False, "willRetry": False}
            try:
                result = await run_compaction(
                    manager,
                    model,
                    self.settings,
                    api_key=self.models.api_key_for_provider(model["provider"]),
                    custom_instructions=custom_instructions,
                    signal=signal,
                    thinking_level=self.models.thinking_level,
                    before=before,
                )
            except CompactionAbortedError:  # aborted, or cancelled by an extension
                end["aborted"] = True
                await self._failed(end, from_extension[0])
                raise CompactionFailed("Compaction cancelled") from None
            except CompactionError as exc:
                end["errorMessage"] = f"Compaction failed: {exc}"
                await self._failed(end, from_extension[0])
                raise CompactionFailed(str(exc)) from None
        messages = list(manager.build_context().messages)
        from pi_cli.compaction.budget import estimate_tokens

        # pi's estimatedTokensAfter: the compacted context (summary + kept messages), estimated.
        result.estimated_tokens_after = sum(estimate_tokens(m) for m in messages)
        if (
            will_retry
            and messages
            and messages[-1].get("role") == "assistant"
            and messages[-1].get("stopReason") == "error"
        ):
            messages.pop()  # the overflow error is kept in the file, not in the context the retry continues
        self.agent.state.messages = messages
        payload: dict[str, Any] = result.to_json()
        end = {"type": "compaction_end", "reason": reason, "result": payload, "aborted": False, "willRetry": will_retry}
        await self.emit(end)
        if ext is not None and ext.has_handlers("session_compact"):
            entry = manager.get_leaf_entry()
            await ext.emit({"type": "session_compact", "compactionEntry": entry, "fromExtension": result.from_hook,
                            "reason": reason, "willRetry": will_retry})  # fmt: skip
        return payload

    async def _failed(self, end: dict[str, Any], from_extension: bool) -> None:
        """A failed or cancelled compaction: ``compaction_end``, then extensions'
        ``session_compact_failed`` ``{reason, errorMessage, aborted, willRetry, fromExtension}``."""
        await self.emit(end)
        ext = self.extensions
        if ext is not None and ext.has_handlers("session_compact_failed"):
            await ext.emit({"type": "session_compact_failed", "reason": end["reason"],
                            "errorMessage": end.get("errorMessage"), "aborted": end["aborted"],
                            "willRetry": False, "fromExtension": from_extension})  # fmt: skip

    async def after_run(self) -> bool:
        """Check the finished run; returns True when the caller should continue the agent."""
        if not self._enabled():
            return False
        from pi_cli.ai.overflow import is_context_overflow
        from pi_cli.compaction.compactor import estimate_context_tokens, should_compact

        model = self.models.model
        messages = self.agent.state.messages
        last = next((m for m in reversed(messages) if m.get("role") == "assistant"), None)
        if model is None or last is None:
            return False
        window = int(model.get("contextWindow") or 0)
        if is_context_overflow(last, window) and last.get("stopReason") == "error":
            if self.overflow_attempted:  # one compact-and-retry per prompt: say so, as pi
                from pi_cli.compaction.budget import OVERFLOW_RECOVERY_FAILED

                end = {"type": "compaction_end", "reason": "overflow", "aborted": False, "willRetry": False,
                       "errorMessage": OVERFLOW_RECOVERY_FAILED}  # fmt: skip
                await self._failed(end, False)
                return False
            self.overflow_attempted = True
            # As pi 1.6.0: the failed attempt stays in the file, omitted from the context by a
            # context_edit (announced), whether or not there is anything to compact.
            edit = self.store.omit_message(last)
            if edit is not None:
                await self.emit({"type": "entry_appended", "entry": dict(edit)})
            if messages and messages[-1] is last:
                self.agent.state.messages = messages[:-1]
            try:
                await self.compact("overflow", will_retry=True)
            except CompactionFailed:
                return False
            return True
        if last.get("stopReason") in ("error", "aborted"):
            return False
        tokens = estimate_context_tokens(cast(list[dict[str, Any]], list(messages))).tokens
        if window and should_compact(tokens, window, self.settings):
            try:
                await self.compact("threshold")
            except CompactionFailed:
                pass
        return False
