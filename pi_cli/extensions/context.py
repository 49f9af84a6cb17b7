"""``ExtensionContext``: the ``ctx`` every extension handler and command receives, with its
read-only :class:`SessionView`.

The runner builds one per call; it is seen here as a :class:`ContextHost` (its cwd, the bound
session and the mode's UI), so this module does not import the runner.
"""

from __future__ import annotations

from typing import Any, Protocol

from pi_cli.extensions.host import ExtensionHost
from pi_cli.extensions.ui import ExtensionUI


class ContextHost(Protocol):
    """What ``ctx`` needs of the extension runner."""

    @property
    def cwd(self) -> str: ...

    @property
    def host(self) -> ExtensionHost | None: ...

    @property
    def ui(self) -> ExtensionUI: ...

    @property
    def mode(self) -> str: ...


class SessionView:
    """Read-only view of the session for ``ctx.session``."""

    def __init__(self, host: ExtensionHost | None) -> None:
        self._host = host

    @property
    def messages(self) -> list[dict[str, Any]]:
        return [] if self._host is None else list(self._host.messages)

    @property
    def model(self) -> Any:
        return None if self._host is None else self._host.model

    @property
    def thinking_level(self) -> str | None:
        return None if self._host is None else str(self._host.thinking_level)

    @property
    def session_file(self) -> str | None:
        return None if self._host is None else self._host.session_file

    @property
    def session_id(self) -> str | None:
        return None if self._host is None else str(self._host.session_id)


class ExtensionContext:
    """``ctx``: ``cwd``, ``mode``, ``has_ui``, ``ui``, ``session`` (read-only), ``abort()``, ``is_idle()``."""

    def __init__(self, runner: ContextHost) -> None:
        self._runner = runner
        self.cwd = runner.cwd
        self.session = SessionView(runner.host)

    @property
    def ui(self) -> ExtensionUI:
        return self._runner.ui

    @property
    def has_ui(self) -> bool:
        return bool(self._runner.ui.has_ui)

    @property
    def mode(self) -> str:
        """pi's run mode: ``"tui"``, ``"rpc"``, ``"json"`` or ``"print"`` (inline counts as ``tui``,
        ACP as ``rpc``: an extension written for pi sees the mode it would under pi or pi-acp)."""
        return self._runner.mode

    def is_idle(self) -> bool:
        host = self._runner.host
        return host is None or not host.is_streaming

    def abort(self) -> None:
        """Stop the current run (as Esc does); returns at once, the run ends shortly after."""
        host = self._runner.host
        if host is not None:
            host.agent.abort()
