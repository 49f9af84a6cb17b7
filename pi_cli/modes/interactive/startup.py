"""What the transcript shows first: the start header and the no-model notice."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pi_cli import __version__
from pi_cli.modes.display import loaded_resource_lines
from pi_cli.modes.interactive.keys import describe
from pi_cli.modes.interactive.widgets.status import StartHeader

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession

DEMO_PROVIDER = "faux"

NO_MODEL_TEXT = (
    "No model configured — the offline demo model is active. It answers plainly and can run "
    "ls/read/bash to show the tools, but it is not an LLM.\n"
    "To use a real model: export an API key (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, …), "
    "put one in ~/.pi/agent/auth.json, or add a provider to ~/.pi/agent/models.json; "
    "then restart pi or pick it with Ctrl-L or /model."
)


def is_demo_model(session: AgentSession) -> bool:
    """True when no real model is configured (none, or the offline demo)."""
    model = session.model
    return model is None or (model.get("provider") == DEMO_PROVIDER and model.get("id") == "demo")


def startup_header(session: AgentSession, cwd: Path, keymap: dict[str, str]) -> StartHeader:
    """Version, key hints (after keybindings.json overrides) and loaded resources."""
    hints = (
        f"{describe('app.interrupt', keymap)} interrupt · {describe('app.clear', keymap)} abort/clear (twice: exit) · "
        f"{describe('app.exit', keymap)} exit · / commands · ! bash · {describe('app.tools.expand', keymap)} more"
    )
    resources = loaded_resource_lines(session, cwd)
    return StartHeader(__version__, hints, resources)
