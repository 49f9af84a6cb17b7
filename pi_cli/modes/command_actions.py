"""What the slash commands of both terminal front ends do, apart from how they ask and show.

The TUI and inline mode each ask (a picker, a numbered list) and show (a notice, scrollback) in
their own way; the work and the words are here, once: session info, export (HTML or ``.jsonl``),
the sandbox and approval modes, the ``/settings`` rows and what choosing one changes (saved to the
user's settings.json, as pi's ``/settings`` does).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession

NO_STORAGE = "/{name} needs a saved session (this one is in memory only)."
BUSY = "Wait for the agent to finish (Esc aborts) before using /{name}."
TRUST_DEFAULT_LABELS = {"ask": "Ask", "always": "Always trust", "never": "Never trust"}  # pi's labels
_FLIP = {"all": "one-at-a-time", "one-at-a-time": "all"}


def session_info(session: AgentSession) -> list[tuple[str, list[tuple[str, str]]]]:
    """pi's ``/session``: (heading, [(label, value)]) sections."""
    stats = session.get_session_stats()
    tokens = stats.get("tokens", {})
    info = [("File", str(stats.get("sessionFile") or "In-memory")), ("ID", str(stats.get("sessionId")))]
    if session.session_name:
        info.insert(0, ("Name", session.session_name))
    messages = [
        (label, str(stats.get(key, 0)))
        for label, key in (("User", "userMessages"), ("Assistant", "assistantMessages"), ("Tool Calls", "toolCalls"),
                           ("Tool Results", "toolResults"), ("Total", "totalMessages"))
    ]  # fmt: skip
    counts = [("Input", f"{int(tokens.get('input', 0)):,}"), ("Output", f"{int(tokens.get('output', 0)):,}")]
    for label, key in (("Cache Read", "cacheRead"), ("Cache Write", "cacheWrite")):
        if tokens.get(key):
            counts.append((label, f"{int(tokens[key]):,}"))
    counts.append(("Total", f"{int(tokens.get('total', 0)):,}"))
    sections = [("Session Info", info), ("Messages", messages), ("Tokens", counts)]
    cost = float(stats.get("cost", 0.0) or 0.0)
    if cost > 0:
        sections.append(("Cost", [("Total", f"{cost:.4f}")]))
    return sections


def session_info_text(session: AgentSession) -> str:
    """:func:`session_info` as plain lines (inline's scrollback)."""
    out: list[str] = []
    for heading, facts in session_info(session):
        out += [*([""] if out else []), heading, *(f"  {label}: {value}" for label, value in facts)]
    return "\n".join(out)


async def export_session(session: AgentSession, target: str) -> str:
    """``/export [path]``: HTML by default; a ``.jsonl`` path writes the active branch as a
    standalone session file. Returns the path written; raises with a one-line message."""
    target = target.strip()
    if target.endswith(".jsonl"):
        manager = session.store.manager
        if manager is None:
            raise ValueError(NO_STORAGE.format(name="export"))
        return str(manager.export_branch_jsonl(target))
    return await session.export_html(target or None)


def sandbox_status(session: AgentSession) -> str:
    """The sandbox line of ``/sandbox`` and the footer (``off`` or ``workspace, network off``)."""
    sandbox = session.sandbox
    return "not available" if sandbox is None else sandbox.describe()


def set_sandbox_mode(session: AgentSession, mode: str) -> str:
    """Change the sandbox for this session; returns the notice. Raises ``ValueError`` for a mode
    that does not exist and the sandbox's one-line error where it cannot be had."""
    from pi_cli.sandbox.policy import MODE_DETAILS, MODES

    sandbox = session.sandbox
    if sandbox is None:
        raise ValueError("The sandbox is not available in this session.")
    chosen = next((m for m in MODES if m == mode), None)
    if chosen is None:
        raise ValueError(f"Unknown sandbox mode: {mode} (use {', '.join(MODES)})")
    sandbox.set_mode(chosen)
    return f"Sandbox: {sandbox.describe()} — {MODE_DETAILS[chosen]}"


def permission_mode_text(mode: str) -> str:
    from pi_cli.permissions.policy import MODE_DETAILS

    return f"Permissions: {mode} — {MODE_DETAILS[mode]}"


def set_permission_mode(session: AgentSession, mode: str, *, save: bool = False) -> str:
    """The approval mode for this session (``save``: also the user's default); returns the notice."""
    from pi_cli.permissions.policy import MODE_DETAILS, parse_mode

    gate = session.permissions
    if gate is None:
        raise ValueError("Permissions are not available in this session.")
    if mode not in MODE_DETAILS:
        raise ValueError(f"Unknown permissions mode: {mode} (use auto, ask or read-only)")
    gate.mode = parse_mode(mode)
    if save:
        session.save_setting("permissions.mode", mode)
    return permission_mode_text(mode)


@dataclass(frozen=True, slots=True)
class SettingRow:
    key: str
    label: str
    value: str


def settings_rows(session: AgentSession, theme: str | None = None) -> list[SettingRow]:
    """The ``/settings`` rows with their current values (``theme``: the chosen theme's setting
    value, by default the session's)."""
    theme = theme if theme is not None else session.themes.selected
    from pi_cli.permissions.trust import default_project_trust

    rows = [
        SettingRow("steering", "Steering mode", session.steering_mode),
        SettingRow("followup", "Follow-up mode", session.follow_up_mode),
        SettingRow("compaction", "Auto-compaction", "on" if session.auto_compaction_enabled else "off"),
        SettingRow("retry", "Auto-retry", "on" if session.auto_retry_enabled else "off"),
        SettingRow("theme", "Theme", theme),
    ]
    if session.permissions is not None:
        rows.append(SettingRow("permissions", "Tool approval mode", str(session.permissions.mode)))
    if session.sandbox is not None:
        rows.append(SettingRow("sandbox", "Sandbox (this session)", session.sandbox.policy.mode))
    rows.append(SettingRow("trust-default", "Default project trust", TRUST_DEFAULT_LABELS[default_project_trust()]))
    return rows


def choose_theme(session: AgentSession, name: str) -> str:
    """Make ``name`` (a theme name, ``system`` or a ``light/dark`` pair) the session's theme and
    save it as settings ``theme``; returns the notice. The front end redraws with
    ``session.themes.active(...)``. Raises ValueError for a name no theme has."""
    catalog = session.themes
    problem = catalog.problem(name)
    if problem is not None:
        raise ValueError(problem)
    catalog.selected = name
    session.save_setting("theme", name)
    return f"Theme: {name} (saved)"


def toggle_setting(session: AgentSession, key: str) -> str:
    """Move the ``/settings`` row ``key`` to its next value, save it to the user's settings (the
    sandbox row is for this session only) and return the notice. ``theme`` is the front end's."""
    from pi_cli.config.settings import save_global_setting
    from pi_cli.permissions.policy import MODES as PERMISSION_MODES
    from pi_cli.permissions.trust import default_project_trust

    if key == "steering":
        session.set_steering_mode(_FLIP.get(session.steering_mode, "all"))
        return f"Steering mode: {session.steering_mode}"
    if key == "followup":
        session.set_follow_up_mode(_FLIP.get(session.follow_up_mode, "all"))
        return f"Follow-up mode: {session.follow_up_mode}"
    if key == "compaction":
        session.set_auto_compaction_enabled(not session.auto_compaction_enabled)
        return f"Auto-compaction: {'on' if session.auto_compaction_enabled else 'off'}"
    if key == "retry":
        session.set_auto_retry_enabled(not session.auto_retry_enabled)
        return f"Auto-retry: {'on' if session.auto_retry_enabled else 'off'}"
    if key == "permissions" and session.permissions is not None:
        mode = session.permissions.mode
        nxt = PERMISSION_MODES[(PERMISSION_MODES.index(mode) + 1) % len(PERMISSION_MODES)]
        return set_permission_mode(session, nxt, save=True)
    if key == "sandbox" and session.sandbox is not None:
        from pi_cli.sandbox.policy import MODES as SANDBOX_MODES

        current = session.sandbox.policy.mode
        return set_sandbox_mode(session, SANDBOX_MODES[(SANDBOX_MODES.index(current) + 1) % len(SANDBOX_MODES)])
    if key == "trust-default":
        order = list(TRUST_DEFAULT_LABELS)
        value = order[(order.index(default_project_trust()) + 1) % len(order)]
        save_global_setting("defaultProjectTrust", value)
        return f"Default project trust: {TRUST_DEFAULT_LABELS[value]} (applies from the next start)"
    raise ValueError(f"Unknown setting: {key}")


RELOAD_BUSY = "Wait for the current response to finish before reloading."


async def reload_session(session: AgentSession) -> tuple[str, list[str]]:
    """``/reload`` in a terminal front end: (the status line, problem lines). Refuses while the
    agent runs (pi's words); a failure is the status line ``Reload failed: …``."""
    if session.is_streaming:
        return RELOAD_BUSY, []
    try:
        problems = await session.reload()
    except Exception as exc:  # a broken extension folder must not end the app
        return f"Reload failed: {exc}", []
    return "Reloaded keybindings, extensions, skills, prompts and context files", problems
