"""The RPC commands (pi 1.6.0's protocol, spec §2.4): parsing and response builders.

Each command is a JSON object with ``type`` and an optional ``id`` (echoed in the response;
any JSON scalar is accepted). Unknown extra fields are ignored. :func:`parse_command` validates a
decoded object and raises :class:`CommandError` with a one-line message naming the bad field.
Commands with fields are pydantic models (:mod:`.commands`, imported on first use); the rest are
:class:`Command` values, so answering ``get_state`` or ``get_messages`` never imports pydantic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError

    from pi_cli.modes.rpc.commands import FieldCommand, RequestId


@dataclass(frozen=True, slots=True)
class Command:
    """A command with no field but ``type`` and ``id`` (``get_state``, ``get_messages``, ``abort`` …)."""

    type: str
    id: RequestId = None


# Each command type → the name of its model in :mod:`.commands`, or None for a command with no
# field but ``id`` and ``type`` (a :class:`Command`, checked without importing pydantic).
COMMAND_MODELS: dict[str, str | None] = {
    "prompt": "PromptCommand",
    "steer": "SteerCommand",
    "follow_up": "SteerCommand",
    "abort": None,
    "new_session": "NewSessionCommand",
    "get_state": None,
    "get_messages": None,
    "set_model": "SetModelCommand",
    "cycle_model": None,
    "get_available_models": None,
    "set_thinking_level": "SetThinkingLevelCommand",
    "cycle_thinking_level": None,
    "set_steering_mode": "SetQueueModeCommand",
    "set_follow_up_mode": "SetQueueModeCommand",
    "compact": "CompactCommand",
    "set_auto_compaction": "SetEnabledCommand",
    "set_auto_retry": "SetEnabledCommand",
    "abort_retry": None,
    "bash": "BashCommand",
    "abort_bash": None,
    "get_session_stats": None,
    "export_html": "ExportHtmlCommand",
    "switch_session": "SwitchSessionCommand",
    "fork": "ForkCommand",
    "clone": None,
    "get_fork_messages": None,
    "get_last_assistant_text": None,
    "set_session_name": "SetSessionNameCommand",
    "get_commands": None,
    "get_available_thinking_levels": None,
    "clear_queue": None,
    "get_entries": "GetEntriesCommand",
    "get_tree": None,
    "get_checkpoints": None,
    "rewind": "RewindCommand",
}


class CommandError(Exception):
    """A command that cannot be handled: ``command`` is its type (or ``parse``), ``id`` its id."""

    def __init__(self, command: str, message: str, id: Any = None) -> None:
        super().__init__(message)
        self.command = command
        self.message = message
        self.id = id


class UnknownCommand(CommandError):
    pass


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(p) for p in err.get("loc", ())) or "command"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)


def parse_command(obj: Any) -> Command | FieldCommand:
    """Validate one decoded command. Raises :class:`UnknownCommand` / :class:`CommandError`."""
    if not isinstance(obj, dict):
        raise CommandError("parse", "Failed to parse command: expected a JSON object")
    kind = obj.get("type")
    raw_id = obj.get("id")
    request_id = raw_id if isinstance(raw_id, (str, int, float)) and not isinstance(raw_id, bool) else None
    if not isinstance(kind, str):
        raise CommandError("parse", "Failed to parse command: missing string field 'type'", request_id)
    if kind not in COMMAND_MODELS:
        raise UnknownCommand(kind, f"Unknown command: {kind}", request_id)
    name = COMMAND_MODELS[kind]
    if name is None and (raw_id is None or type(raw_id) in (str, int, float)):
        return Command(kind, raw_id)  # what pydantic makes of these ids: each is kept as it is
    from pydantic import ValidationError

    from pi_cli.modes.rpc import commands

    model: type[FieldCommand] = commands.FieldCommand if name is None else getattr(commands, name)
    try:
        validated = model.model_validate(obj)
    except ValidationError as exc:
        raise CommandError(kind, f"Invalid {kind} command: {_describe(exc)}", request_id) from None
    return Command(kind, validated.id) if name is None else validated


def success(request_id: Any, command: str, data: Any = ..., *, with_data: bool = True) -> dict[str, Any]:
    """``{id?, type:"response", command, success:true, data?}`` (``data`` omitted when not given)."""
    out: dict[str, Any] = {}
    if request_id is not None:
        out["id"] = request_id
    out.update({"type": "response", "command": command, "success": True})
    if data is not ...:
        out["data"] = data
    return out


def failure(request_id: Any, command: str, error: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if request_id is not None:
        out["id"] = request_id
    out.update({"type": "response", "command": command, "success": False, "error": error})
    return out
