"""Protocol types of the provider layer.

Messages, content blocks, usage, models and stream events are plain ``TypedDict``s whose keys are
pi's camelCase JSON names. That is deliberate: the same objects go, unconverted, into session
files, ``--mode json`` lines and RPC responses, and a dict costs nothing to build on the streaming
hot path. Helper constructors below fill the required fields.
"""

from __future__ import annotations

import time
from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

StopReason: TypeAlias = Literal["stop", "length", "toolUse", "error", "aborted"]
# pi 1.6's levels, lowest first. ``xhigh`` and ``max`` are opt-in: a model offers them only when its
# ``thinkingLevelMap`` names them (pi_ai.models.supported_thinking_levels).
ThinkingLevel: TypeAlias = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
THINKING_LEVELS: tuple[ThinkingLevel, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")


# --- content blocks -------------------------------------------------------------------------


class TextContent(TypedDict):
    type: Literal["text"]
    text: str
    textSignature: NotRequired[str]


class ThinkingContent(TypedDict):
    type: Literal["thinking"]
    thinking: str
    thinkingSignature: NotRequired[str]
    redacted: NotRequired[bool]


class ImageContent(TypedDict):
    type: Literal["image"]
    data: str  # base64
    mimeType: str


class ToolCall(TypedDict):
    type: Literal["toolCall"]
    id: str
    name: str
    arguments: dict[str, Any]
    thoughtSignature: NotRequired[str]


UserContent: TypeAlias = TextContent | ImageContent
AssistantContent: TypeAlias = TextContent | ThinkingContent | ToolCall


# --- usage ----------------------------------------------------------------------------------


class Cost(TypedDict):
    input: float
    output: float
    cacheRead: float
    cacheWrite: float
    total: float
    totalFromProvider: NotRequired[bool]  # pi 1.6: True when ``total`` is the provider's own bill (OpenRouter)


class Usage(TypedDict):
    input: int
    output: int
    cacheRead: int
    cacheWrite: int
    reasoning: NotRequired[int]  # pi 1.6: reasoning tokens (part of ``output``), where the provider reports them
    totalTokens: int
    cost: Cost
    cacheWrite1h: NotRequired[int]  # Anthropic: the part of ``cacheWrite`` cached for an hour (billed 2x input)


def js_number(value: float) -> float:
    """``value`` as JavaScript writes it in JSON: a whole number (``0``, ``2``) becomes an ``int``, so
    ``json.dumps`` writes ``0`` where ``0.0`` would differ from pi's text (and read back as a float in
    a client); other values pass unchanged. ``int`` is a ``float`` to the type checker."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def empty_usage() -> Usage:
    """A zeroed usage record (a fresh object each call); costs are ``0`` as pi writes them."""
    return {
        "input": 0,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


# --- messages -------------------------------------------------------------------------------


class UserMessage(TypedDict):
    role: Literal["user"]
    content: str | list[UserContent]
    timestamp: int  # ms since the epoch


class AssistantMessage(TypedDict):
    role: Literal["assistant"]
    content: list[AssistantContent]
    api: str
    provider: str
    model: str
    usage: Usage
    stopReason: StopReason
    timestamp: int  # ms since the epoch, taken when the request started
    errorMessage: NotRequired[str]
    responseId: NotRequired[str]
    responseModel: NotRequired[str]
    thinkingLevel: NotRequired[str]  # pi 1.6: the level the request was made with ("off" when none)
    rawStopReason: NotRequired[str]  # pi 1.6: the provider's own stop/finish reason, before mapping
    durationMs: NotRequired[int]  # pi 1.6: request start to the final event (monotonic clock)


class ToolResultMessage(TypedDict):
    role: Literal["toolResult"]
    toolCallId: str
    toolName: str
    content: list[UserContent]
    isError: bool
    timestamp: int
    details: NotRequired[Any]
    durationMs: NotRequired[int]  # pi 1.6: how long the tool ran; absent when it did not run


Message: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage


def now_ms() -> int:
    """Wall-clock time in milliseconds, the unit of every ``timestamp`` field."""
    return time.time_ns() // 1_000_000


def user_message(text: str, images: list[ImageContent] | None = None) -> UserMessage:
    """A user message; with images the content becomes a block list, as pi builds it."""
    if not images:
        return {"role": "user", "content": text, "timestamp": now_ms()}
    blocks: list[UserContent] = [{"type": "text", "text": text}, *images]
    return {"role": "user", "content": blocks, "timestamp": now_ms()}


def text_of(content: str | list[Any]) -> str:
    """Concatenated text blocks of a message's content (thinking and tool calls left out)."""
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if block.get("type") == "text")


# --- models ---------------------------------------------------------------------------------


class ModelCost(TypedDict):
    input: float  # $ per million tokens
    output: float
    cacheRead: float
    cacheWrite: float


class Model(TypedDict):
    """A model as pi describes it (``models.json`` and the built-in catalogue share the shape)."""

    id: str
    name: str
    api: str
    provider: str
    baseUrl: str
    reasoning: bool
    input: list[Literal["text", "image"]]
    cost: ModelCost
    contextWindow: int
    maxTokens: int
    headers: NotRequired[dict[str, str]]
    compat: NotRequired[dict[str, Any]]
    thinkingLevelMap: NotRequired[dict[str, str | None]]


# --- request context ------------------------------------------------------------------------


class Tool(TypedDict):
    name: str
    description: str
    parameters: dict[str, Any]  # JSON schema


class Context(TypedDict):
    systemPrompt: NotRequired[str]
    messages: list[Message]
    tools: NotRequired[list[Tool]]


# --- stream events --------------------------------------------------------------------------


class StartEvent(TypedDict):
    type: Literal["start"]
    partial: AssistantMessage


class BlockStartEvent(TypedDict):
    type: Literal["text_start", "thinking_start", "toolcall_start"]
    contentIndex: int
    partial: AssistantMessage


class DeltaEvent(TypedDict):
    type: Literal["text_delta", "thinking_delta", "toolcall_delta"]
    contentIndex: int
    delta: str
    partial: AssistantMessage


class TextEndEvent(TypedDict):
    type: Literal["text_end", "thinking_end"]
    contentIndex: int
    content: str
    partial: AssistantMessage


class ToolCallEndEvent(TypedDict):
    type: Literal["toolcall_end"]
    contentIndex: int
    toolCall: ToolCall
    partial: AssistantMessage


class DoneEvent(TypedDict):
    type: Literal["done"]
    reason: Literal["stop", "length", "toolUse"]
    message: AssistantMessage


class ErrorEvent(TypedDict):
    type: Literal["error"]
    reason: Literal["error", "aborted"]
    error: AssistantMessage


AssistantMessageEvent: TypeAlias = (
    StartEvent | BlockStartEvent | DeltaEvent | TextEndEvent | ToolCallEndEvent | DoneEvent | ErrorEvent
)
