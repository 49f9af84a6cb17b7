"""Model and thinking-level changes for an AgentSession, and the credentials behind them.

Keys come from (in pi's order) ``--api-key`` for the chosen provider, then the model registry
(auth.json, env var, models.json). The faux provider needs none; local servers found at start-up
register a placeholder key here. Changes are recorded in the session file and, like pi, the chosen
model and thinking level become the saved defaults.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.ai.types import THINKING_LEVELS, Model

if TYPE_CHECKING:
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


class ModelHost(Protocol):
    """What model control needs of its session: the agent's state (model, thinking level), the
    registry, the session file, settings and event delivery."""

    @property
    def agent(self) -> Any: ...

    @property
    def model_registry(self) -> Any: ...

    @property
    def settings(self) -> Any: ...

    @property
    def store(self) -> SessionStoreBridge: ...

    @property
    def model(self) -> Model | None: ...

    @property
    def thinking_level(self) -> str: ...

    def save_setting(self, key: str, value: Any) -> None: ...

    def emit_nowait(self, event: dict[str, Any]) -> None: ...


class ModelControl:
    """Owned by an AgentSession; see the module docstring."""

    def __init__(self, session: ModelHost, scoped: list[tuple[Model, str | None]]) -> None:
        self._session = session
        self.scoped = scoped
        self.extra_keys: dict[str, str] = {}
        self.extra_models: list[Model] = []

    # -- credentials ---------------------------------------------------------------------------

    def api_key_for_provider(self, provider: str) -> str | None:
        """The key for ``provider``: a ``--api-key``/probe key first, then the registry's."""
        if provider in self.extra_keys:
            return self.extra_keys[provider]
        registry = self._session.model_registry
        if registry is None:
            return None
        key: str | None = registry.api_key_for_provider(provider)
        return key

    def has_credentials(self, model: Model) -> bool:
        if model["provider"] in KEYLESS_PROVIDERS or model["provider"] in self.extra_keys:
            return True
        registry = self._session.model_registry
        return registry is not None and bool(registry.is_available(model))

    def env_var_for(self, provider: str) -> str | None:
        registry = self._session.model_registry
        if registry is None:
            return None
        name: str | None = registry.env_var_for(provider)
        return name

    def available_models(self) -> list[Model]:
        """Models with credentials (registry's available ones, plus local/demo extras)."""
        models: list[Model] = []
        registry = self._session.model_registry
        if registry is not None:
            models.extend(registry.available_models())
        seen = {(m["provider"], m["id"]) for m in models}
        for extra in self.extra_models:
            if (extra["provider"], extra["id"]) not in seen:
                models.append(extra)
        current = self._session.model
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
        re-clamp the thinking level (``thinking_level`` or the current one) to what the model supports."""
        session = self._session
        wanted = thinking_level or self._level_for_switch()
        session.agent.state.model = model
        session.store.append_model_change(model["provider"], model["id"])
        if persist:
            session.save_setting("defaultProvider", model["provider"])
            session.save_setting("defaultModel", model["id"])
        self.set_thinking_level(wanted, persist=False)

    def _level_for_switch(self) -> str:
        """pi's level for a model switch: the current one, unless the model being left has no
        reasoning (its level is only a forced ``off``), then ``defaultThinkingLevel`` or ``medium``."""
        session = self._session
        current = session.model
        if current is not None and current.get("reasoning"):
            return session.thinking_level
        settings = getattr(session, "settings", None)
        default = getattr(settings, "default_thinking_level", None)
        return str(default) if default else "medium"

    def cycle_model(self, direction: str = "forward") -> dict[str, Any] | None:
        """Next scoped model (or next available one); None when there is nothing to cycle to."""
        session = self._session
        is_scoped = len(self.scoped) > 0
        candidates: list[tuple[Model, str | None]] = (
            list(self.scoped) if is_scoped else [(m, None) for m in self.available_models()]
        )
        if len(candidates) <= 1:
            return None
        current = session.model
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
        self.set_model(model, level)
        return {"model": model, "thinkingLevel": session.thinking_level, "isScoped": is_scoped}

    def set_thinking_level(self, level: str, persist: bool = True) -> str:
        """Set ``level`` clamped to the model; returns the level applied. A change is recorded and emits
        ``thinking_level_changed``; it is saved as the default only for reasoning models."""
        session = self._session
        clamped = clamp_level(session.model, level)
        changed = clamped != session.thinking_level
        session.agent.state.thinking_level = clamped
        if changed:
            session.store.append_thinking_level_change(clamped)
            session.emit_nowait({"type": "thinking_level_changed", "level": clamped})
        model = session.model
        if persist and model is not None and model.get("reasoning"):
            session.save_setting("defaultThinkingLevel", clamped)
        return clamped

    def cycle_thinking_level(self) -> str | None:
        """Next level the model supports (wrapping); None for a model without reasoning."""
        model = self._session.model
        if model is None or not model.get("reasoning"):
            return None
        levels = _levels(model)
        current = self._session.thinking_level
        index = levels.index(current) if current in levels else -1
        return self.set_thinking_level(levels[(index + 1) % len(levels)])
