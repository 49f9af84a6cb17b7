"""The approval gate's question as ACP ``session/request_permission``.

The gate's answers map to ACP option kinds: allow once → ``allow_once``, allow always →
``allow_always``, deny → ``reject_once``. "Deny with a message" is left out: ACP has no text
answer. The request names the tool call being decided (its id, title and raw input), so the
editor shows the question on that call's card. A cancelled request is a denial.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp.schema import PermissionOption, ToolCallUpdate

from pi_cli.modes.acp.tool_calls import tool_kind, tool_title
from pi_cli.permissions.gate import ALLOW_ONCE, DENY
from pi_cli.permissions.install import current_tool_call


def _kind(label: str) -> str | None:
    if label == ALLOW_ONCE:
        return "allow_once"
    if label.startswith("Allow always"):
        return "allow_always"
    if label == DENY:
        return "reject_once"
    return None


class AcpApprovals:
    """An :class:`~pi_cli.permissions.gate.ApprovalUI` over one ACP connection and session."""

    def __init__(self, conn: Callable[[], Any], session_id: str) -> None:
        self._conn = conn
        self._session_id = session_id

    async def select(self, title: str, options: list[str]) -> str | None:
        call = current_tool_call.get() or {}
        name = str(call.get("toolName") or "tool")
        raw = call.get("input")
        args: dict[str, Any] = raw if isinstance(raw, dict) else {}
        offered = [(str(n), label, kind) for n, label in enumerate(options) if (kind := _kind(label)) is not None]
        update = ToolCallUpdate.model_validate(
            {
                "toolCallId": str(call.get("toolCallId") or "approval"),
                "title": tool_title(name, args),
                "kind": tool_kind(name),
                "status": "pending",
                "rawInput": args,
                "content": [{"type": "content", "content": {"type": "text", "text": title}}],
            }
        )
        response = await self._conn().request_permission(
            session_id=self._session_id,
            tool_call=update,
            options=[PermissionOption(option_id=key, name=label, kind=kind) for key, label, kind in offered],  # type: ignore[arg-type]
        )
        outcome = response.outcome
        chosen = getattr(outcome, "option_id", None) if getattr(outcome, "outcome", None) == "selected" else None
        return next((label for key, label, _ in offered if key == chosen), None)

    async def input(self, title: str, placeholder: str | None = None) -> str | None:
        return None  # never asked: the message answer is not offered over ACP
