"""pi's virtual models (``pi.register_virtual_model``): a selectable model whose requests an
extension's router sends to physical models — chosen per request (reason, previous reply, router
state), the level clamped to the physical model, the reply recording the physical model and level,
a failing router an error reply; listed in the registry, gone again with
``unregister_virtual_model``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_cli.ai.providers.faux import faux_assistant, faux_text
from pi_cli.extensions import ExtensionAPI, ExtensionRunner
from pi_cli.models.registry import ModelRegistry


@pytest.fixture
def faux_models() -> list[str]:
    return ["small", "big"]


class Registry(ModelRegistry):
    """The real registry, over a models.json that does not exist, with the faux models added."""

    def __init__(self, tmp_path: Path, physical: list[dict[str, Any]]) -> None:
        super().__init__(models_json_path=tmp_path / "none.json")
        self.physical = physical

    def load(self) -> Registry:
        super().load()
        self._models = [*self.physical, *self._models]
        self._apply_virtual()
        return self

    def api_key_for(self, model: Any) -> str | None:
        return "faux-key" if model["provider"] == "faux" else None


def router_extension(seen: list[dict[str, Any]]) -> Any:
    def route(request: dict[str, Any], ctx: Any) -> dict[str, Any]:
        seen.append({k: request[k] for k in ("reason", "thinkingLevel", "state")} | {"previous": request["previous"]})
        if request["thinkingLevel"] == "minimal":
            raise RuntimeError("no model for that")
        sticky = request["previous"]
        if request["reason"] != "user" and sticky:
            return {"model": sticky["model"], "thinkingLevel": sticky["thinkingLevel"] or "medium"}
        name = "big" if request["thinkingLevel"] == "high" else "small"
        turns = (request["state"] or {}).get("turns", 0) + 1
        return {"model": ctx.model_registry.find("faux", name), "thinkingLevel": "high", "state": {"turns": turns}}

    def register(pi: Any) -> None:
        pi.register_virtual_model(
            {
                "provider": "router",
                "id": "auto",
                "name": "Auto",
                "thinkingLevels": ["minimal", "low", "high"],
                "route": route,
            }
        )

    return register


async def test_requests_are_routed_and_replies_name_the_physical_model(faux: Any, tmp_path: Path) -> None:
    from pi_cli.session.assembly import SessionParts, build_session

    seen: list[dict[str, Any]] = []
    runner = ExtensionRunner(str(tmp_path))
    router_extension(seen)(ExtensionAPI(runner, "router.py"))
    registry = Registry(tmp_path, faux.models)
    assert runner.apply_providers(registry) == []
    auto = registry.find("router", "auto")
    assert auto is not None and registry.is_available(auto) and auto in registry.available_models()
    session = build_session(
        cwd=tmp_path, parts=SessionParts(extensions=runner), registry=registry, system_prompt="t", model=auto,
        thinking_level="high",
    )  # fmt: skip
    faux.set_responses([faux_assistant([faux_text("one")]), faux_assistant([faux_text("two")])])
    await session.prompt("first")
    reply = session.messages[-1]
    # the router asked for "high"; the faux models do not reason, so it is clamped to theirs
    assert (reply["provider"], reply["model"], reply["thinkingLevel"]) == ("faux", "big", "off")
    assert faux.requests[-1].model["id"] == "big" and faux.requests[-1].options.api_key == "faux-key"
    await session.prompt("second")
    assert seen[0] == {"reason": "user", "thinkingLevel": "high", "state": None, "previous": None}
    assert seen[1]["state"] == {"turns": 1} and seen[1]["previous"]["model"]["id"] == "big"
    assert session.model["id"] == "auto"  # the selection stays the virtual model
    session.set_thinking_level("minimal")
    await session.prompt("third")
    failed = session.messages[-1]
    assert failed["stopReason"] == "error" and "Virtual model router/auto: no model for that" in failed["errorMessage"]
    ExtensionAPI(runner, "router.py").unregister_virtual_model("router", "auto")
    assert registry.find("router", "auto") is None


def test_a_bad_definition_is_refused_naming_it(tmp_path: Path) -> None:
    api = ExtensionAPI(ExtensionRunner(str(tmp_path)), "bad.py")
    with pytest.raises(ValueError, match="route must be callable"):
        api.register_virtual_model({"provider": "router", "id": "auto"})
    with pytest.raises(ValueError, match="unknown thinking level 'huge'"):
        api.register_virtual_model({"provider": "r", "id": "a", "thinking_levels": ["huge"], "route": print})
