"""``Sandbox``: one session's sandbox — its policy, the confinement built for it, and per-call choices.

Construct it once per session with the policy from :func:`~pi_cli.sandbox.settings.load_sandbox_policy`
(constructing an active one on a system without Landlock raises
:class:`~pi_cli.errors.SandboxUnavailableError`, so start-up fails instead of running unconfined).
It implements :class:`~pi_cli.sandbox.protocol.ToolSandbox` for the built-in tools and hands
:class:`~pi_cli.sandbox.protocol.ProcessConfinement` objects to the other process starters.

- :meth:`confinement` builds the Landlock domain lazily (first process started) and rebuilds it when
  the policy changes (``/sandbox``) or the filesystem around a denied path changed; the allow-list
  proxy starts with the first confinement that needs it.
- :meth:`runs_confined` / :attr:`auto_allow_bash` are what the approval gate asks (ask mode does not
  ask about a bash call that runs sandboxed).
"""

from __future__ import annotations

import os
import tempfile
import threading
from typing import TYPE_CHECKING, Any

from pi_cli.sandbox.policy import SandboxMode, SandboxPolicy, real

if TYPE_CHECKING:  # the Landlock side loads when a sandbox is on or a path is checked, not at start-up
    from pi_cli.sandbox.confinement import LandlockConfinement
    from pi_cli.sandbox.proxy import AllowListProxy

CONFINED_TOOLS = frozenset({"bash"})  # tools whose whole effect happens in a confined process


def _check_support(policy: SandboxPolicy) -> None:
    """:func:`~pi_cli.sandbox.confinement.check_support`, loading Landlock only for an active policy."""
    if policy.active:
        from pi_cli.sandbox.confinement import check_support

        check_support(policy)


class Sandbox:
    """See the module doc. ``cwd`` is the project (writable in ``workspace`` mode)."""

    def __init__(
        self,
        policy: SandboxPolicy,
        cwd: str,
        *,
        temp_dir: str | None = None,
    ) -> None:
        _check_support(policy)
        self._policy = policy
        self.cwd = os.path.abspath(cwd)
        self._temp = temp_dir or tempfile.gettempdir()
        self._confinement: LandlockConfinement | None = None
        self._proxy: AllowListProxy | None = None
        self._lock = threading.Lock()  # the MCP thread may start a server while the agent runs bash

    # -- policy -------------------------------------------------------------------------------

    @property
    def policy(self) -> SandboxPolicy:
        return self._policy

    @property
    def active(self) -> bool:
        return self._policy.active

    @property
    def auto_allow_bash(self) -> bool:
        """Ask mode lets a sandboxed bash call run unasked (settings ``autoAllowBashIfSandboxed``)."""
        return self._policy.active and self._policy.auto_allow_bash

    def runs_confined(self, tool: str) -> bool:
        """Whether a call of ``tool`` runs inside the sandbox (bash; the file tools check paths)."""
        return self.active and tool in CONFINED_TOOLS

    def set_policy(self, policy: SandboxPolicy) -> None:
        """Switch policy for the rest of the session (``/sandbox``); raises
        :class:`~pi_cli.errors.SandboxUnavailableError` and keeps the old one when it cannot be had.
        Processes already running keep the sandbox they started in (MCP servers until restarted)."""
        _check_support(policy)
        with self._lock:
            self._policy = policy
            self._drop()

    def set_mode(self, mode: SandboxMode) -> None:
        self.set_policy(self._policy.with_mode(mode))

    def write_roots(self) -> list[str]:
        """Where confined processes may write in ``workspace`` mode (real paths)."""
        roots = [real(self.cwd), real(self._temp), *(real(p) for p in self._policy.writable)]
        return list(dict.fromkeys(roots))

    # -- processes ----------------------------------------------------------------------------

    def confinement(self) -> LandlockConfinement | None:
        """The confinement for a process a tool starts now; None when the sandbox is off."""
        if not self._policy.active:
            return None
        with self._lock:
            current = self._confinement
            if current is not None and current.policy is self._policy and current.is_current():
                return current
            self._drop_confinement()
            port = self._proxy_port()
            from pi_cli.sandbox.confinement import LandlockConfinement

            self._confinement = LandlockConfinement(self._policy, self.write_roots(), port)
            return self._confinement

    def _proxy_port(self) -> int | None:
        if self._policy.network != "allow":
            return None
        if self._proxy is None or self._proxy.allow != self._policy.allow_hosts:
            if self._proxy is not None:
                self._proxy.close()
            from pi_cli.sandbox.proxy import AllowListProxy

            self._proxy = AllowListProxy(self._policy.allow_hosts)
        return self._proxy.start()

    # -- file tools and results ---------------------------------------------------------------

    def check_read(self, path: str) -> str | None:
        from pi_cli.sandbox.pathcheck import read_refusal

        return read_refusal(self._policy, path)

    def check_write(self, path: str) -> str | None:
        from pi_cli.sandbox.pathcheck import write_refusal

        return write_refusal(self._policy, self.write_roots(), path)

    def explain_block(self, output: str, cwd: str, since: float) -> str | None:
        from pi_cli.sandbox.blocked import explain_block

        refused = self._proxy.refused_since(since) if self._proxy is not None else []
        return explain_block(self._policy, self.write_roots(), output, cwd, refused)

    # -- reporting ----------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """What RPC ``get_state`` reports under ``"sandbox"`` (camelCase, JSON-ready)."""
        from pi_cli.sandbox import landlock

        policy = self._policy
        network: Any = {"allow": list(policy.allow_hosts)} if policy.network == "allow" else policy.network
        return {
            "mode": policy.mode,
            "network": network,
            "writable": self.write_roots() if policy.mode == "workspace" else [],
            "denyRead": list(policy.deny_read),
            "autoAllowBashIfSandboxed": policy.auto_allow_bash,
            "landlockAbi": landlock.abi_version(),
        }

    def describe(self) -> str:
        return self._policy.describe()

    def _drop_confinement(self) -> None:
        if self._confinement is not None:
            self._confinement.close()
            self._confinement = None

    def _drop(self) -> None:
        self._drop_confinement()
        if self._proxy is not None and self._policy.network != "allow":
            self._proxy.close()
            self._proxy = None

    def close(self) -> None:
        """Stop the spawner thread and the proxy (end of session)."""
        with self._lock:
            self._drop_confinement()
            if self._proxy is not None:
                self._proxy.close()
                self._proxy = None
