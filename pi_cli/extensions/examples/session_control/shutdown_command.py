"""Quitting from an extension (pi's ``shutdown-command`` example).

``pi -e example:shutdown_command``. ``/quit-now`` asks pi_cli to quit, and the ``finish_and_exit``
tool lets the model end the session once its work is done: ``ctx.shutdown()`` waits until the agent
is idle, so the model's last reply still arrives, and extensions hear ``session_shutdown``. TUI,
inline and RPC quit; print and json end by themselves after their prompts (as pi, a no-op there).
(pi names the command ``/quit``; pi_cli's own ``/quit`` comes first in the terminal front ends.)
"""

from __future__ import annotations

from typing import Any

from pi_cli.extensions import ExtensionAPI


def register(pi: ExtensionAPI) -> None:
    def finish_and_exit(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> str:
        ctx.shutdown()  # the tool context (fifth argument) reaches the front end
        return "Shutdown requested. Exiting after this response."

    pi.register_command("quit-now", lambda args, ctx: ctx.shutdown(), "Exit pi cleanly")
    pi.register_tool({
        "name": "finish_and_exit",
        "label": "Finish and Exit",
        "description": "Complete the task and exit pi",
        "parameters": {"type": "object", "properties": {}},
        "prompt_snippet": "End the session once the user's task is complete",
        "execute": finish_and_exit,
    })  # fmt: skip
