"""One built sandbox: the Landlock domain for a policy and a project, and how to start processes in it.

:class:`LandlockConfinement` builds the ruleset once (filesystem plan from :mod:`fsrules`, TCP rules,
scopes), hands it to a :class:`~pi_cli.sandbox.spawner.ConfinedSpawner` thread, and from then on
starting a process costs a normal spawn. :func:`check_support` says whether this system can enforce a
policy at all, as one line, before anything is built.

What the domain handles (ABI permitting): every filesystem write right; read rights when something
is denied (see fsrules); TCP bind and connect unless the network is ``on`` (with an allow list, connect
to the proxy's port is granted); signals to and abstract unix sockets of processes outside the sandbox
(ABI ≥ 6). Executing programs, UDP (DNS included), pathname unix sockets and ioctls are not handled.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping
from typing import Any

from pi_cli.errors import SandboxUnavailableError
from pi_cli.sandbox import landlock as ll
from pi_cli.sandbox.fsrules import FsPlan, plan_filesystem
from pi_cli.sandbox.policy import SandboxPolicy, real
from pi_cli.sandbox.spawner import ConfinedSpawner, confined_create_subprocess_exec, confined_subprocess_exec

MIN_FS_ABI = 3  # TRUNCATE: below it, truncate(2) outside the project would not be stopped
MIN_NET_ABI = 4
_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
_NO_PROXY_VARS = ("NO_PROXY", "no_proxy")


def check_support(policy: SandboxPolicy, abi: int | None = None) -> None:
    """Raise :class:`SandboxUnavailableError` when ``policy`` is on and cannot be enforced here."""
    if not policy.active:
        return
    level = ll.abi_version() if abi is None else abi
    fix = 'Use --sandbox off (or settings sandbox.mode "off") to run tools without a sandbox.'
    if level == 0:
        raise SandboxUnavailableError(f"Cannot start the {policy.mode} sandbox: {ll.unavailable_reason()}.", hint=fix)
    if level < MIN_FS_ABI:
        raise SandboxUnavailableError(
            f"Cannot start the {policy.mode} sandbox: the kernel's Landlock ABI is {level}, and confining writes "
            f"needs ABI {MIN_FS_ABI} (Linux 6.2) so that truncating files outside the project is refused.",
            hint=fix,
        )
    if policy.network != "on" and level < MIN_NET_ABI:
        raise SandboxUnavailableError(
            f"Cannot start the sandbox with network {policy.network_text()}: restricting TCP needs Landlock ABI "
            f"{MIN_NET_ABI} (Linux 6.7) and this kernel has ABI {level}.",
            hint='Set sandbox.network to "on" to sandbox files only, or use --sandbox off.',
        )


def deny_forms(policy: SandboxPolicy) -> list[str]:
    """Each denied path as written and symlink-resolved (both must be refused)."""
    out: list[str] = []
    for path in policy.deny_read:
        for form in (os.path.normpath(path), real(path)):
            if form not in out:
                out.append(form)
    return out


class LandlockConfinement:
    """The sandbox of ``policy`` for the processes a session's tools start (see module doc).

    ``write_roots`` are the real paths writable in ``workspace`` mode (project, temp dir,
    ``writable``); ``proxy_port`` the allow-list proxy's port when the network is an allow list.
    Raises :class:`~pi_cli.sandbox.landlock.LandlockError` when the kernel refuses a rule.
    """

    def __init__(self, policy: SandboxPolicy, write_roots: list[str], proxy_port: int | None = None) -> None:
        abi = ll.abi_version()
        self.policy = policy
        self.proxy_port = proxy_port
        roots = write_roots if policy.mode == "workspace" else []
        self.plan: FsPlan = plan_filesystem(roots, deny_forms(policy), abi)
        handled_net = ll.NET_BIND_TCP | ll.NET_CONNECT_TCP if policy.network != "on" and abi >= MIN_NET_ABI else 0
        scoped = ll.SCOPE_ABSTRACT_UNIX_SOCKET | ll.SCOPE_SIGNAL if abi >= 6 else 0
        ruleset = ll.Ruleset(self.plan.handled, handled_net, scoped, abi=abi)
        try:
            for path, access in self.plan.rules:
                ruleset.allow_path(path, access)
            if policy.network == "allow" and proxy_port is not None:
                ruleset.allow_port(proxy_port, ll.NET_CONNECT_TCP)
        except BaseException:
            ruleset.close()
            raise
        self._spawner = ConfinedSpawner(ruleset)  # closes the ruleset once the thread holds the domain

    def describe(self) -> str:
        return self.policy.describe()

    def is_current(self) -> bool:
        """False when the filesystem changed under an ancestor of a denied path (rebuild)."""
        return self.plan.is_current()

    def environment(self, env: Mapping[str, str] | None) -> dict[str, str] | None:
        """The child's environment: ``env`` (None: ours) plus the proxy variables when there is one."""
        if self.proxy_port is None:
            return dict(env) if env is not None else None
        out = dict(os.environ if env is None else env)
        url = f"http://127.0.0.1:{self.proxy_port}"
        out.update(dict.fromkeys(_PROXY_VARS, url))
        for name in _NO_PROXY_VARS:
            out.pop(name, None)
        return out

    def _popen_kwargs(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        kwargs = dict(kwargs)
        kwargs["env"] = self.environment(kwargs.get("env"))
        kwargs.setdefault("close_fds", True)
        return kwargs

    async def subprocess_exec(
        self, protocol_factory: Callable[[], asyncio.SubprocessProtocol], program: str, *args: str, **kwargs: Any
    ) -> tuple[asyncio.SubprocessTransport, asyncio.SubprocessProtocol]:
        return await confined_subprocess_exec(
            self._spawner, protocol_factory, [program, *args], **self._popen_kwargs(kwargs)
        )

    async def create_subprocess_exec(self, program: str, *args: str, **kwargs: Any) -> asyncio.subprocess.Process:
        limit = int(kwargs.pop("limit", 2**16))
        return await confined_create_subprocess_exec(
            self._spawner, [program, *args], limit=limit, **self._popen_kwargs(kwargs)
        )

    def close(self) -> None:
        self._spawner.close()
