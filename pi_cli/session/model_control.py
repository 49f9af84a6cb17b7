"""Model and thinking-level changes for an AgentSession, and the credentials behind them.

Keys come from (in pi's order) ``--api-key`` for the chosen provider, then the model registry
(auth.json, env var, models.json). The faux provider needs none; local servers found at start-up
register a placeholder key here. Changes are recorded in the session file and, like pi, the chosen
model and thinking level become the saved defaults.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from pi_cli.ai.types import THINKING_LEVELS, Model, ThinkingLevel

if TYPE_CHECKING:
    from pi_cli.agent.agent import Agent
    from pi_cli.config.settings import Settings
    from pi_cli.models.registry import ModelRegistry
    from pi_cli.session.store_bridge import SessionStoreBridge

KEYLESS_PROVIDERS = frozenset(("faux",))


def _levels(model: Model) -> list[str]:
    try:
        from pi_cli.ai.models import supported_thinking_levels

        return list(supported_thinking_levels(model))
    except ImportError:  # pragma: no cover - config layer always present in a full install
        return list(THINKING_LEVELS) if model.get("reasoning") else ["off"]


def clamp_level(model: Model | None, level: str) -> str:
    """The level ``model`` accepts nearest to ``level`` (non-reasoning models: ``off``)."""
    if model is None:
        return level
    from pi_cli.ai.models import clamp_thinking_level

    return str(clamp_thinking_level(model, level))


@dataclass(eq=False)
class ModelControl:
    """The model and thinking level of one session's ``agent``, with the credentials behind
    them: keys from ``registry`` (plus probe/``--api-key`` extras), changes recorded in ``store``,
    saved as defaults through ``save_setting``, announced through ``emit_nowait``."""

    agent: Agent
    registry: ModelRegistry | None
    store: SessionStoreBridge
    settings: Settings | None
    save_setting: Callable[[str, Any], None]
    emit_nowait: Callable[[dict[str, Any]], None]
    scoped: list[tuple[Model, str | None]]
    extra_keys: dict[str, str] = field(default_factory=dict, init=False)  # ``--api-key`` and probes
    extra_models: list[Model] = field(default_factory=list, init=False)  # local servers found at start-up
    # defaultThinkingLevel as saved during this session: pi's settings manager reads back what it
    # wrote, while ``settings`` is the start-up snapshot.
    _saved_default_level: str | None = field(default=None, init=False)

    @property
    def model(self) -> Model | None:
        model: Model | None = self.agent.state.model
        return model

    @property
    def thinking_level(self) -> str:
        return str(self.agent.state.thinking_level or "off")

    # -- credentials ---------------------------------------------------------------------------

    def api_key_for_provider(self, provider: str) -> str | None:
        """The key for ``provider``: a ``--api-key``/probe key first, then the registry's."""
        if provider in self.extra_keys:
            return self.extra_keys[provider]
        registry = self.registry
        if registry is None:
            return None
        key: str | None = registry.api_key_for_provider(provider)
        return key

    def has_credentials(self, model: Model) -> bool:
        if model["provider"] in KEYLESS_PROVIDERS or model["provider"] in self.extra_keys:
            return True
        registry = self.registry
        return registry is not None and bool(registry.is_available(model))

    def env_var_for(self, provider: str) -> str | None:
        registry = self.registry
        if registry is None:
            return None
        name: str | None = registry.env_var_for(provider)
        return name

    def available_models(self) -> list[Model]:
        """Models with credentials (registry's available ones, plus local/demo extras)."""
        models: list[Model] = []
        registry = self.registry
        if registry is not None:
            models.extend(registry.available_models())
        seen = {(m["provider"], m["id"]) for m in models}
        for extra in self.extra_models:
            if (extra["provider"], extra["id"]) not in seen:
                models.append(extra)
        current = self.model
        listed = {(m["provider"], m["id"]) for m in models}
        if current is not None and (current["provider"], current["id"]) not in listed and self.has_credentials(current):
            models.append(current)
        return models

    def find_available(self, provider: str, model_id: str) -> Model | None:
        for model in self.available_models():
            if model["provider"] == provider and model["id"] == model_id:
                return model
        return None

    # -- changes -------------------------------------------------------------------------------

    def set_model(self, model: Model, thinking_level: str | None = None, persist: bool = True) -> None:
        """Switch model, record it in the session file, save it as the default when ``persist``, and
        re-clamp the thinking level (``thinking_level`` or the switch's, see :meth:`_level_for_switch`)
        to what the model supports."""
        wanted = thinking_level or self._level_for_switch(model)
        self.agent.state.model = model
        self.store.append_model_change(model["provider"], model["id"])
        if persist:
            self.save_setting("defaultProvider", model["provider"])
            self.save_setting("defaultModel", model["id"])
        self.set_thinking_level(wanted, persist=False)

    def _level_for_switch(self, model: Model) -> str:
        """pi 1.6's level for a model switch without an explicit one: the new model's entry in
        ``modelThinkingLevels``, else ``defaultThinkingLevel`` when the settings have one, else the
        current level (``medium`` only when there is none).

        So a session at ``off`` on a model without reasoning stays ``off`` on a reasoning model,
        with no ``thinking_level_changed`` (pi 1.6.0 measured; pi 0.73 took ``medium`` here).
        The result is clamped to the new model by :meth:`set_thinking_level`.
        """
        per_model = (self.settings.model_thinking_levels or {}) if self.settings is not None else {}
        if wanted := per_model.get(f"{model['provider']}/{model['id']}"):
            return str(wanted)
        default = self._saved_default_level or (
            self.settings.default_thinking_level if self.settings is not None else None
        )
        if default:
            return str(default)
        return str(self.agent.state.thinking_level or "medium")

    def cycle_model(self, direction: str = "forward", persist: bool = True) -> dict[str, Any] | None:
        """Next scoped model (or next available one); None when there is nothing to cycle to.
        ``persist`` as for :meth:`set_model`."""
        is_scoped = len(self.scoped) > 0
        candidates: list[tuple[Model, str | None]] = (
            list(self.scoped) if is_scoped else [(m, None) for m in self.available_models()]
        )
        if len(candidates) <= 1:
            return None
        current = self.model
        index = next(
            (
                i
                for i, (m, _) in enumerate(candidates)
                if current is not None and m["provider"] == current["provider"] and m["id"] == current["id"]
            ),
            -1,
        )
        step = -1 if direction == "backward" else 1
        model, level = candidates[(index + step) % len(candidates)]
        self.set_model(model, level, persist=persist)
        return {"model": model, "thinkingLevel": self.thinking_level, "isScoped": is_scoped}

    def set_thinking_level(self, level: str, persist: bool = True) -> str:
        """Set ``level`` clamped to the model; returns the level applied. A change is recorded and emits
        ``thinking_level_changed``; it is saved as the default only for reasoning models."""
        clamped = clamp_level(self.model, level)
        changed = clamped != self.thinking_level
        self.agent.state.thinking_level = cast(ThinkingLevel, clamped)
        if changed:
            self.store.append_thinking_level_change(clamped)
            self.emit_nowait({"type": "thinking_level_changed", "level": clamped})
        model = self.model
        if persist and model is not None and model.get("reasoning"):
            self.save_setting("defaultThinkingLevel", clamped)
            self._saved_default_level = clamped
        return clamped

    def cycle_thinking_level(self, persist: bool = True) -> str | None:
        """Next level the model supports (wrapping); None for a model without reasoning. ``persist``
        as for :meth:`set_thinking_level`."""
        model = self.model
        if model is None or not model.get("reasoning"):
            return None
        levels = _levels(model)
        current = self.thinking_level
        index = levels.index(current) if current in levels else -1
        return self.set_thinking_level(levels[(index + 1) % len(levels)], persist=persist)
