"""The approval gate's question as ACP ``session/request_permission``.

The gate's answers map to ACP option kinds: allow once → ``allow_once``, allow always →
``allow_always``, deny → ``reject_once``; the sandbox's offer for a blocked call: run it once
outside → ``allow_once``, keep it sandboxed → ``reject_once``. "Deny with a message" is left out: ACP has no text
answer. The request names the tool call being decided (its id, title and raw input), so the
editor shows the question on that call's card. A cancelled request is a denial. The request itself
is :class:`~pi_cli.modes.acp.extension_ui.AcpDialogs`'s, shared with extensions' questions.
"""

from __future__ import annotations

from pi_cli.modes.acp.extension_ui import AcpDialogs, OptionKind
from pi_cli.permissions.gate import ALLOW_ONCE, DENY, KEEP_SANDBOXED, RUN_OUTSIDE


class AcpApprovals(AcpDialogs):
    """An :class:`~pi_cli.permissions.gate.ApprovalUI` over one ACP connection and session."""

    def option_kind(self, label: str) -> OptionKind | None:
        if label in (ALLOW_ONCE, RUN_OUTSIDE):
            return "allow_once"
        if label.startswith("Allow always"):
            return "allow_always"
        if label in (DENY, KEEP_SANDBOXED):
            return "reject_once"
        return None
