"""The sandbox's "run this blocked call outside?" offer reaches an ACP editor as real options."""

from __future__ import annotations

from typing import Any

import pytest

from pi_cli.permissions.gate import KEEP_SANDBOXED, RUN_OUTSIDE


@pytest.mark.parametrize(("picked", "expected"), [("0", RUN_OUTSIDE), ("1", KEEP_SANDBOXED)])
async def test_the_run_outside_offer_is_two_acp_options(picked: str, expected: str) -> None:
    from acp.schema import AllowedOutcome, RequestPermissionResponse

    from pi_cli.agent.tool_exec import current_tool_call
    from pi_cli.modes.acp.permissions import AcpApprovals

    offered: list[list[tuple[str, str]]] = []

    class Conn:
        async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **_: Any) -> Any:
            offered.append([(option.option_id, option.kind) for option in options])
            return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=picked))

    dialogs = AcpApprovals(lambda: Conn(), "s1")
    call = current_tool_call.set({"toolCallId": "c1", "toolName": "bash", "input": {"command": "touch /x"}})
    try:
        chosen = await dialogs.select("The sandbox blocked this bash call.", [RUN_OUTSIDE, KEEP_SANDBOXED])
    finally:
        current_tool_call.reset(call)
    assert offered == [[("0", "allow_once"), ("1", "reject_once")]]  # before the fix: no options at all
    assert chosen == expected
