"""What the sandbox allows: :class:`SandboxPolicy`, and how one policy narrows another.

Modes: ``off`` (pi's behaviour, the default), ``workspace`` (processes a tool starts may write only
in the project, the temp dir and ``writable``), ``read-only`` (they may write nowhere). Network,
once the sandbox is on: ``off`` (no TCP connect or bind), ``on``, or an allow list of hosts reached
through pi_cli's local HTTP(S) proxy. ``deny_read`` always holds :func:`default_deny_read` and what
the settings add; ``allowRead`` (user settings only) takes default entries back out.

Pure data and comparisons; nothing here touches the kernel.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Literal

from pi_cli.config import paths

SandboxMode = Literal["off", "workspace", "read-only"]
NetworkMode = Literal["off", "on", "allow"]
MODES: tuple[SandboxMode, ...] = ("off", "workspace", "read-only")
_MODE_RANK = {"off": 0, "workspace": 1, "read-only": 2}
_NETWORK_RANK = {"on": 0, "allow": 1, "off": 2}
MODE_DETAILS: dict[str, str] = {
    "off": "tools run unconfined (pi's behaviour)",
    "workspace": "tool processes may write only in the project, the temp dir and sandbox.writable",
    "read-only": "tool processes may write nowhere",
}


def default_deny_read() -> tuple[str, ...]:
    """The secrets no tool may read while the sandbox is on: pi's ``auth.json`` and the usual
    credential stores."""
    home = os.path.expanduser("~")
    return (
        str(paths.auth_json_path()),
        os.path.join(home, ".ssh"),
        os.path.join(home, ".aws"),
        os.path.join(home, ".config", "gcloud"),
        os.path.join(home, ".netrc"),
        os.path.join(home, ".docker", "config.json"),
    )


@dataclass(frozen=True, slots=True)
class SandboxPolicy:
    """One sandbox configuration. Paths are absolute (``~`` expanded), not yet symlink-resolved."""

    mode: SandboxMode = "off"
    writable: tuple[str, ...] = ()
    network: NetworkMode = "off"
    allow_hosts: tuple[str, ...] = ()  # with network "allow": host, *.domain, host:port
    deny_read: tuple[str, ...] = field(default_factory=default_deny_read)
    auto_allow_bash: bool = True  # ask mode: a bash call that runs sandboxed is not asked about

    @property
    def active(self) -> bool:
        return self.mode != "off"

    def with_mode(self, mode: SandboxMode) -> SandboxPolicy:
        return replace(self, mode=mode)

    def network_text(self) -> str:
        if self.network == "allow":
            return "allow " + ", ".join(self.allow_hosts) if self.allow_hosts else "allow (no hosts)"
        return self.network

    def describe(self) -> str:
        """``workspace, network off`` — for the footer and ``/sandbox``."""
        if not self.active:
            return "off"
        return f"{self.mode}, network {self.network_text()}"


def stricter_mode(a: SandboxMode, b: SandboxMode) -> SandboxMode:
    return a if _MODE_RANK[a] >= _MODE_RANK[b] else b


def real(path: str) -> str:
    """``path`` absolute with symlinks resolved as far as it exists."""
    return os.path.realpath(os.path.abspath(path))


def is_inside(path: str, root: str) -> bool:
    """``path`` is ``root`` or beneath it (both absolute and normalised)."""
    return path == root or path.startswith(root.rstrip("/") + "/")


def narrow(base: SandboxPolicy, project: ProjectNarrowing) -> tuple[SandboxPolicy, list[str]]:
    """``base`` (the user's policy) as a trusted project narrows it; the lines say what a project
    asked for that would have widened it and was ignored."""
    ignored: list[str] = []
    mode = base.mode if project.mode is None else stricter_mode(base.mode, project.mode)
    writable = base.writable
    if project.writable is not None:
        kept = tuple(p for p in project.writable if any(is_inside(p, w) for w in base.writable))
        ignored.extend(
            f"writable {p} (not within the user's sandbox.writable)" for p in project.writable if p not in kept
        )
        writable = kept
    network, hosts = base.network, base.allow_hosts
    if project.network is not None:
        wanted, wanted_hosts = project.network
        if _NETWORK_RANK[wanted] > _NETWORK_RANK[network]:
            network, hosts = wanted, wanted_hosts
        elif wanted == "allow" and network == "allow":
            hosts = tuple(h for h in wanted_hosts if h in base.allow_hosts)
            ignored.extend(f"network host {h} (not in the user's allow list)" for h in wanted_hosts if h not in hosts)
        elif _NETWORK_RANK[wanted] < _NETWORK_RANK[network]:
            ignored.append(f"network {wanted} (the user's setting is stricter)")
    deny = base.deny_read + tuple(p for p in project.deny_read if p not in base.deny_read)
    auto_allow = base.auto_allow_bash and project.auto_allow_bash is not False
    narrowed = SandboxPolicy(mode, writable, network, hosts, deny, auto_allow)
    return narrowed, ignored


@dataclass(frozen=True, slots=True)
class ProjectNarrowing:
    """What a trusted project's ``sandbox`` section asks for; None means "not set"."""

    mode: SandboxMode | None = None
    writable: tuple[str, ...] | None = None
    network: tuple[NetworkMode, tuple[str, ...]] | None = None
    deny_read: tuple[str, ...] = ()
    auto_allow_bash: bool | None = None
