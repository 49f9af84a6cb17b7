"""The approval gate: decides each tool call before it runs and asks the user when it must.

:class:`PermissionGate` holds the session's approval mode and rules. ``await gate.check(tool,
args, signal)`` returns None (run it) or the text of the refused call's result, which the model
reads. Asking goes through an :class:`ApprovalUI` (the extension ``ctx.ui`` of the front end:
TUI dialog, inline prompt, RPC ``extension_ui_request`` ``select``); without one (print, json) a
call that would ask is refused with a result saying why and how to allow it.

The prompt's answers: allow once; allow always (saves the suggested patterns — one per part of a
compound command and one per file it writes, see :mod:`pi_cli.permissions.suggest` — to the
``allow`` list: the project's ``.pi/settings.json`` when the folder is trusted, else the user
settings, and applies them at once; not offered when no patterns can cover the call); deny; deny
with a message the model receives. An abort (Ctrl-C) while the prompt waits closes it and refuses
the call.

A subagent's calls are decided by its parent's gate (one mode, one rule set, one dialog); the
question's first line names the child (``[scout] Allow bash?``), and a child working in another
folder has its paths judged from there (:func:`_from_child_cwd`).

With a sandbox (``sandbox``, the session's), ask mode lets a bash call that runs sandboxed through
unasked (settings ``sandbox.autoAllowBashIfSandboxed``, default on); running a blocked call again
outside the sandbox is always asked (:meth:`PermissionGate.approve_outside`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pi_cli.agent.tool_exec import current_agent
from pi_cli.agent.types import BeforeToolCallContext
from pi_cli.ai.abort import AbortSignal
from pi_cli.config import paths
from pi_cli.config.settings import SettingsError, save_setting
from pi_cli.permissions.policy import MODES, Decision, Mode, RuleSet, decide
from pi_cli.permissions.rules import PATH_TOOLS, parse_rule
from pi_cli.permissions.trust_store import TrustStore, TrustStoreError
from pi_cli.sandbox.protocol import SandboxStatus

ALLOW_ONCE = "Allow once"
DENY = "Deny"
DENY_WITH_MESSAGE = "Deny with a message to the model"
DENIED = "Permission denied"
RUN_OUTSIDE = "Run it once outside the sandbox"
KEEP_SANDBOXED = "Keep it sandboxed"


def allow_always_label(pattern: str) -> str:
    return f"Allow always ({pattern})"


class ApprovalUI(Protocol):
    """The two dialogs the gate needs (the shape of the extension ``ctx.ui``)."""

    async def select(self, title: str, options: list[str]) -> str | None: ...

    async def input(self, title: str, placeholder: str | None = None) -> str | None: ...


@dataclass(slots=True)
class PermissionGate:
    """Approval state of one session. ``cwd`` is absolute; ``agent_dir`` holds the user settings."""

    cwd: str
    mode: Mode = "auto"
    rules: RuleSet = field(default_factory=RuleSet)
    project_trusted: bool = False
    agent_dir: str | None = None
    notices: list[str] = field(default_factory=list)  # saved rules, save failures (for the UI)
    ui: ApprovalUI | None = None  # set by an interactive front end; None refuses calls that ask
    sandbox: SandboxStatus | None = None  # the session's sandbox, when there is one

    def cycle_mode(self) -> Mode:
        """Switch to the next mode (auto → ask → read-only → auto) and return it."""
        self.mode = MODES[(MODES.index(self.mode) + 1) % len(MODES)]
        return self.mode

    def decide(self, tool: str, args: dict[str, Any]) -> Decision:
        sandbox = self.sandbox
        sandboxed = sandbox is not None and sandbox.auto_allow_bash and sandbox.runs_confined(tool)
        return decide(tool, args, self.mode, self.rules, self.cwd, sandboxed=sandboxed)

    async def tool_call(self, context: BeforeToolCallContext, signal: AbortSignal | None = None) -> Any:
        """Interceptor in the agent's ``tool_call`` chain, after extensions' handlers: it decides
        on the arguments as they will run (a handler may have changed them) and never sees a call
        a handler blocked."""
        refused = await self.check(context.tool_call["name"], context.args, self.ui, signal)
        return None if refused is None else {"block": True, "reason": refused}

    async def check(
        self, tool: str, args: dict[str, Any], ui: ApprovalUI | None, signal: AbortSignal | None = None
    ) -> str | None:
        """None when the call may run; otherwise the refused call's result text."""
        args = _from_child_cwd(tool, args, self.cwd)
        decision = self.decide(tool, args)
        if decision.action == "allow":
            return None
        if decision.action == "deny":
            return f"{DENIED}: {decision.reason}."
        if ui is None:
            from pi_cli.permissions.suggest import suggest_rules  # with the shell reader: on first use

            patterns = suggest_rules(tool, args, self.cwd, self.rules)
            if not patterns:
                fix = "No allow rule can cover this call; run with --permissions auto to allow it."
            else:
                kind = "rule" if len(patterns) == 1 else "rules"
                listed = ", ".join(f'"{p}"' for p in patterns)
                fix = f'Allow it with the allow {kind} {listed} in settings "permissions", '
                fix += "or run with --permissions auto."
            return f"{DENIED}: {tool} needs approval ({decision.reason}) and nobody can be asked in this mode. {fix}"
        return await self._ask(tool, args, decision, ui, signal)

    async def _ask(
        self, tool: str, args: dict[str, Any], decision: Decision, ui: ApprovalUI, signal: AbortSignal | None
    ) -> str | None:
        from pi_cli.permissions.preview import preview_lines
        from pi_cli.permissions.suggest import suggest_rules

        patterns = suggest_rules(tool, args, self.cwd, self.rules, absolute=not self.project_trusted)
        always = allow_always_label(", ".join(patterns)) if patterns else None
        options = [ALLOW_ONCE, *([always] if always else []), DENY, DENY_WITH_MESSAGE]
        title = "\n".join([_asking(f"Allow {tool}?"), *preview_lines(tool, args, self.cwd), "", f"({decision.reason})"])
        answer = await _until_abort(ui.select(title, options), signal)
        if answer == ALLOW_ONCE:
            return None
        if always is not None and answer == always:
            self.allow_always(patterns)
            return None
        if answer == DENY_WITH_MESSAGE:
            message = await _until_abort(ui.input(f"Message to the model about this {tool} call", None), signal)
            if message and message.strip():
                return f"{DENIED}: the user declined this {tool} call and said: {message.strip()}"
        if signal is not None and signal.aborted:
            return "Operation aborted"
        return f"{DENIED}: the user declined this {tool} call. Do not retry it unchanged; ask the user what to do."

    def allow_always(self, patterns: str | list[str]) -> None:
        """Apply ``patterns`` as allow rules now and append them to the settings file's list."""
        wanted = [patterns] if isinstance(patterns, str) else list(patterns)
        for pattern in wanted:
            self.rules.add("allow", parse_rule(pattern))
        target = self._rule_file()
        shown = ", ".join(wanted)
        noun = "rule" if len(wanted) == 1 else "rules"
        try:
            current = _read_list(target, "allow")
            missing = [p for p in wanted if p not in current]
            if missing:
                save_setting(target, "permissions.allow", [*current, *missing])
            self.notices.append(f"Saved permission {noun} {shown} to {target}")
        except SettingsError as exc:
            self.notices.append(f"Allowed {shown} for this session only: {exc}")
            return
        if target != self._user_file():
            self._keep_project_trusted()

    async def approve_outside(self, tool: str, command: str, note: str, signal: AbortSignal | None = None) -> bool:
        """Ask whether one call the sandbox blocked may run again outside it (any approval mode;
        the user chose the sandbox). False without a dialog (print, json) or on any other answer."""
        ui = self.ui
        if ui is None:
            return False
        from pi_cli.permissions.preview import preview_lines

        title = "\n".join(
            [
                _asking(f"The sandbox blocked this {tool} call. Run it outside the sandbox?"),
                *preview_lines(tool, {"command": command}, self.cwd),
                "",
                note,
            ]
        )
        answer = await _until_abort(ui.select(title, [RUN_OUTSIDE, KEEP_SANDBOXED]), signal)
        return bool(answer == RUN_OUTSIDE)

    def _user_file(self) -> Path:
        return Path(self.agent_dir or paths.agent_dir()) / "settings.json"

    def _rule_file(self) -> Path:
        return paths.project_settings_path(Path(self.cwd)) if self.project_trusted else self._user_file()

    def _keep_project_trusted(self) -> None:
        # Writing .pi/settings.json makes the folder need trust; a folder trusted only because it
        # had nothing to protect gets that trust saved, or the next start would ask (pi does this too).
        store = TrustStore(Path(self.agent_dir or paths.agent_dir()))
        try:
            if store.get(self.cwd) is None:
                store.set(self.cwd, True)
        except TrustStoreError as exc:
            self.notices.append(str(exc))


def _asking(question: str) -> str:
    """``question`` as the first line of a dialog, naming the subagent that asks when a child
    session's call is being decided (``[scout] Allow bash?``)."""
    scope = current_agent.get()
    return question if scope is None else f"[{scope.label}] {question}"


def _from_child_cwd(tool: str, args: dict[str, Any], cwd: str) -> dict[str, Any]:
    """A subagent's call as the gate judges it: its tools work in the child's cwd, while the rules
    (and "inside the project") are the session's. A path tool's relative path is made absolute
    from the child's cwd; a bash command is judged as ``cd <child cwd> && <command>``, so what
    only the shell can resolve after that ``cd`` (relative redirections) counts as unknown."""
    scope = current_agent.get()
    if scope is None or scope.cwd == cwd:
        return args
    if tool == "bash" and isinstance(args.get("command"), str):
        return {**args, "command": f"cd {shlex.quote(scope.cwd)} && {args['command']}"}
    if tool in PATH_TOOLS:
        key = "file_path" if "file_path" in args and "path" not in args else "path"
        raw = args.get(key)
        path = raw.removeprefix("@") if isinstance(raw, str) and raw else "."
        return {**args, key: os.path.normpath(os.path.join(scope.cwd, os.path.expanduser(path)))}
    return args


def _read_list(file: Path, kind: str) -> list[str]:
    try:
        data = json.loads(file.read_text(encoding="utf-8").removeprefix("\ufeff"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise SettingsError(f"Not saving permissions.{kind}: cannot read {file}: {exc}") from None
    section = data.get("permissions") if isinstance(data, dict) else None
    value = section.get(kind) if isinstance(section, dict) else None
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


async def _until_abort(awaitable: Any, signal: AbortSignal | None) -> Any:
    """``awaitable``'s result, or None once ``signal`` aborts (the dialog task is cancelled)."""
    task = asyncio.ensure_future(awaitable)
    if signal is None:
        return await task
    waiter = asyncio.ensure_future(signal.wait())
    try:
        done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    if task in done:
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
    return None


def gate_for_session(
    cwd: str | os.PathLike[str],
    *,
    mode: str | None,
    settings_mode: str | None,
    project_trusted: bool,
    agent_dir: str | os.PathLike[str] | None = None,
    sandbox: SandboxStatus | None = None,
) -> PermissionGate:
    """A gate with the mode (``--permissions`` beats settings) and rules of the settings files;
    ``sandbox`` is the session's (ask mode then lets sandboxed bash calls run unasked)."""
    from pi_cli.permissions.policy import load_rules, parse_mode

    rules, problems = load_rules(cwd, agent_dir, project_trusted=project_trusted)
    chosen: Mode = "auto"
    for candidate in (mode, settings_mode):
        if candidate:
            try:
                chosen = parse_mode(candidate)
                break
            except ValueError as exc:
                problems.append(f"settings: {exc}; using auto")
    gate = PermissionGate(
        cwd=os.path.abspath(os.fspath(cwd)),
        mode=chosen,
        rules=rules,
        project_trusted=project_trusted,
        agent_dir=os.fspath(agent_dir) if agent_dir is not None else None,
        sandbox=sandbox,
    )
    gate.notices.extend(problems)
    return gate
