"""The pydantic models of the RPC commands that carry fields (``prompt``, ``set_model``, ``fork`` …).

Imported on the first such command, not at start-up: pydantic and these models cost ~60 ms, and
the commands a client usually sends first (``get_state``, ``get_messages``) have no field but
``id`` and ``type`` (:class:`~pi_cli.modes.rpc.protocol.Command`, checked without pydantic).
Unknown extra fields are ignored. :func:`~pi_cli.modes.rpc.protocol.parse_command` picks the model.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

QueueModeName = Literal["all", "one-at-a-time"]
ThinkingName = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
RequestId = str | int | float | None


class FieldCommand(BaseModel):
    """What every command has: an optional ``id`` (any JSON scalar, echoed) and its ``type``."""

    model_config = ConfigDict(extra="ignore")
    id: RequestId = None
    type: str


class ImageInput(BaseModel):
    model_config = ConfigDict(extra="ignore")
    type: Literal["image"] = "image"
    data: str
    mimeType: str


class PromptCommand(FieldCommand):
    message: str
    images: list[ImageInput] | None = None
    streamingBehavior: Literal["steer", "followUp"] | None = None


class SteerCommand(FieldCommand):
    message: str
    images: list[ImageInput] | None = None


class NewSessionCommand(FieldCommand):
    parentSession: str | None = None


class SetModelCommand(FieldCommand):
    provider: str
    modelId: str


class SetThinkingLevelCommand(FieldCommand):
    level: ThinkingName


class SetQueueModeCommand(FieldCommand):
    mode: QueueModeName


class CompactCommand(FieldCommand):
    customInstructions: str | None = None


class SetEnabledCommand(FieldCommand):
    enabled: bool


class BashCommand(FieldCommand):
    command: str


class ExportHtmlCommand(FieldCommand):
    outputPath: str | None = None


class SwitchSessionCommand(FieldCommand):
    sessionPath: str


class ForkCommand(FieldCommand):
    entryId: str


class GetEntriesCommand(FieldCommand):
    since: str | None = None


class SetSessionNameCommand(FieldCommand):
    name: str


class RewindCommand(FieldCommand):
    entryId: str
    files: bool = True
    conversation: bool = True
