"""The session's model and thinking level as ACP config options and modes.

* ``configOptions``: ``model`` (category ``model``, values ``provider/id``) and ``thinking``
  (category ``thought_level``, the levels the current model accepts).
* ``modes``: the thinking levels again, for clients that only show ACP's older mode selector.
Setting either goes through the AgentSession, so the change is recorded in the session file and
saved as the default exactly as in the TUI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_cli.ai.models import supported_thinking_levels

if TYPE_CHECKING:
    from pi_cli.ai.types import Model
    from pi_cli.session.agent_session import AgentSession

MODEL_OPTION = "model"
THINKING_OPTION = "thinking"

_LEVEL_NAMES = {
    "off": "Thinking off",
    "minimal": "Minimal thinking",
    "low": "Low thinking",
    "medium": "Medium thinking",
    "high": "High thinking",
    "xhigh": "Extra-high thinking",
    "max": "Maximum thinking",
}


def model_value(model: Model | None) -> str:
    return f"{model['provider']}/{model['id']}" if model else ""


def thinking_levels(session: AgentSession) -> list[str]:
    model = session.model
    return list(supported_thinking_levels(model)) if model else ["off"]


def config_options(session: AgentSession) -> list[dict[str, Any]]:
    """The ``configOptions`` array of ``session/new``, ``session/load`` and ``set_config_option``."""
    models = session.available_models()
    model = session.model
    current = model_value(model)
    model_options = [{"value": model_value(m), "name": str(m.get("name") or m["id"])} for m in models]
    if model and all(o["value"] != current for o in model_options):
        model_options.insert(0, {"value": current, "name": str(model.get("name") or current)})
    levels = thinking_levels(session)
    return [
        {
            "type": "select",
            "id": MODEL_OPTION,
            "name": "Model",
            "category": "model",
            "currentValue": current,
            "options": model_options,
        },
        {
            "type": "select",
            "id": THINKING_OPTION,
            "name": "Thinking",
            "category": "thought_level",
            "currentValue": session.thinking_level if session.thinking_level in levels else levels[0],
            "options": [{"value": level, "name": _LEVEL_NAMES.get(level, level)} for level in levels],
        },
    ]


def mode_state(session: AgentSession) -> dict[str, Any]:
    """``modes``: one mode per thinking level the model accepts."""
    levels = thinking_levels(session)
    return {
        "currentModeId": session.thinking_level if session.thinking_level in levels else levels[0],
        "availableModes": [{"id": level, "name": _LEVEL_NAMES.get(level, level)} for level in levels],
    }


def apply_option(session: AgentSession, option_id: str, value: str) -> None:
    """Set ``model`` (``provider/id``) or ``thinking``; raises ``ValueError`` naming what is wrong."""
    if option_id == MODEL_OPTION:
        for model in session.available_models():
            if model_value(model) == value:
                session.set_model(model)
                return
        raise ValueError(f"unknown model {value!r}")
    if option_id == THINKING_OPTION:
        if value not in thinking_levels(session):
            raise ValueError(f"thinking level {value!r} is not available for this model")
        session.set_thinking_level(value)
        return
    raise ValueError(f"unknown config option {option_id!r}")
