"""What the transcript shows first: the start header and the no-model notice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_cli import __version__
from pi_cli.modes.display import home_relative
from pi_cli.modes.interactive.keys import describe
from pi_cli.modes.interactive.widgets.status import StartHeader

DEMO_PROVIDER = "faux"

NO_MODEL_TEXT = (
    "No model configured — the offline demo model is active. It answers plainly and can run "
    "ls/read/bash to show the tools, but it is not an LLM.\n"
    "To use a real model: export an API key (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, …), "
    "put one in ~/.pi/agent/auth.json, or add a provider to ~/.pi/agent/models.json; "
    "then restart pi or pick it with Ctrl-L or /model."
)


def is_demo_model(session: Any) -> bool:
    """True when no real model is configured (none, or the offline demo)."""
    model = getattr(session, "model", None)
    return model is None or (model.get("provider") == DEMO_PROVIDER and model.get("id") == "demo")


def startup_header(session: Any, cwd: Path, keymap: dict[str, str]) -> StartHeader:
    """Version, key hints (after keybindings.json overrides) and loaded resources."""
    hints = (
        f"{describe('app.interrupt', keymap)} interrupt · {describe('app.clear', keymap)} abort/clear (twice: exit) · "
        f"{describe('app.exit', keymap)} exit · / commands · ! bash · {describe('app.tools.expand', keymap)} more"
    )
    resources: list[str] = []
    loaded = getattr(session, "resources", None)
    files = [str(getattr(f, "path", f)) for f in getattr(loaded, "context_files", []) or []]
    if files:
        resources.append("Context: " + ", ".join(_short_path(p, cwd) for p in files))
    skills = [str(getattr(s, "name", s)) for s in getattr(loaded, "skills", []) or []]
    if skills:
        resources.append("Skills: " + ", ".join(skills))
    templates = [str(getattr(t, "name", t)) for t in getattr(loaded, "templates", []) or []]
    if templates:
        resources.append("Prompts: " + ", ".join("/" + t for t in templates))
    sources = list(getattr(getattr(session, "extensions", None), "sources", None) or [])
    if sources:  # as pi lists them: where each loaded extension came from
        resources.append("Extensions: " + ", ".join(_short_path(s, cwd) if "/" in s else s for s in sources))
    return StartHeader(__version__, hints, resources)


def _short_path(path: str, cwd: Path) -> str:
    try:
        return str(Path(path).relative_to(cwd))
    except ValueError:
        return home_relative(path)
