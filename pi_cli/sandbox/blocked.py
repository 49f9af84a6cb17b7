"""Telling, from a confined command's output, that the sandbox blocked it — and what to do.

Landlock answers a refused open, mkdir, rename or connect with ``EACCES``/``EPERM``; programs print
that as "Permission denied" / "Operation not permitted" (bash, coreutils, Python's
``PermissionError``, curl …) next to the path or the connection. :func:`explain_block` reads such
lines, resolves the paths they name and keeps only those the policy really refuses (a path inside
the project that fails for an ordinary permission reason is not blamed on the sandbox). Network:
a refused connection while the network is off, and hosts the allow-list proxy refused during the run.
The note is a bracketed paragraph for the model and the user, saying what was blocked and what the
user can allow.
"""

from __future__ import annotations

import os
import re

from pi_cli.sandbox.pathcheck import denied_entry, write_allowed
from pi_cli.sandbox.policy import SandboxPolicy

_DENIAL = re.compile(r"Permission denied|Operation not permitted|EACCES|EPERM|\[Errno 1[3]?\]")
_QUOTED = re.compile(r"""['‘`"]([^'’`"\n]+)['’`"]""")
_COLON_PATH = re.compile(r"(?:^|:\s)((?:~|\.{1,2})?/?[^\s:'\"]+): (?:Permission denied|Operation not permitted)")
_NET = re.compile(r"connect|connection|socket|network|port \d|curl: \(7\)|unreachable|proxy|http", re.IGNORECASE)
_MAX_ITEMS = 5


def _paths_in(line: str) -> list[str]:
    found = [m.group(1) for m in _QUOTED.finditer(line)] + [m.group(1) for m in _COLON_PATH.finditer(line)]
    return [p for p in found if "/" in p or p.startswith(".") or not p.strip().count(" ")]


def _resolve(path: str, cwd: str) -> str:
    expanded = os.path.expanduser(path.strip())
    return os.path.normpath(expanded if os.path.isabs(expanded) else os.path.join(cwd, expanded))


def blocked_items(
    policy: SandboxPolicy, write_roots: list[str], output: str, cwd: str, refused_hosts: list[str]
) -> tuple[list[str], list[str], bool]:
    """(paths blocked from reading, paths blocked from writing, a connection refused)."""
    reads: list[str] = []
    writes: list[str] = []
    pathless = False
    for line in output.splitlines():
        if not _DENIAL.search(line):
            continue
        named = _paths_in(line)
        pathless = pathless or not named
        for raw in named:
            path = _resolve(raw, cwd)
            if denied_entry(policy, path) is not None:
                if path not in reads:
                    reads.append(path)
            elif not write_allowed(policy, write_roots, path) and path not in writes:
                writes.append(path)
    # A denial naming no blocked path, in output that talks about connecting (a traceback's last
    # line often does not), while TCP is confined.
    network = pathless and policy.network != "on" and _NET.search(output) is not None
    return reads[:_MAX_ITEMS], writes[:_MAX_ITEMS], network or bool(refused_hosts)


def explain_block(
    policy: SandboxPolicy, write_roots: list[str], output: str, cwd: str, refused_hosts: list[str]
) -> str | None:
    """The note for a confined run's output, or None when nothing points at the sandbox."""
    if not policy.active:
        return None
    reads, writes, network = blocked_items(policy, write_roots, output, cwd, refused_hosts)
    if not (reads or writes or network):
        return None
    what: list[str] = []
    fixes: list[str] = []
    if writes:
        place = (
            "the sandbox is read-only"
            if policy.mode == "read-only"
            else "outside the project, the temp dir and sandbox.writable"
        )
        what.append(f"writing {', '.join(writes)} ({place})")
        fixes.append(
            'add the folder to "sandbox.writable" in settings'
            if policy.mode == "workspace"
            else "use /sandbox workspace"
        )
    if reads:
        what.append(f"reading {', '.join(reads)} (sandbox.denyRead)")
        fixes.append('add the path to "sandbox.allowRead" in the user settings')
    if refused_hosts:
        what.append(f"connecting to {', '.join(refused_hosts[:_MAX_ITEMS])} (not in sandbox.network.allow)")
        fixes.append('add the host to "sandbox.network.allow"')
    elif network:
        reach = (
            "only hosts in sandbox.network.allow, through HTTP(S)_PROXY" if policy.network == "allow" else "network off"
        )
        what.append(f"a network connection ({reach})")
        fixes.append('set "sandbox.network" to "on" or list the host in {"allow": [...]}')
    return (
        f"[Sandbox ({policy.describe()}) blocked {'; '.join(what)}. This is not a bug in the command. "
        f"The user can {', or '.join(fixes)}, run this one call outside the sandbox when asked, or turn it off "
        "with /sandbox off. Do not try to work around the sandbox.]"
    )
