"""``ctx.ui`` of extensions in ACP mode: their questions become ``session/request_permission``.

ACP has one kind of question, a choice between options whose kinds are allow/reject once/always.
``select`` offers the extension's options as they are (a "no"/"deny"/"cancel"-like option as a
rejection, the rest as allowing choices); ``confirm`` is Yes/No. Free text (``input``) has no ACP
form and answers None; ``notify`` goes to stderr, which editors show in their agent log.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable
from typing import Any, Literal

from acp.schema import PermissionOption, ToolCallUpdate

from pi_cli.extensions.ui import DialogUI
from pi_cli.modes.acp.tool_calls import tool_kind, tool_title

_REJECTING = ("no", "deny", "cancel", "reject", "abort", "skip")


OptionKind = Literal["allow_once", "allow_always", "reject_once", "reject_always"]


def option_kind(label: str) -> OptionKind:
    """The ACP kind that reads like ``label``."""
    word = label.strip().lower()
    rejecting = word.startswith(_REJECTING)
    always = "always" in word
    if rejecting:
        return "reject_always" if always else "reject_once"
    return "allow_always" if always else "allow_once"


class AcpDialogs:
    """``select``/``input`` over one ACP connection and session (for :class:`DialogUI`, and the
    approval gate's :class:`~pi_cli.modes.acp.permissions.AcpApprovals`)."""

    def __init__(self, conn: Callable[[], Any], session_id: str) -> None:
        self._conn = conn
        self._session_id = session_id

    def option_kind(self, label: str) -> OptionKind | None:
        """The ACP kind offered for ``label``; None leaves the option out."""
        return option_kind(label)

    async def select(self, title: str, options: list[str]) -> str | None:
        from pi_cli.agent.tool_exec import current_agent, current_tool_call  # set while the chain runs

        call = current_tool_call.get() or {}  # the call being decided, if any
        name = str(call.get("toolName") or "")
        raw = call.get("input")
        args: dict[str, Any] = raw if isinstance(raw, dict) else {}
        scope = current_agent.get()  # a subagent's call: the card says which child asks
        card = tool_title(name, args) if name else title.splitlines()[0]
        if scope is not None and not card.startswith(f"[{scope.label}]"):
            card = f"[{scope.label}] {card}"
        update = ToolCallUpdate.model_validate(
            {
                "toolCallId": str(call.get("toolCallId") or f"question-{uuid.uuid4().hex[:8]}"),
                "title": card,
                "kind": tool_kind(name) if name else "other",
                "status": "pending",
                "rawInput": args or None,
                "content": [{"type": "content", "content": {"type": "text", "text": title}}],
            }
        )
        offered = [(str(n), label, kind) for n, label in enumerate(options) if (kind := self.option_kind(label))]
        response = await self._conn().request_permission(
            session_id=self._session_id,
            tool_call=update,
            options=[PermissionOption(option_id=key, name=label, kind=kind) for key, label, kind in offered],
        )
        outcome = response.outcome
        chosen = getattr(outcome, "option_id", None) if getattr(outcome, "outcome", None) == "selected" else None
        return next((label for key, label, _ in offered if key == chosen), None)

    async def input(self, title: str, placeholder: str | None = None) -> str | None:
        return None


def acp_extension_ui(conn: Callable[[], Any], session_id: str) -> DialogUI:
    def notify(text: str, level: str) -> None:
        sys.stderr.write(f"[{level}] {text}\n")
        sys.stderr.flush()

    return DialogUI(AcpDialogs(conn, session_id), notify)
