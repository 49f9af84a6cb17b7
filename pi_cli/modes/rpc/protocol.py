"""RPC command models (pydantic) and response builders, pi 0.73.1's protocol (spec §2.4).

Each command is a JSON object with ``type`` and an optional ``id`` (echoed in the response;
any JSON scalar is accepted). Unknown extra fields are ignored. :func:`parse_command` validates a
decoded object and raises :class:`CommandError` with a one-line message naming the bad field.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

QueueModeName = Literal["all", "one-at-a-time"]
ThinkingName = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
RequestId = str | int | float | None


class Command(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: RequestId = None
    type: str


class ImageInput(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["image"] = "image"
    data: str
    mimeType: str


class PromptCommand(Command):
    message: str
    images: list[ImageInput] | None = None
    streamingBehavior: Literal["steer", "followUp"] | None = None


class SteerCommand(Command):
    message: str
    images: list[ImageInput] | None = None


class NewSessionCommand(Command):
    parentSession: str | None = None


class SetModelCommand(Command):
    provider: str
    modelId: str


class SetThinkingLevelCommand(Command):
    level: ThinkingName


class SetQueueModeCommand(Command):
    mode: QueueModeName


class CompactCommand(Command):
    customInstructions: str | None = None


class SetEnabledCommand(Command):
    enabled: bool


class BashCommand(Command):
    command: str


class ExportHtmlCommand(Command):
    outputPath: str | None = None


class SwitchSessionCommand(Command):
    sessionPath: str


class ForkCommand(Command):
    entryId: str


class GetEntriesCommand(Command):
    since: str | None = None


class SetSessionNameCommand(Command):
    name: str


class RewindCommand(Command):
    entryId: str
    files: bool = True
    conversation: bool = True


COMMAND_MODELS: dict[str, type[Command]] = {
    "prompt": PromptCommand,
    "steer": SteerCommand,
    "follow_up": SteerCommand,
    "abort": Command,
    "new_session": NewSessionCommand,
    "get_state": Command,
    "get_messages": Command,
    "set_model": SetModelCommand,
    "cycle_model": Command,
    "get_available_models": Command,
    "set_thinking_level": SetThinkingLevelCommand,
    "cycle_thinking_level": Command,
    "set_steering_mode": SetQueueModeCommand,
    "set_follow_up_mode": SetQueueModeCommand,
    "compact": CompactCommand,
    "set_auto_compaction": SetEnabledCommand,
    "set_auto_retry": SetEnabledCommand,
    "abort_retry": Command,
    "bash": BashCommand,
    "abort_bash": Command,
    "get_session_stats": Command,
    "export_html": ExportHtmlCommand,
    "switch_session": SwitchSessionCommand,
    "fork": ForkCommand,
    "clone": Command,
    "get_fork_messages": Command,
    "get_last_assistant_text": Command,
    "set_session_name": SetSessionNameCommand,
    "get_commands": Command,
    "get_available_thinking_levels": Command,
    "clear_queue": Command,
    "get_entries": GetEntriesCommand,
    "get_tree": Command,
    "get_checkpoints": Command,
    "rewind": RewindCommand,
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


def parse_command(obj: Any) -> Command:
    """Validate one decoded command. Raises :class:`UnknownCommand` / :class:`CommandError`."""
    if not isinstance(obj, dict):
        raise CommandError("parse", "Failed to parse command: expected a JSON object")
    kind = obj.get("type")
    raw_id = obj.get("id")
    request_id = raw_id if isinstance(raw_id, (str, int, float)) and not isinstance(raw_id, bool) else None
    if not isinstance(kind, str):
        raise CommandError("parse", "Failed to parse command: missing string field 'type'", request_id)
    model = COMMAND_MODELS.get(kind)
    if model is None:
        raise UnknownCommand(kind, f"Unknown command: {kind}", request_id)
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        raise CommandError(kind, f"Invalid {kind} command: {_describe(exc)}", request_id) from None


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
