"""Types of the agent core: messages, tools, tool results, hooks and events.

Agent events are plain dicts with pi's field names (``type``, ``message``, ``toolCallId`` …) so
the JSON and RPC modes can serialise them as they are. Tool results are small dataclasses because
tools build them in Python; :meth:`AgentToolResult.to_json` gives pi's shape.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias, runtime_checkable

from pi_cli.ai.abort import AbortSignal
from pi_cli.ai.types import AssistantMessage, Message, ToolCall, Usage, UserContent

# Any message with a ``role``: the three LLM messages plus custom ones (e.g. ``bashExecution``,
# ``custom``) that ``convert_to_llm`` drops or translates before a request.
AgentMessage: TypeAlias = Message | dict[str, Any]

ToolExecutionMode: TypeAlias = Literal["sequential", "parallel"]
QueueMode: TypeAlias = Literal["all", "one-at-a-time"]


@dataclass(slots=True)
class AgentToolResult:
    """What a tool's ``execute`` returns. Failures are raised, not returned as text — or, as pi
    1.6's bash does for a non-zero exit, returned with ``is_error`` set (the result keeps its
    ``details`` and ``structured_content``).

    ``terminate`` asks the loop to stop after this batch; it takes effect only when every result
    of the batch sets it, and it is never copied onto the tool-result message. ``structured_content``
    (pi 1.6 ``structuredContent``) is the result as data for programmatic callers; it rides on the
    ``tool_execution_end`` result only.
    """

    content: list[UserContent] = field(default_factory=list)
    details: Any = None
    terminate: bool | None = None
    usage: Usage | None = None
    added_tool_names: list[str] | None = None
    structured_content: Any = None
    is_error: bool | None = None

    def to_json(self) -> dict[str, Any]:
        """pi's JSON form (camelCase), as carried by ``tool_execution_*`` events."""
        out: dict[str, Any] = {"content": self.content}
        if self.details is not None:  # pi leaves it undefined, so the key is absent from its JSON
            out["details"] = self.details
        if self.structured_content is not None:
            out["structuredContent"] = self.structured_content
        if self.is_error is not None:
            out["isError"] = self.is_error
        if self.terminate is not None:
            out["terminate"] = self.terminate
        if self.usage is not None:
            out["usage"] = self.usage
        if self.added_tool_names:
            out["addedToolNames"] = self.added_tool_names
        return out


OnUpdate: TypeAlias = Callable[[AgentToolResult], None]


@runtime_checkable
class AgentTool(Protocol):
    """A tool the model can call.

    ``parameters`` is a JSON schema (validated with jsonschema before ``execute``). ``execute``
    must honour ``signal`` promptly and may call ``on_update`` with partial results while it runs.
    ``execution_mode`` "sequential" forces the whole batch it appears in to run one call at a time.
    """

    name: str
    label: str
    description: str
    parameters: dict[str, Any]
    execution_mode: ToolExecutionMode | None

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        """Adjust raw model arguments before validation (return them unchanged if nothing to do)."""
        ...

    async def execute(
        self,
        tool_call_id: str,
        args: dict[str, Any],
        signal: AbortSignal | None,
        on_update: OnUpdate | None,
    ) -> AgentToolResult: ...


@dataclass(slots=True)
class AgentContext:
    """What one model call sees: the system prompt, the transcript and the tools."""

    system_prompt: str
    messages: list[AgentMessage]
    tools: list[AgentTool] = field(default_factory=list)


# --- hook payloads --------------------------------------------------------------------------


@dataclass(slots=True)
class BeforeToolCallContext:
    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: dict[str, Any]  # validated; mutations reach ``execute`` without revalidation
    context: AgentContext


@dataclass(slots=True)
class BeforeToolCallResult:
    block: bool = False
    reason: str | None = None
    terminate: bool | None = None


@dataclass(slots=True)
class AfterToolCallContext:
    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: dict[str, Any]
    result: AgentToolResult
    is_error: bool
    context: AgentContext


@dataclass(slots=True)
class AfterToolCallResult:
    """Field-by-field override of a tool result; ``None`` keeps the original value."""

    content: list[UserContent] | None = None
    details: Any = None
    is_error: bool | None = None
    terminate: bool | None = None
    usage: Usage | None = None
    structured_content: Any = None  # without it, new ``content`` drops the tool's structured content


@dataclass(slots=True)
class TurnContext:
    """Passed to ``should_stop_after_turn`` and ``prepare_next_turn`` after each successful turn."""

    message: AssistantMessage
    tool_results: list[Message]
    context: AgentContext
    new_messages: list[AgentMessage]


@dataclass(slots=True)
class NextTurnUpdate:
    """What ``prepare_next_turn`` may change for the following request (None = unchanged)."""

    context: AgentContext | None = None
    model: Any = None  # pi_cli.ai.types.Model
    thinking_level: str | None = None


# Agent events: dicts with pi's fields. ``type`` is one of:
# agent_start, agent_end{messages}, turn_start, turn_end{message, toolResults},
# message_start{message}, message_update{message, assistantMessageEvent}, message_end{message},
# tool_execution_start{toolCallId, toolName, args},
# tool_execution_update{toolCallId, toolName, args, partialResult},
# tool_execution_end{toolCallId, toolName, result, isError}.
# ``result``/``partialResult`` hold AgentToolResult.to_json() dicts.
AgentEvent: TypeAlias = dict[str, Any]
AgentEventSink: TypeAlias = Callable[[AgentEvent], Awaitable[None]]
