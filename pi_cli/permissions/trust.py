"""Project trust as pi 1.6.0: which project resources may load, and who decided.

A folder "needs trust" when it holds a protected resource (:data:`PROTECTED_PI_ENTRIES` under
``<cwd>/.pi``, ``.claude/agents`` in the cwd, or a project ``.agents/skills`` in the cwd or an
ancestor other than the user's own ``~/.agents/skills``). A bare ``.pi`` does not. The decision for a folder, in order:

1. ``--approve`` / ``--no-approve`` (:func:`set_trust_override`);
1b. for a folder with protected resources, the first yes/no of an extension's ``project_trust``
   handler (:func:`record_extension_decision`, see :mod:`pi_cli.extensions.project_trust`);
2. a folder without protected resources: its saved decision, else trusted (nothing to protect);
3. the saved decision in ``<agentDir>/trust.json`` for the folder or its closest parent;
4. the user-level ``defaultProjectTrust`` (``"always"`` trusts, ``"never"`` declines); with
   ``"ask"`` (the default) an interactive front end asks through ``choose``; without one
   (print, json, rpc) the folder is not trusted.

The decision is remembered per folder for the rest of the process (:func:`record_decision`), so
every part that gates on trust (settings, resources, extensions, MCP) sees the same answer.
AGENTS.md / CLAUDE.md are not protected: they load regardless (as pi).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pi_cli.config import paths
from pi_cli.permissions.trust_store import TrustStore, TrustStoreError, canonical_dir

DefaultTrust = Literal["ask", "always", "never"]
PROTECTED_PI_ENTRIES = (
    "settings.json",
    "mcp.json",
    "extensions",
    "skills",
    "prompts",
    "themes",
    "SYSTEM.md",
    "APPEND_SYSTEM.md",
    "agents",  # subagent definitions: prompts and tool lists a child session runs with
)
# Claude Code's project agents load as subagents too (pi_cli.resources.agents), so they need trust.
PROTECTED_OTHER_ENTRIES = (os.path.join(".claude", "agents"),)
# A chooser shows ``title`` with ``labels`` and returns the label picked, or None (cancelled).
Chooser = Callable[[str, list[str]], "str | None"]

_decisions: dict[str, bool] = {}
_override: list[bool | None] = [None]


@dataclass(frozen=True, slots=True)
class TrustOption:
    """One answer of the trust prompt: its label, the decision, and the trust.json updates."""

    label: str
    trusted: bool
    updates: list[tuple[str, bool | None]] = field(default_factory=list)


def has_protected_resources(cwd: str | os.PathLike[str], home: str | None = None) -> bool:
    """True when ``cwd`` holds a resource that loads only after trust (see the module doc)."""
    current = canonical_dir(cwd)
    pi_dir = os.path.join(current, paths.CONFIG_DIR_NAME)
    if any(os.path.lexists(os.path.join(pi_dir, entry)) for entry in PROTECTED_PI_ENTRIES):
        return True
    if any(os.path.lexists(os.path.join(current, entry)) for entry in PROTECTED_OTHER_ENTRIES):
        return True
    user_skills = os.path.join(canonical_dir(home or os.path.expanduser("~")), ".agents", "skills")
    while True:
        candidate = os.path.join(current, ".agents", "skills")
        if candidate != user_skills and os.path.exists(candidate):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent


def trust_prompt_title(cwd: str | os.PathLike[str]) -> str:
    """The start-up question (pi's wording of the facts: what trusting lets the folder do)."""
    return (
        f"Trust project folder?\n{canonical_dir(cwd)}\n\n"
        "This allows pi to load .pi settings and resources, install missing project packages, "
        "and execute project extensions."
    )


def trust_options(cwd: str | os.PathLike[str], *, session_only: bool = False) -> list[TrustOption]:
    """The prompt's answers, as pi offers them: trust (this folder or its parent), do not trust;
    ``session_only`` adds the two answers that save nothing (the start-up prompt has them)."""
    folder = canonical_dir(cwd)
    parent = os.path.dirname(folder)
    options = [TrustOption("Trust", True, [(folder, True)])]
    if parent != folder:
        options.append(TrustOption(f"Trust parent folder ({parent})", True, [(parent, True), (folder, None)]))
    if session_only:
        options.append(TrustOption("Trust (this session only)", True))
    options.append(TrustOption("Do not trust", False, [(folder, False)]))
    if session_only:
        options.append(TrustOption("Do not trust (this session only)", False))
    return options


def default_project_trust(agent_dir: str | os.PathLike[str] | None = None) -> DefaultTrust:
    """``defaultProjectTrust`` from the user-level settings only (a project cannot set it)."""
    settings_file = Path(agent_dir or paths.agent_dir()) / "settings.json"
    try:
        data = json.loads(settings_file.read_text(encoding="utf-8").removeprefix("\ufeff"))
    except (OSError, ValueError):
        return "ask"  # the settings loader reports unreadable files
    value = data.get("defaultProjectTrust") if isinstance(data, dict) else None
    return value if value in ("always", "never") else "ask"


def set_trust_override(value: bool | None) -> None:
    """``--approve`` (True) / ``--no-approve`` (False) for this process; None clears it."""
    _override[0] = value


def trust_override() -> bool | None:
    """The command-line override in force, if any."""
    return _override[0]


def record_decision(cwd: str | os.PathLike[str], trusted: bool) -> None:
    """Remember the decision for ``cwd`` for the rest of this process."""
    _decisions[canonical_dir(cwd)] = trusted


def forget_decisions() -> None:
    """Drop remembered decisions and the override (tests; a fresh process)."""
    _decisions.clear()
    _override[0] = None


def needs_decision(cwd: str | os.PathLike[str]) -> bool:
    """True when start-up must decide trust for ``cwd`` (no override, nothing decided in this
    process, protected resources present): the moment pi 1.6.0 emits ``project_trust``."""
    return _override[0] is None and canonical_dir(cwd) not in _decisions and has_protected_resources(cwd)


def record_extension_decision(
    cwd: str | os.PathLike[str],
    trusted: bool,
    remember: bool,
    *,
    agent_dir: str | os.PathLike[str] | None = None,
    warnings: list[str] | None = None,
) -> None:
    """An extension's ``project_trust`` answer: it holds for this process and, with ``remember``,
    is saved in trust.json (a failure to save is a line in ``warnings``)."""
    key = canonical_dir(cwd)
    if remember:
        try:
            TrustStore(Path(agent_dir or paths.agent_dir())).set_many([(key, trusted)])
        except TrustStoreError as exc:
            if warnings is not None:
                warnings.append(str(exc))
    _decisions[key] = trusted


def resolve_project_trust(
    cwd: str | os.PathLike[str],
    *,
    agent_dir: str | os.PathLike[str] | None = None,
    choose: Chooser | None = None,
    warnings: list[str] | None = None,
) -> bool:
    """Decide trust for ``cwd`` (module doc order), remember it, and return it.

    ``choose`` is the interactive prompt (None in print/json/rpc). An unreadable trust.json counts
    as "no saved decision" with a line in ``warnings``; a failure to save the answer likewise.
    """
    key = canonical_dir(cwd)
    if key in _decisions:
        return _decisions[key]
    agent = Path(agent_dir or paths.agent_dir())
    store = TrustStore(agent)
    saved: bool | None = None
    if _override[0] is None:
        try:
            saved = store.get(key)
        except TrustStoreError as exc:
            if warnings is not None:
                warnings.append(str(exc))
    decided = _decide(key, saved, agent, store, choose, warnings)
    _decisions[key] = decided
    return decided


def _decide(
    cwd: str, saved: bool | None, agent: Path, store: TrustStore, choose: Chooser | None, warnings: list[str] | None
) -> bool:
    if _override[0] is not None:
        return _override[0]
    if not has_protected_resources(cwd):
        return True if saved is None else saved
    if saved is not None:
        return saved
    default = default_project_trust(agent)
    if default != "ask":
        return default == "always"
    if choose is None:
        return False
    options = trust_options(cwd, session_only=True)
    picked = choose(trust_prompt_title(cwd), [option.label for option in options])
    option = next((o for o in options if o.label == picked), None)
    if option is None:
        return False
    if option.updates:
        try:
            store.set_many(option.updates)
        except TrustStoreError as exc:
            if warnings is not None:
                warnings.append(str(exc))
    return option.trusted


def untrusted_notice(cwd: str | os.PathLike[str]) -> list[str]:
    """The start-up line of an interactive session in an untrusted folder (none when there is
    nothing protected to ignore)."""
    if not has_protected_resources(cwd):
        return []
    return [
        "This project is not trusted. Project .pi resources and packages are ignored. "
        "Use /trust to save a trust decision, then restart pi."
    ]


def is_project_trusted(cwd: str | os.PathLike[str], *, agent_dir: str | os.PathLike[str] | None = None) -> bool:
    """Whether project resources of ``cwd`` may load in this process. Never prompts.

    The decision made at start-up (or by ``/trust`` with an immediate effect) when there is one;
    otherwise the same order without the prompt: override, saved decision, ``defaultProjectTrust``
    (``"ask"`` counts as not trusted). Call it before reading ``.pi/extensions`` or ``.pi/mcp.json``.
    """
    key = canonical_dir(cwd)
    if key in _decisions:
        return _decisions[key]
    agent = Path(agent_dir or paths.agent_dir())
    store = TrustStore(agent)
    try:
        saved = store.get(key) if _override[0] is None else None
    except TrustStoreError:
        saved = None
    # Not remembered: a start-up prompt that comes later must still be able to ask.
    return _decide(key, saved, agent, store, None, None)
