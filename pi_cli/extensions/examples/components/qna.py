"""Questions to answer, from the last reply (pi's ``qna`` example): ``/qna`` asks the model to pull
the questions out of the last assistant message and puts them into the editor as ``Q:``/``A:``
pairs for the user to fill in.

``pi -e example:qna``. While the model works a spinner (a
:class:`~pi_cli.extensions.rendering.loader.BorderedLoader` in ``ctx.ui.custom``) stands in the
editor's place; Escape cancels the request. The request is the extension's own
(``ctx.model_registry.complete``): nothing joins the conversation. TUI and inline mode.
"""

from __future__ import annotations

from typing import Any

from pi_cli.extensions import ExtensionAPI
from pi_cli.extensions.rendering.loader import completion_view

SYSTEM_PROMPT = """You extract questions from a piece of conversation so the user can answer them.

Write each question on its own line starting with "Q: ", followed by a line "A: " for the answer and
a blank line. Keep the order in which the questions were asked and be brief. When there is no
question, write only: No questions found in the last message."""


def _last_reply(branch: list[dict[str, Any]]) -> tuple[str | None, str | None]:
    """(text of the last finished assistant reply, or None; an error to show, or None)."""
    for entry in reversed(branch):
        message = entry.get("message") or {}
        if entry.get("type") != "message" or message.get("role") != "assistant":
            continue
        if message.get("stopReason") != "stop":
            return None, f"Last assistant message incomplete ({message.get('stopReason')})"
        parts = [b["text"] for b in message.get("content") or [] if b.get("type") == "text"]
        if parts:
            return "\n".join(parts), None
    return None, "No assistant messages found"


def register(pi: ExtensionAPI) -> None:
    async def qna(args: str, ctx: Any) -> None:
        if ctx.mode not in ("tui", "inline"):  # the terminal front ends
            ctx.ui.notify("qna requires interactive mode", "error")
            return
        model = ctx.model
        if model is None:
            ctx.ui.notify("No model selected", "error")
            return
        text, problem = _last_reply(ctx.session_manager.get_branch())
        if text is None:
            ctx.ui.notify(problem or "No assistant messages found", "error")
            return
        factory = completion_view(ctx, model, SYSTEM_PROMPT, text, f"Extracting questions using {model['id']}...")

        result = await ctx.ui.custom(factory)
        if result is None:
            ctx.ui.notify("Cancelled", "info")
            return
        ctx.ui.set_editor_text(result)
        ctx.ui.notify("Questions loaded. Edit and submit when ready.", "info")

    pi.register_command("qna", qna, "Extract questions from last assistant message into editor")
