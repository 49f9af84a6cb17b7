"""``project_trust``: extensions deciding whether a project folder is trusted (pi 1.6.0).

The event ``{type: "project_trust", cwd}`` fires at start-up, before project resources load, when
the folder holds protected resources and neither ``--approve``/``--no-approve`` nor an earlier
decision of this process settles it. Only the user's extensions (``~/.pi/agent/extensions``, user
settings, installed packages) and ``-e`` ones take part: project extensions load after trust.

A handler returns ``{"trusted": "yes" | "no" | "undecided", "remember"?: bool}``. Handlers run in
load order; the first ``yes``/``no`` decides (later handlers do not run) and replaces the saved
decision and the trust prompt; ``remember`` saves it in ``trust.json``. ``undecided`` passes on.
When nobody decides, trust resolves as without extensions (saved decision, ``defaultProjectTrust``,
prompt). A raising handler or a malformed answer is one warning line and counts as undecided.

Handlers get pi's limited trust context (:class:`TrustContext`): ``cwd``, ``mode``, ``has_ui`` and a
``ui`` with ``select``/``confirm``/``input``/``notify`` only, since no front end runs yet.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from pi_cli.extensions.runner import ExtensionRunner, _describe
from pi_cli.extensions.ui import NoUI

Select = Callable[[str, list[str]], Awaitable["str | None"]]
Ask = Callable[[str, "str | None"], Awaitable["str | None"]]
TRUST_ANSWERS = ("yes", "no", "undecided")


class TrustUI(NoUI):
    """``ctx.ui`` of ``project_trust``: start-up terminal dialogs when ``select``/``ask`` are given
    (interactive modes on a terminal), else :class:`~pi_cli.extensions.ui.NoUI`'s answers
    (``select``/``input`` → None, ``confirm`` → False). ``notify`` writes to stderr outside the
    interactive modes (pi drops it there); status, widget and editor calls do nothing."""

    def __init__(self, select: Select | None = None, ask: Ask | None = None, notify: bool = True) -> None:
        self._select = select
        self._ask = ask
        self._notify = notify
        self.has_ui = select is not None

    def notify(self, text: str, level: str | None = None) -> None:
        if self._notify:
            super().notify(text, level)

    async def confirm(self, title: str, message: str = "", *, timeout: int | None = None) -> bool:
        if self._select is None:
            return False
        return await self._select(f"{title}\n{message}" if message else title, ["Yes", "No"]) == "Yes"

    async def select(self, title: str, options: list[str], *, timeout: int | None = None) -> str | None:
        return None if self._select is None else await self._select(title, list(options))

    async def input(self, title: str, placeholder: str | None = None, *, timeout: int | None = None) -> str | None:
        return None if self._ask is None else await self._ask(title, placeholder)


@dataclass(slots=True)
class TrustContext:
    """pi's project-trust context: no session exists yet."""

    cwd: str
    mode: str  # "tui", "inline", "print", "json" or "rpc"
    ui: TrustUI

    @property
    def has_ui(self) -> bool:
        return self.ui.has_ui


@dataclass(slots=True)
class TrustDecision:
    trusted: bool
    remember: bool
    source: str  # the extension that decided


async def emit_project_trust(runner: ExtensionRunner, ctx: TrustContext) -> tuple[TrustDecision | None, list[str]]:
    """Run the ``project_trust`` handlers; (the first yes/no decision or None, warning lines)."""
    errors: list[str] = []
    event = {"type": "project_trust", "cwd": ctx.cwd}
    for entry in tuple(runner.handlers.get("project_trust", ())):
        try:
            answer = entry.value(event, ctx)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception as exc:
            errors.append(f'Extension "{entry.source}" project_trust error: {_describe(exc)}')
            continue
        trusted = answer.get("trusted") if isinstance(answer, dict) else None
        if trusted not in TRUST_ANSWERS:
            errors.append(
                f'Extension "{entry.source}" project_trust error: expected {{"trusted": "yes" | "no" | '
                f'"undecided"}}, got {answer!r}'
            )
            continue
        if trusted != "undecided":
            assert isinstance(answer, dict)
            return TrustDecision(trusted == "yes", answer.get("remember") is True, entry.source), errors
    return None, errors


def decide_at_startup(
    runner: ExtensionRunner, cwd: Path, mode: str, select: Select | None = None, ask: Ask | None = None
) -> list[str]:
    """Start-up (no loop runs yet): emit ``project_trust`` for ``cwd`` and record the deciding
    answer (pi_cli.permissions.trust); ``select``/``ask`` are the terminal dialogs of an interactive
    mode. Returns warning lines. Handlers of an ``async register`` are not registered yet."""
    from pi_cli.permissions.trust import record_extension_decision

    ui = TrustUI(select, ask, notify=mode not in ("tui", "inline"))
    decision, warnings = asyncio.run(emit_project_trust(runner, TrustContext(str(cwd), mode, ui)))
    if decision is not None:
        record_extension_decision(cwd, decision.trusted, decision.remember, warnings=warnings)
    return warnings
