"""A summary of the conversation from a model (pi's ``summarize`` example).

``pi -e example:summarize``. ``/summarize`` sends this branch's user and assistant text (and the
tool calls made) to a model through ``ctx.model_registry.complete`` — the session's model, or
``/summarize provider/model-id`` — and shows the summary: in the TUI and inline in a custom component
(``ctx.ui.custom``, Enter or Escape closes it, as pi), elsewhere as a notice (pi shows nothing
there). The request is the extension's own: nothing joins the conversation.
"""

from __future__ import annotations

import json
from typing import Any

from pi_cli.extensions import ExtensionAPI
from pi_cli.extensions.rendering import ExtensionTheme, matches_key, wrap_text_with_ansi

PROMPT = (
    "Summarize this conversation so I can resume it later.\n"
    "Include goals, key decisions, progress, open questions, and next steps.\n"
    "Keep it concise and structured with headings.\n\n<conversation>\n{conversation}\n</conversation>"
)


def conversation_text(branch: list[dict[str, Any]]) -> str:
    """``User: …`` / ``Assistant: …`` sections (with ``Tool X was called with args …`` lines)."""
    sections: list[str] = []
    for entry in branch:
        message = entry.get("message") if entry.get("type") == "message" else None
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("user", "assistant"):
            continue
        assert isinstance(message, dict)
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        lines: list[str] = []
        text = "\n".join(b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str))
        if text.strip():
            lines.append(f"{'User' if role == 'user' else 'Assistant'}: {text.strip()}")
        if role == "assistant":
            lines += [
                f"Tool {b['name']} was called with args {json.dumps(b.get('arguments') or {})}"
                for b in blocks
                if b.get("type") == "toolCall"
            ]
        if lines:
            sections.append("\n".join(lines))
    return "\n\n".join(sections)


class SummaryView:
    """The summary between two accent rules, wrapped to the width; Enter or Escape closes."""

    def __init__(self, summary: str, theme: ExtensionTheme, done: Any) -> None:
        self.summary, self.theme, self.done = summary, theme, done

    def render(self, width: int) -> list[str]:
        rule = self.theme.fg("accent", "─" * width)
        title = " " + self.theme.fg("accent", self.theme.bold("Conversation Summary"))
        body = [" " + row for row in wrap_text_with_ansi(self.summary, max(1, width - 2))]
        return [rule, title, "", *body, "", " " + self.theme.fg("dim", "Press Enter or Esc to close"), rule]

    def handle_input(self, data: str) -> None:
        if matches_key(data, "enter") or matches_key(data, "escape"):
            self.done(None)


def register(pi: ExtensionAPI) -> None:
    async def summarize(args: str, ctx: Any) -> None:
        conversation = conversation_text(ctx.session_manager.get_branch())
        if not conversation.strip():
            ctx.ui.notify("No conversation text found", "warning")
            return
        model = ctx.model
        if args.strip():
            provider, _, model_id = args.strip().partition("/")
            model = ctx.model_registry.find(provider, model_id)
            if model is None:
                ctx.ui.notify(f"Model {args.strip()} not found", "warning")
                return
        if model is None:
            ctx.ui.notify("No model to summarize with", "warning")
            return
        ctx.ui.notify("Preparing summary...", "info")
        request = {
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": PROMPT.format(conversation=conversation)}]}
            ]
        }
        reply = await ctx.model_registry.complete(model, request, {"signal": ctx.signal})
        if reply.get("stopReason") == "error":
            ctx.ui.notify(f"Summary failed: {reply.get('errorMessage')}", "error")
            return
        summary = "\n".join(b["text"] for b in reply.get("content", []) if b.get("type") == "text")
        if ctx.mode in ("tui", "inline"):
            await ctx.ui.custom(lambda tui, theme, kb, done: SummaryView(summary, theme, done))
        else:
            ctx.ui.notify(f"Conversation summary\n\n{summary}", "info")

    pi.register_command("summarize", summarize, "Summarize the conversation (/summarize [provider/model])")
