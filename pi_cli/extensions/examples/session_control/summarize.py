"""A summary of the conversation from a model (pi's ``summarize`` example).

``pi -e example:summarize``. ``/summarize`` sends this branch's user and assistant text (and the
tool calls made) to a model through ``ctx.model_registry.complete`` — the session's model, or
``/summarize provider/model-id`` — and shows the summary as a notice. The request is the
extension's own: nothing joins the conversation. (pi shows the summary in a custom TUI
component; pi_cli has no ``ctx.ui.custom`` yet, so it is a notice in every mode.)
"""

from __future__ import annotations

import json
from typing import Any

from pi_cli.extensions import ExtensionAPI

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
        ctx.ui.notify(f"Conversation summary\n\n{summary}", "info")

    pi.register_command("summarize", summarize, "Summarize the conversation (/summarize [provider/model])")
