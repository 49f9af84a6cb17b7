"""Small shared pieces of the built-in tools: a base class and result helpers."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, TypeAlias

from pi_cli.agent.types import AgentToolResult, OnUpdate, ToolExecutionMode
from pi_cli.ai.abort import AbortSignal
from pi_cli.sandbox.protocol import ProcessConfinement, ToolSandbox
from pi_cli.tools.files.ops import FileOps
from pi_cli.tools.operations import file_operations
from pi_cli.tools.truncate import DEFAULT_MAX_BYTES, format_size, truncate_head

# One bracketed notice of a listing: (text for the model, ``details`` key, ``details`` value).
Notice: TypeAlias = tuple[str, str, Any]

# Listings are cut by bytes only; this "no limit" is what ``details.truncation.maxLines`` reports.
_NO_LINE_LIMIT = 1 << 62


class ToolAborted(Exception):
    """Raised when a tool notices its abort signal; the message is pi's ``Operation aborted``."""

    def __init__(self, message: str = "Operation aborted") -> None:
        super().__init__(message)


def check_aborted(signal: AbortSignal | None) -> None:
    """Raise :class:`ToolAborted` if ``signal`` has fired."""
    if signal is not None and signal.aborted:
        raise ToolAborted()


def require_directory(path: str) -> None:
    """Raise pi's ``Path not found: P`` / ``Not a directory: P`` errors unless ``path`` is a directory."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"Path not found: {path}")
    if not os.path.isdir(path):
        raise NotADirectoryError(f"Not a directory: {path}")


def text_result(text: str, details: Any = None) -> AgentToolResult:
    """A result with one text block."""
    return AgentToolResult(content=[{"type": "text", "text": text}], details=details)


def limit_notice(
    reached: bool, limit: int, counted: str, key: str, advice: str = ", or refine pattern"
) -> Notice | None:
    """pi's notice for a listing stopped at ``limit`` ``counted`` (``results``, ``matches``,
    ``entries``), or None when it was not: the text suggests twice the limit, ``details[key]`` is
    the limit."""
    if not reached:
        return None
    return (f"{limit} {counted} limit reached. Use limit={limit * 2} for more{advice}", key, limit)


def listing_result(
    lines: list[str], limit_notice: Notice | None, extra_notice: Notice | None = None
) -> AgentToolResult:
    """The result of ``grep``/``find``/``ls``: ``lines`` cut to ``DEFAULT_MAX_BYTES``, then pi's notices.

    Notices are joined in pi's order (result limit, byte limit, ``extra_notice``) into one bracketed
    line after a blank line; each also sets its key in ``details`` (``None`` when there is none).
    Only the byte limit applies: a listing's line count is bounded by its own result limit.
    """
    trunc = truncate_head("\n".join(lines), max_lines=_NO_LINE_LIMIT)
    byte_notice: Notice | None = None
    if trunc.truncated:
        byte_notice = (f"{format_size(DEFAULT_MAX_BYTES)} limit reached", "truncation", trunc.to_json())
    notices = [notice for notice in (limit_notice, byte_notice, extra_notice) if notice is not None]
    output = trunc.content
    if notices:
        output += f"\n\n[{'. '.join(text for text, _, _ in notices)}]"
    return text_result(output, {key: value for _, key, value in notices} or None)


def as_int(value: Any, name: str) -> int | None:
    """Turn a JSON number argument into an int (models send ``10.0``); ``None`` stays ``None``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number")
    if isinstance(value, float) and not value.is_integer():
        raise ValueError(f"{name} must be a whole number, got {value}")
    return int(value)


class PlainTool:
    """The :class:`~pi_cli.agent.types.AgentTool` entry points of a tool whose work does not depend
    on which call it serves (the built-in tools, MCP's): raw arguments are used as they are unless
    a subclass overrides :meth:`prepare_arguments`, and :meth:`execute` drops the call id and runs
    :meth:`run`, which subclasses write."""

    execution_mode: ToolExecutionMode | None = None

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        return args

    async def execute(
        self,
        tool_call_id: str,
        args: dict[str, Any],
        signal: AbortSignal | None = None,
        on_update: OnUpdate | None = None,
    ) -> AgentToolResult:
        return await self.run(args, signal, on_update)

    async def run(
        self, args: dict[str, Any], signal: AbortSignal | None, on_update: OnUpdate | None
    ) -> AgentToolResult:
        """Do the tool's work on validated ``args``; failures are raised with a one-line message."""
        raise NotImplementedError


class BuiltinTool(PlainTool):
    """Common attributes of the built-in tools; subclasses set the class attributes and :meth:`run`.

    Each instance is bound to one working directory, the session's cwd, against which relative
    paths resolve. ``sandbox`` (None: pi's behaviour) is the session's sandbox: file tools check its
    policy on every path, and processes they start run confined.
    """

    name: str = ""
    label: str = ""
    description: str = ""
    parameters: dict[str, Any] = {}  # noqa: RUF012 - replaced per subclass, never mutated
    # read/write/edit ask this first when set (an editor's buffers, see pi_cli.tools.files.ops)
    file_ops: FileOps | None = None
    # The calls of pi's Read/Write/EditOperations this tool needs when an extension gives it a
    # backend (``operations``); empty: the tool takes none.
    operation_needs: tuple[str, ...] = ()

    def __init__(self, cwd: str, sandbox: ToolSandbox | None = None, operations: Any = None) -> None:
        """``operations``: an extension's file backend (e.g. SSH; see :mod:`pi_cli.tools.operations`)
        for a tool with ``operation_needs``; its files are then read and written there."""
        self.cwd = cwd
        self.sandbox = sandbox
        if operations is not None and not self.operation_needs:
            raise TypeError(f"the {self.name} tool takes no file operations")
        self.files = file_operations(operations, self.operation_needs)

    def guard_read(self, path: str) -> None:
        """Raise the sandbox's refusal when it forbids reading ``path``."""
        refusal = self.sandbox.check_read(path) if self.sandbox is not None else None
        if refusal is not None:
            raise PermissionError(refusal)

    def guard_write(self, path: str) -> None:
        """Raise the sandbox's refusal when it forbids writing ``path``."""
        refusal = self.sandbox.check_write(path) if self.sandbox is not None else None
        if refusal is not None:
            raise PermissionError(refusal)

    def confinement(self) -> ProcessConfinement | None:
        """How a process this tool starts is confined (None: unsandboxed)."""
        return self.sandbox.confinement() if self.sandbox is not None else None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} cwd={self.cwd!r}>"


def object_schema(
    properties: dict[str, dict[str, Any]], required: Sequence[str] = (), *, closed: bool = False
) -> dict[str, Any]:
    """A tool's JSON-schema ``parameters`` (keys in the order pi sends them)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    if closed:
        schema["additionalProperties"] = False
    return schema


def string(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def number(description: str) -> dict[str, Any]:
    return {"type": "number", "description": description}


def boolean(description: str) -> dict[str, Any]:
    return {"type": "boolean", "description": description}
