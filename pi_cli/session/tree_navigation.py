"""``/tree`` navigation of an AgentSession, with extensions' ``session_before_tree`` and
``session_tree`` around it (pi 1.6.0's ``navigateTree``).

The leaf moves in the session file (no new file, unlike fork); the agent's transcript is then
rebuilt from the new branch. ``session_before_tree`` may cancel, supply the branch summary or change
the summariser's instructions and label; ``session_tree`` reports ``{newLeafId, oldLeafId,
summaryEntry, fromExtension}`` once the new context is in place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_cli.errors import FeatureUnavailableError, SessionError

if TYPE_CHECKING:
    from pi_cli.compaction.branch_summary import TreeHook, TreeNavigation


async def navigate_tree(
    session: Any,
    target_id: str,
    *,
    summarize: bool = False,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
    label: str | None = None,
    signal: Any = None,
) -> TreeNavigation:
    """Move ``session`` to ``target_id``. Raises :class:`SessionError` while the agent runs or when
    the entry does not exist, ``ValueError`` when a summary is asked for without a model; summariser
    failures propagate (the tree is then unchanged)."""
    from pi_cli.compaction.branch_summary import navigate_tree as move

    manager = session.store.manager
    if manager is None:
        raise FeatureUnavailableError("Session storage is not available in this session.")
    if session.is_streaming:
        raise SessionError("Wait for the current response to finish before navigating the session tree.")
    model = session.model
    api_key = session.models.api_key_for_provider(model["provider"]) if summarize and model is not None else None
    settings = getattr(getattr(session, "settings", None), "branch_summary", None)
    ext = session.extensions
    before: TreeHook | None = None
    if ext is not None and ext.has_handlers("session_before_tree"):
        from pi_cli.extensions.session_events import before_tree

        async def before(preparation: dict[str, Any]) -> Any:
            return await before_tree(ext, preparation, signal)

    try:
        result = await move(
            manager, target_id, summarize=summarize, model=model, api_key=api_key, signal=signal,
            custom_instructions=custom_instructions, replace_instructions=replace_instructions, label=label,
            reserve_tokens=int(getattr(settings, "reserve_tokens", 16384)), before=before,
        )  # fmt: skip
    except KeyError as exc:
        raise SessionError(str(exc.args[0]) if exc.args else "Entry not found") from None
    if not result.moved:
        return result
    session.agent.state.messages = list(manager.build_context().messages)
    if ext is not None and ext.has_handlers("session_tree"):
        summary = manager.get_entry(result.summary_entry_id) if result.summary_entry_id else None
        await ext.emit({
            "type": "session_tree", "newLeafId": result.new_leaf_id, "oldLeafId": result.old_leaf_id,
            "summaryEntry": summary, "fromExtension": result.from_extension if summary is not None else None,
        })  # fmt: skip
    return result
