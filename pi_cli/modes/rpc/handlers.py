"""One function per RPC command: validated command in, response dict out (pi 1.6.0 shapes).

Errors are raised as :class:`~pi_cli.errors.PiError` (the server turns them into failure
responses with the command's id).
"""

from __future__ import annotations

import gc
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pi_cli.errors import PiError
from pi_cli.modes.rpc import protocol as p
from pi_cli.modes.rpc import rewind_commands
from pi_cli.modes.rpc.host import CommandHost

if TYPE_CHECKING:
    from pi_cli.modes.rpc import commands as c
    from pi_cli.session.agent_session import AgentSession
    from pi_cli.store.manager import SessionManager

Handler = Callable[[CommandHost, Any], Awaitable[dict[str, Any]]]


def _public(model: Any) -> Any:
    """A model as shown to clients: header values masked (they may carry credentials)."""
    if not isinstance(model, dict) or "headers" not in model:
        return model
    from pi_cli.models.registry import redacted

    return redacted(model)  # type: ignore[arg-type]


def _images(images: list[c.ImageInput] | None) -> list[Any] | None:
    if not images:
        return None
    return [{"type": "image", "data": i.data, "mimeType": i.mimeType} for i in images]


async def _prompt(server: CommandHost, cmd: c.PromptCommand) -> dict[str, Any]:
    """As pi 1.6.0: the response comes once the prompt's fate is known — an extension command has
    run (even while streaming), ``input`` handlers consumed it (``handled``), it was queued, or its
    run starts (``started``, before ``agent_start``). Preflight errors are the response."""
    session = server.session
    disposition, run = await session.prepare_prompt(
        cmd.message, _images(cmd.images), cmd.streamingBehavior, source="rpc"
    )
    if run is None:
        return p.success(cmd.id, "prompt", {"disposition": disposition})
    return _started(server, cmd, run)


def _started(server: CommandHost, cmd: c.PromptCommand | c.SteerCommand, run: Any) -> dict[str, Any]:
    """Spawn a run a command started; its refusal (no model, no key) is the command's response."""

    async def guarded() -> None:
        try:
            await run
        except PiError as exc:
            server.respond(p.failure(cmd.id, cmd.type, str(exc)))
        except Exception as exc:  # keep the loop alive; report like pi's .catch()
            server.respond(p.failure(cmd.id, cmd.type, f"{type(exc).__name__}: {exc}"))

    server.spawn(guarded())
    return p.success(cmd.id, cmd.type, {"disposition": "started"})


async def _steer(server: CommandHost, cmd: c.SteerCommand) -> dict[str, Any]:
    """Queue text; as pi, an extension command cannot be queued and ``input`` handlers (source
    ``rpc``) may consume the text (``handled``) or transform it first. Sent while nothing runs,
    the text starts a run (``started``): pi 1.6.0 would leave it queued in an idle agent until the
    next prompt, and a follow-up sent as a run ends must never be stranded."""
    session = server.session
    text, images = cmd.message, _images(cmd.images)
    behavior = "steer" if cmd.type == "steer" else "followUp"
    extensions = session.extensions
    found = extensions.command_for(text) if extensions is not None else None
    if found is not None:
        return p.failure(cmd.id, cmd.type, f'Extension command "/{found[0].name}" cannot be queued. '
                         "Use prompt() or execute the command when not streaming.")  # fmt: skip
    if not session.is_streaming:
        disposition, run = await session.prepare_prompt(text, images, behavior, source="rpc")
        return p.success(cmd.id, cmd.type, {"disposition": disposition}) if run is None else _started(server, cmd, run)
    if extensions is not None and extensions.has_handlers("input"):
        from pi_cli.extensions.prompts import run_input

        given = await run_input(extensions, text, images, "rpc", behavior)
        if given is None:
            return p.success(cmd.id, cmd.type, {"disposition": "handled"})
        text, images = given[0], given[1] or None
    if not session.is_streaming:  # the run ended while the handlers ran
        run = session.begin_prepared(text, images, behavior)
        if run is not None:
            return _started(server, cmd, run)
    elif cmd.type == "steer":
        session.steer(text, images)
    else:
        session.follow_up(text, images)
    return p.success(cmd.id, cmd.type, {"disposition": "queued"})


async def _thinking_levels(server: CommandHost, cmd: p.Command) -> dict[str, Any]:
    from pi_cli.ai.models import supported_thinking_levels

    model = server.session.model
    levels = list(supported_thinking_levels(model)) if model else ["off"]
    return p.success(cmd.id, "get_available_thinking_levels", {"levels": levels})


async def _clear_queue(server: CommandHost, cmd: p.Command) -> dict[str, Any]:
    steering, follow_up = server.session.clear_queues()
    return p.success(cmd.id, "clear_queue", {"steering": steering, "followUp": follow_up})


def _manager(server: CommandHost) -> SessionManager:
    manager = server.session.store.manager
    if manager is None:
        raise PiError("This session keeps no entries")
    return manager


async def _get_entries(server: CommandHost, cmd: c.GetEntriesCommand) -> dict[str, Any]:
    manager = _manager(server)
    entries = manager.get_entries()
    if cmd.since is not None:
        ids = [e.get("id") for e in entries]
        if cmd.since not in ids:
            return p.failure(cmd.id, "get_entries", f"Entry not found: {cmd.since}")
        entries = entries[ids.index(cmd.since) + 1 :]
    return p.success(cmd.id, "get_entries", {"entries": entries, "leafId": manager.get_leaf_id()})


def _tree_json(node: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"entry": node.entry, "children": [_tree_json(child) for child in node.children]}
    if node.label is not None:
        out["label"] = node.label
    if node.label_timestamp is not None:
        out["labelTimestamp"] = node.label_timestamp
    return out


async def _get_tree(server: CommandHost, cmd: p.Command) -> dict[str, Any]:
    manager = _manager(server)
    tree = [_tree_json(node) for node in manager.get_tree()]
    return p.success(cmd.id, "get_tree", {"tree": tree, "leafId": manager.get_leaf_id()})


async def _abort(server: CommandHost, cmd: p.Command) -> dict[str, Any]:
    await server.session.abort()
    return p.success(cmd.id, "abort")


def _release_startup() -> None:
    """RPC mode froze what start-up built (``gc.freeze``, so the first answer is not held up by a
    collection walking it); once another session replaces the first, its messages among those
    objects are garbage: give them back to the collector."""
    gc.unfreeze()


async def _new_session(server: CommandHost, cmd: c.NewSessionCommand) -> dict[str, Any]:
    result = await server.session.new_session(cmd.parentSession)
    _release_startup()
    return p.success(cmd.id, "new_session", result)


def state_of(session: AgentSession) -> dict[str, Any]:
    state: dict[str, Any] = {
        "model": _public(session.model),
        "thinkingLevel": session.thinking_level,
        "isStreaming": session.is_streaming,
        "isCompacting": session.is_compacting,
        "steeringMode": session.steering_mode,
        "followUpMode": session.follow_up_mode,
    }
    if session.session_file:
        state["sessionFile"] = session.session_file
    state["sessionId"] = session.session_id
    if session.session_name:
        state["sessionName"] = session.session_name
    state.update(
        {
            "autoCompactionEnabled": session.auto_compaction_enabled,
            "messageCount": len(_message_view(session)),
            "pendingMessageCount": session.pending_message_count,
        }
    )
    if session.sandbox is not None:
        # Beyond pi (it has no sandbox): clients that know the field show what confines bash.
        state["sandbox"] = session.sandbox.state()
    return state


async def _get_state(server: CommandHost, cmd: p.Command) -> dict[str, Any]:
    return p.success(cmd.id, "get_state", state_of(server.session))


def _message_view(session: AgentSession) -> Any:
    """The session's messages as held: a resumed huge session's stay in its file (LazyMessages)."""
    return session.message_view()


async def _get_messages(server: CommandHost, cmd: p.Command) -> dict[str, Any]:
    # A lazy view is written by the JSONL writer straight from the session file (json_chunks).
    view = _message_view(server.session)
    messages = view if callable(getattr(view, "json_chunks", None)) else list(view)
    return p.success(cmd.id, "get_messages", {"messages": messages})


async def _set_model(server: CommandHost, cmd: c.SetModelCommand) -> dict[str, Any]:
    model = server.session.models.find_available(cmd.provider, cmd.modelId)
    if model is None:
        return p.failure(cmd.id, "set_model", f"Model not found: {cmd.provider}/{cmd.modelId}")
    server.session.set_model(model, persist=False)  # as pi's RPC: settings.json untouched
    return p.success(cmd.id, "set_model", _public(model))


async def _cycle_model(server: CommandHost, cmd: p.Command) -> dict[str, Any]:
    result = server.session.cycle_model(persist=False)
    if result is not None:
        result = {**result, "model": _public(result["model"])}
    return p.success(cmd.id, "cycle_model", result)


async def _available(server: CommandHost, cmd: p.Command) -> dict[str, Any]:
    models = [_public(m) for m in server.session.available_models()]
    return p.success(cmd.id, "get_available_models", {"models": models})


async def _set_thinking(server: CommandHost, cmd: c.SetThinkingLevelCommand) -> dict[str, Any]:
    server.session.set_thinking_level(cmd.level, persist=False)
    return p.success(cmd.id, "set_thinking_level")


async def _cycle_thinking(server: CommandHost, cmd: p.Command) -> dict[str, Any]:
    level = server.session.cycle_thinking_level(persist=False)
    return p.success(cmd.id, "cycle_thinking_level", None if level is None else {"level": level})


async def _set_queue_mode(server: CommandHost, cmd: c.SetQueueModeCommand) -> dict[str, Any]:
    session = server.session
    setter = session.set_steering_mode if cmd.type == "set_steering_mode" else session.set_follow_up_mode
    setter(cmd.mode)
    return p.success(cmd.id, cmd.type)


async def _set_switch(server: CommandHost, cmd: c.SetEnabledCommand) -> dict[str, Any]:
    """The auto-compaction / auto-retry switches."""
    session = server.session
    compaction = cmd.type == "set_auto_compaction"
    switch = session.set_auto_compaction_enabled if compaction else session.set_auto_retry_enabled
    switch(cmd.enabled)
    return p.success(cmd.id, cmd.type)


async def _compact(server: CommandHost, cmd: c.CompactCommand) -> dict[str, Any]:
    return p.success(cmd.id, "compact", await server.session.compact(cmd.customInstructions))


async def _abort_retry(server: CommandHost, cmd: p.Command) -> dict[str, Any]:
    server.session.abort_retry()
    return p.success(cmd.id, "abort_retry")


async def _bash(server: CommandHost, cmd: c.BashCommand) -> dict[str, Any]:
    """Run the user's command; each output chunk goes out at once as pi's
    ``{"type": "bash_execution_update", "id": <the command's id>, "delta": chunk}``, then the result."""
    tag = {} if cmd.id is None else {"id": cmd.id}

    def on_chunk(chunk: str) -> None:
        if chunk:
            server.respond({"type": "bash_execution_update", **tag, "delta": chunk})

    return p.success(cmd.id, "bash", await server.session.run_bash(cmd.command, on_chunk=on_chunk))


async def _abort_bash(server: CommandHost, cmd: p.Command) -> dict[str, Any]:
    server.session.abort_bash()
    return p.success(cmd.id, "abort_bash")


async def _stats(server: CommandHost, cmd: p.Command) -> dict[str, Any]:
    return p.success(cmd.id, "get_session_stats", server.session.get_session_stats())


async def _export(server: CommandHost, cmd: c.ExportHtmlCommand) -> dict[str, Any]:
    return p.success(cmd.id, "export_html", {"path": await server.session.export_html(cmd.outputPath)})


async def _switch(server: CommandHost, cmd: c.SwitchSessionCommand) -> dict[str, Any]:
    result = await server.session.switch_session(cmd.sessionPath)
    _release_startup()
    return p.success(cmd.id, "switch_session", result)


async def _fork(server: CommandHost, cmd: c.ForkCommand) -> dict[str, Any]:
    return p.success(cmd.id, "fork", await server.session.fork(cmd.entryId))


async def _clone(server: CommandHost, cmd: p.Command) -> dict[str, Any]:
    return p.success(cmd.id, "clone", await server.session.clone())


async def _fork_messages(server: CommandHost, cmd: p.Command) -> dict[str, Any]:
    return p.success(cmd.id, "get_fork_messages", {"messages": server.session.get_fork_messages()})


async def _last_text(server: CommandHost, cmd: p.Command) -> dict[str, Any]:
    text = server.session.get_last_assistant_text()
    # pi 1.6.0 answers ``data: {}`` (text undefined) when there is no assistant text yet.
    return p.success(cmd.id, "get_last_assistant_text", {} if text is None else {"text": text})


async def _set_name(server: CommandHost, cmd: c.SetSessionNameCommand) -> dict[str, Any]:
    name = cmd.name.strip()
    if not name:
        return p.failure(cmd.id, "set_session_name", "Session name cannot be empty")
    server.session.set_session_name(name)
    return p.success(cmd.id, "set_session_name")


async def _commands(server: CommandHost, cmd: p.Command) -> dict[str, Any]:
    return p.success(cmd.id, "get_commands", {"commands": server.session.get_commands()})


HANDLERS: dict[str, Handler] = {
    "rewind": rewind_commands.rewind,
    "get_checkpoints": rewind_commands.get_checkpoints,
    "prompt": _prompt,
    "steer": _steer,
    "follow_up": _steer,
    "abort": _abort,
    "new_session": _new_session,
    "get_state": _get_state,
    "get_messages": _get_messages,
    "set_model": _set_model,
    "cycle_model": _cycle_model,
    "get_available_models": _available,
    "set_thinking_level": _set_thinking,
    "cycle_thinking_level": _cycle_thinking,
    "set_steering_mode": _set_queue_mode,
    "set_follow_up_mode": _set_queue_mode,
    "compact": _compact,
    "set_auto_compaction": _set_switch,
    "set_auto_retry": _set_switch,
    "abort_retry": _abort_retry,
    "bash": _bash,
    "abort_bash": _abort_bash,
    "get_session_stats": _stats,
    "export_html": _export,
    "switch_session": _switch,
    "fork": _fork,
    "clone": _clone,
    "get_fork_messages": _fork_messages,
    "get_last_assistant_text": _last_text,
    "set_session_name": _set_name,
    "get_commands": _commands,
    "get_available_thinking_levels": _thinking_levels,
    "clear_queue": _clear_queue,
    "get_entries": _get_entries,
    "get_tree": _get_tree,
}


async def handle_command(server: CommandHost, command: p.Command | c.FieldCommand) -> dict[str, Any]:
    return await HANDLERS[command.type](server, command)
