"""Session-file operations an AgentSession exposes to RPC and the UIs: new, switch, fork, clone,
fork candidates, HTML export and ``/tree`` navigation (:class:`SessionFiles`).

They act on the session manager behind the session's store and then reload the agent's
transcript, model and thinking level from it. Each raises a :class:`~pi_cli.errors.PiError` with a
one-line message when the session is in memory only.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pi_cli.errors import FeatureUnavailableError, SessionError

if TYPE_CHECKING:
    from pi_cli.agent.agent import Agent
    from pi_cli.ai.types import ThinkingLevel
    from pi_cli.compaction.branch_summary import TreeHook, TreeNavigation
    from pi_cli.config.settings import Settings
    from pi_cli.extensions.runner import ExtensionRunner
    from pi_cli.models.registry import ModelRegistry
    from pi_cli.session.model_control import ModelControl
    from pi_cli.session.store_bridge import SessionStoreBridge
    from pi_cli.store.manager import SessionManager


@dataclass(eq=False)
class SessionFiles:
    """The session-file operations of one session: they act on ``store``'s manager, then load
    its context into ``agent`` (model through ``registry``/``models``, which must have its key).
    ``settle`` is awaited first: it stops a running prompt and empties the queues."""

    agent: Agent
    store: SessionStoreBridge
    registry: ModelRegistry | None
    models: ModelControl
    settle: Callable[[], Awaitable[None]]
    _: KW_ONLY
    settings: Settings
    extensions: ExtensionRunner | None
    busy: Callable[[], bool]

    def manager(self) -> SessionManager:
        manager = self.store.manager
        if manager is None:
            raise FeatureUnavailableError("Session storage is not available in this session.")
        return manager

    def reload(self) -> None:
        """Load the manager's current context into the agent (messages, model, thinking level)."""
        context = self.manager().build_context()
        state = self.agent.state
        state.messages = list(context.messages)
        stored = context.model
        if stored and self.registry is not None:
            model = self.registry.find(stored.get("provider", ""), stored.get("modelId", ""))
            if model is not None and self.models.has_credentials(model):
                state.model = model
        if context.messages:
            from pi_cli.session.model_control import clamp_level

            state.thinking_level = cast("ThinkingLevel", clamp_level(self.models.model, context.thinking_level))

    async def _cancelled(self, event: dict[str, Any]) -> bool:
        """Extensions' ``session_before_switch`` / ``session_before_fork``: may cancel (they run
        before the running prompt is stopped, so a cancel leaves it running)."""
        ext = self.extensions
        if ext is None or not ext.has_handlers(event["type"]):
            return False
        from pi_cli.extensions.session_events import cancels

        return await cancels(ext, event)

    async def new_session(self, parent_session: str | None = None) -> dict[str, Any]:
        manager = self.manager()
        if await self._cancelled({"type": "session_before_switch", "reason": "new"}):
            return {"cancelled": True}
        await self.settle()
        manager.new_session(parent_session)
        self.agent.state.messages = []
        model = self.models.model
        if model is not None:
            self.store.append_model_change(model["provider"], model["id"])
        self.store.append_thinking_level_change(self.models.thinking_level)
        return {"cancelled": False}

    async def switch_session(self, path: str) -> dict[str, Any]:
        manager = self.manager()
        target = _existing_file(path)
        event = {"type": "session_before_switch", "reason": "resume", "targetSessionFile": str(target)}
        if await self._cancelled(event):
            return {"cancelled": True}
        await self.settle()
        try:
            manager.set_session_file(target)
        except (OSError, ValueError) as exc:
            raise SessionError(f"Cannot open session {target}: {exc}") from None
        with contextlib.suppress(OSError):  # ``pi -c`` continues the newest file: this one, now
            # An explicit fine-grained time: the kernel's own "now" for utime is as coarse as
            # its write stamps (a few ms), so a file written just before could tie with this one.
            now = time.time_ns()
            os.utime(target, ns=(now, now))
        self.reload()
        return {"cancelled": False}

    def fork_messages(self) -> list[dict[str, str]]:
        manager = self.store.manager
        return [] if manager is None else manager.get_user_messages_for_forking()

    async def fork(self, entry_id: str) -> dict[str, Any]:
        """New session holding the history before user entry ``entry_id``; returns its text."""
        manager = self.manager()
        entry = manager.get_entry(entry_id)
        if entry is None or entry.get("type") != "message" or entry["message"].get("role") != "user":
            raise SessionError("Invalid entry ID for forking")  # pi's exact text: the id is not repeated
        from pi_cli.store.entry_messages import user_text

        text = user_text(entry["message"])
        if await self._cancelled({"type": "session_before_fork", "entryId": entry_id, "position": "before"}):
            return {"text": text, "cancelled": True}
        parent = entry.get("parentId")
        if parent is not None:
            _refuse_unsaved(manager)
        await self.settle()
        if parent is None:
            previous = manager.session_file
            manager.new_session(str(previous) if previous else None)
        else:
            manager.create_branched_session(parent)
        self.reload()
        return {"text": text, "cancelled": False}

    async def clone(self) -> dict[str, Any]:
        """A new session file holding the current branch. pi's refusals: no leaf ("Cannot clone
        session: no current entry selected"), or a persisted session whose file is not written yet
        (no answer so far) — after extensions' ``session_before_fork`` had their say, as in pi."""
        manager = self.manager()
        leaf = manager.get_leaf_id()
        if leaf is None:
            raise SessionError("Cannot clone session: no current entry selected")
        if await self._cancelled({"type": "session_before_fork", "entryId": leaf, "position": "at"}):
            return {"cancelled": True}
        _refuse_unsaved(manager)
        await self.settle()
        manager.create_branched_session(leaf)
        self.reload()
        return {"cancelled": False}

    async def export_html(self, output_path: str | None, theme: Mapping[str, str] | None = None) -> str:
        """Write the session's HTML page (``theme``: colours by pi's token names); returns its path."""
        manager = self.manager()
        from pi_cli.store.export_html import export_html as render

        model = self.models.model
        key = self.models.api_key_for_provider(model["provider"]) if model else None
        try:
            prompt = self.agent.state.system_prompt
            path = render(manager, output_path, system_prompt=prompt, secrets=[key] if key else [], theme=theme)
        except (OSError, ValueError) as exc:
            raise SessionError(str(exc)) from None
        return str(path)

    async def navigate_tree(
        self,
        target_id: str,
        *,
        summarize: bool = False,
        custom_instructions: str | None = None,
        replace_instructions: bool = False,
        label: str | None = None,
        signal: Any = None,
    ) -> TreeNavigation:
        """``/tree``: move the leaf to ``target_id`` in the same file (pi 1.6.0's ``navigateTree``),
        with extensions' ``session_before_tree`` (may cancel, supply the branch summary, change the
        summariser's instructions and label) and ``session_tree`` once the new context is in
        place. Raises :class:`SessionError` while the agent runs or when the entry does not exist,
        ``ValueError`` when a summary is asked for without a model; summariser failures propagate
        (the tree is then unchanged)."""
        from pi_cli.compaction.branch_summary import navigate_tree as move

        manager = self.manager()
        if self.busy():
            raise SessionError("Wait for the current response to finish before navigating the session tree.")
        model = self.models.model
        api_key = self.models.api_key_for_provider(model["provider"]) if summarize and model is not None else None
        ext = self.extensions
        before: TreeHook | None = None
        if ext is not None and ext.has_handlers("session_before_tree"):
            from pi_cli.extensions.session_events import before_tree

            async def before(preparation: dict[str, Any]) -> Any:
                return await before_tree(ext, preparation, signal)

        try:
            result = await move(
                manager, target_id, summarize=summarize, model=model, api_key=api_key, signal=signal,
                custom_instructions=custom_instructions, replace_instructions=replace_instructions, label=label,
                reserve_tokens=self.settings.branch_summary.reserve_tokens, before=before,
            )  # fmt: skip
        except KeyError as exc:
            raise SessionError(str(exc.args[0]) if exc.args else "Entry not found") from None
        if not result.moved:
            return result
        self.agent.state.messages = list(manager.build_context().messages)
        if ext is not None and ext.has_handlers("session_tree"):
            summary = manager.get_entry(result.summary_entry_id) if result.summary_entry_id else None
            await ext.emit({
                "type": "session_tree", "newLeafId": result.new_leaf_id, "oldLeafId": result.old_leaf_id,
                "summaryEntry": summary, "fromExtension": result.from_extension if summary is not None else None,
            })  # fmt: skip
        return result


def _existing_file(path: str) -> Path:
    target = Path(os.path.expanduser(path))
    if not target.is_file():
        raise SessionError(f"Session file not found: {target}")
    return target.resolve()


UNSAVED_TEXT = "This session has not been saved yet. Send a message before cloning or forking it."


def _refuse_unsaved(manager: SessionManager) -> None:
    """pi refuses to branch a persisted session whose file does not exist yet (it is written with
    the first answer); an in-memory session (``--no-session``) branches in memory."""
    file = manager.session_file
    if manager.persist and (file is None or not Path(file).exists()):
        raise SessionError(UNSAVED_TEXT)
