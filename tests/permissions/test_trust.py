"""Project trust: trust.json (pi's format, closest parent wins), protected resources, the
decision order, and settings gating."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pi_cli.config.settings import load_settings
from pi_cli.permissions import trust
from pi_cli.permissions.trust_store import TrustStore, TrustStoreError


@pytest.fixture(autouse=True)
def _fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    trust.forget_decisions()
    yield
    trust.forget_decisions()


def project(tmp_path: Path, *entries: str) -> Path:
    root = tmp_path / "proj"
    (root / ".pi").mkdir(parents=True, exist_ok=True)
    for entry in entries:
        target = root / entry
        target.parent.mkdir(parents=True, exist_ok=True)
        if entry.endswith((".json", ".md")):
            target.write_text("{}" if entry.endswith(".json") else "x")
        else:
            target.mkdir(exist_ok=True)
    return root


def test_store_closest_parent_wins_and_file_matches_pi(tmp_path: Path) -> None:
    store = TrustStore(tmp_path / "agent")
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    assert store.get(deep) is None
    store.set(tmp_path / "a", True)
    store.set(tmp_path / "a" / "b", False)
    assert store.get(deep) is False
    entry = store.entry(deep)
    assert entry is not None and entry.path == str((tmp_path / "a" / "b").resolve())
    assert store.get(tmp_path / "a") is True
    store.set(tmp_path / "a" / "b", None)
    assert store.get(deep) is True
    text = (tmp_path / "agent" / "trust.json").read_text()
    assert json.loads(text) == {str((tmp_path / "a").resolve()): True}
    assert text.endswith("}\n") and not (tmp_path / "agent" / "trust.json.lock").exists()


def test_store_resolves_symlinks_and_reports_bad_files(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    store = TrustStore(tmp_path / "agent")
    store.set(tmp_path / "link", True)
    assert store.get(real) is True
    store.path.write_text('{"/x": "yes"}')
    with pytest.raises(TrustStoreError, match=r"trust.json: value for \"/x\" must be true, false, or null"):
        store.get(real)
    store.path.write_text("{oops")
    with pytest.raises(TrustStoreError, match="line 1, column 2"):
        store.get(real)


def test_store_takes_over_a_stale_lock(tmp_path: Path) -> None:
    store = TrustStore(tmp_path / "agent")
    lock = store.path.with_name("trust.json.lock")
    lock.mkdir(parents=True)
    os.utime(lock, (1, 1))
    store.set(tmp_path, True)
    assert store.get(tmp_path) is True


@pytest.mark.parametrize(
    "entry", ["settings.json", "mcp.json", "extensions", "skills", "prompts", "themes", "SYSTEM.md", "APPEND_SYSTEM.md"]
)
def test_each_protected_pi_entry_needs_trust(tmp_path: Path, entry: str) -> None:
    assert trust.has_protected_resources(project(tmp_path, f".pi/{entry}"))


def test_bare_pi_dir_and_context_files_need_no_trust_but_agents_skills_do(tmp_path: Path) -> None:
    root = project(tmp_path, "AGENTS.md", "CLAUDE.md")
    assert not trust.has_protected_resources(root)
    sub = root / "pkg"
    sub.mkdir()
    (root / ".agents" / "skills").mkdir(parents=True)
    assert trust.has_protected_resources(sub)  # an ancestor's .agents/skills counts
    home = tmp_path / "home"
    (home / ".agents" / "skills").mkdir(parents=True)
    assert not trust.has_protected_resources(home, home=str(home))  # the user's own does not


def test_decision_order(tmp_path: Path) -> None:
    root = project(tmp_path, ".pi/settings.json")
    agent = tmp_path / "agent"
    agent.mkdir(exist_ok=True)
    asked: list[list[str]] = []

    def choose(title: str, labels: list[str]) -> str | None:
        asked.append(labels)
        assert title.startswith("Trust project folder?\n" + str(root.resolve()))
        return "Trust (this session only)"

    # default "ask" without a UI: not trusted, and nothing remembered, so a later prompt can still ask
    assert trust.is_project_trusted(root) is False
    assert trust.resolve_project_trust(root, choose=choose) is True
    assert asked and asked[0][0] == "Trust" and "Do not trust" in asked[0]
    assert trust.is_project_trusted(root) is True  # remembered for the process
    assert not TrustStore(agent).path.exists()  # session-only saved nothing

    trust.forget_decisions()
    assert trust.resolve_project_trust(root, choose=lambda t, labels: "Do not trust") is False
    assert TrustStore(agent).get(root) is False  # saved
    trust.forget_decisions()
    assert trust.resolve_project_trust(root, choose=lambda t, labels: pytest.fail("asked")) is False

    trust.forget_decisions()
    trust.set_trust_override(True)  # --approve beats the saved "no"
    assert trust.resolve_project_trust(root) is True
    trust.forget_decisions()
    trust.set_trust_override(False)  # --no-approve
    TrustStore(agent).set(root, True)
    assert trust.resolve_project_trust(root) is False


@pytest.mark.parametrize(("default", "expected"), [("always", True), ("never", False), ("ask", False)])
def test_default_project_trust_without_a_prompt(tmp_path: Path, default: str, expected: bool) -> None:
    root = project(tmp_path, ".pi/extensions")
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({"defaultProjectTrust": default}))
    # A project cannot set its own default.
    (root / ".pi" / "settings.json").write_text(json.dumps({"defaultProjectTrust": "always"}))
    assert trust.resolve_project_trust(root, choose=None) is expected


def test_folder_without_protected_resources_is_trusted_unless_saved_false(tmp_path: Path) -> None:
    root = project(tmp_path)
    assert trust.is_project_trusted(root) is True
    TrustStore(tmp_path / "agent").set(root, False)
    assert trust.is_project_trusted(root) is False


def test_trust_parent_option_saves_parent_and_clears_child(tmp_path: Path) -> None:
    root = project(tmp_path, ".pi/settings.json")
    store = TrustStore(tmp_path / "agent")
    store.set(root, False)
    trust.forget_decisions()
    options = trust.trust_options(root)
    parent = next(o for o in options if o.label.startswith("Trust parent folder"))
    store.set_many(parent.updates)
    assert json.loads(store.path.read_text()) == {str(root.resolve().parent): True}


def test_untrusted_project_settings_are_ignored_except_session_dir(tmp_path: Path) -> None:
    root = project(tmp_path)
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text(json.dumps({"theme": "light", "defaultProjectTrust": "never"}))
    (root / ".pi" / "settings.json").write_text(
        json.dumps({"theme": "evil", "sessionDir": "sess", "defaultProjectTrust": "always", "quietStartup": 3})
    )
    settings, errors = load_settings(root, agent, project_trusted=False)
    assert settings.theme == "light" and settings.session_dir == "sess" and errors == []
    assert settings.default_project_trust == "never"
    settings, errors = load_settings(root, agent, project_trusted=True)
    assert settings.theme == "evil" and settings.default_project_trust == "never"
    assert any("quietStartup" in line for line in errors)
