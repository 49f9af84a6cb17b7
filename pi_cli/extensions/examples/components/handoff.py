"""Carry the context over to a fresh session (pi's ``handoff`` example).

``pi -e example:handoff``. ``/handoff <goal>`` has the model write a self-contained prompt for a
new session from this branch's conversation and the goal (a
:class:`~pi_cli.extensions.rendering.loader.BorderedLoader` spinner meanwhile, Escape cancels),
lets the user edit it (``ctx.ui.editor``), then starts a new session (``ctx.new_session``, the old
file recorded as its parent) with the prompt waiting in the editor. TUI and inline mode. The
conversation is flattened as the ``summarize`` example does (compactions are not unfolded).
"""

from __future__ import annotations

from typing import Any

from pi_cli.extensions import ExtensionAPI
from pi_cli.extensions.examples.session_control.summarize import conversation_text
from pi_cli.extensions.rendering.loader import completion_view

SYSTEM_PROMPT = """You hand work over between conversations. From the conversation and the user's
goal for the next one, write the prompt that starts the next conversation: the context that
matters (decisions taken, approaches tried, findings), the files that came up, and the next task
as the goal describes it. It must stand on its own, without the old conversation. Write only the
prompt, no preamble. Use a "## Context" and a "## Task" heading."""


def register(pi: ExtensionAPI) -> None:
    async def handoff(args: str, ctx: Any) -> None:
        if ctx.mode not in ("tui", "inline"):  # the terminal front ends
            ctx.ui.notify("handoff requires interactive mode", "error")
            return
        model, goal = ctx.model, args.strip()
        if model is None:
            ctx.ui.notify("No model selected", "error")
            return
        if not goal:
            ctx.ui.notify("Usage: /handoff <goal for new thread>", "error")
            return
        conversation = conversation_text(ctx.session_manager.get_branch())
        if not conversation.strip():
            ctx.ui.notify("No conversation to hand off", "error")
            return
        parent = ctx.session_manager.get_session_file()
        text = f"## Conversation History\n\n{conversation}\n\n## User's Goal for New Thread\n\n{goal}"
        factory = completion_view(ctx, model, SYSTEM_PROMPT, text, "Generating handoff prompt...")

        prompt = await ctx.ui.custom(factory)
        if prompt is None:
            ctx.ui.notify("Cancelled", "info")
            return
        edited = await ctx.ui.editor("Edit handoff prompt", prompt)
        if edited is None:
            ctx.ui.notify("Cancelled", "info")
            return
        result = await ctx.new_session(parent_session=parent)
        if result.get("cancelled"):
            ctx.ui.notify("New session cancelled", "info")
            return
        ctx.ui.set_editor_text(edited)
        ctx.ui.notify("Handoff ready. Submit when ready.", "info")

    pi.register_command("handoff", handoff, "Transfer context to a new focused session")
