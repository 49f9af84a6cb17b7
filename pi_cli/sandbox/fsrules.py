"""The filesystem half of a sandbox: which paths get which Landlock rights.

Writes are an allow list, as Landlock is: the project, the temp dir and ``sandbox.writable`` get
every write right (nothing at all in ``read-only`` mode), plus a few device files (``/dev/null``
…) that commands write to as a matter of course.

Reads are the other way round — everything is readable except ``denyRead`` — and Landlock cannot
say "all but": a right granted on a folder covers everything beneath it. So reads are handled only
when something is denied, and then granted by walking down from ``/`` towards each denied path:
every folder on the way (an *ancestor*) gets ``READ_DIR`` only, so its listing stays visible, and
every other entry of it (a *sibling*) gets full read rights for its whole subtree. A denied entry
gets nothing. Entries created in an ancestor after the walk would be unreadable, so the plan keeps
the ancestors' modification times and is rebuilt when one changes (:meth:`FsPlan.is_current`).

Limits (README "Sandbox"): names inside ancestors stay listable; a denied *file* stays visible in
its folder's listing; hard links to a denied file made before the sandbox started are readable
through their other name; symlinks get no rule of their own (the target's rules decide).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from pi_cli.sandbox import landlock as ll

# Device files any shell writes to (`2>/dev/null`, `> /dev/tty`); TRUNCATE too, since `>` opens
# with O_TRUNC. /dev/stdout and /dev/stderr resolve to the inherited pipe, which Landlock never checks.
DEVICE_FILES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx")
_DENIED = object()  # a leaf of the deny tree


@dataclass(slots=True)
class FsPlan:
    """Rules to add (``(path, rights)``, in order), the rights handled, and the folders whose
    modification times the plan depends on."""

    handled: int
    rules: list[tuple[str, int]] = field(default_factory=list)
    watched: dict[str, int] = field(default_factory=dict)

    def is_current(self) -> bool:
        """False once an ancestor folder gained or lost an entry (or vanished)."""
        for folder, mtime in self.watched.items():
            try:
                if os.stat(folder).st_mtime_ns != mtime:
                    return False
            except OSError:
                return False
        return True


def _components(path: str) -> list[str]:
    return [part for part in path.split("/") if part]


def _deny_tree(deny_read: list[str]) -> dict[str, object]:
    tree: dict[str, object] = {}
    for path in deny_read:
        parts = _components(path)
        if not parts:
            continue  # denying "/" would deny everything; the policy refuses it earlier
        node = tree
        for part in parts[:-1]:
            child = node.get(part)
            if child is _DENIED:
                break  # an ancestor is already denied
            if child is None:
                child = node[part] = {}
            assert isinstance(child, dict)
            node = child
        else:
            node[parts[-1]] = _DENIED
    return tree


def _walk(folder: str, node: dict[str, object], plan: FsPlan) -> None:
    try:
        plan.watched[folder] = os.stat(folder).st_mtime_ns
        entries = list(os.scandir(folder))
    except OSError:
        return  # unreadable or gone: nothing beneath it is granted
    plan.rules.append((folder, ll.READ_DIR))
    for entry in entries:
        child = node.get(entry.name)
        if child is _DENIED:
            continue
        if isinstance(child, dict):
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if is_dir:
                _walk(entry.path, child, plan)
                continue
        plan.rules.append((entry.path, ll.READ))


def plan_filesystem(write_roots: list[str], deny_read: list[str], abi: int) -> FsPlan:
    """The rules for ``write_roots`` (real, absolute paths) and ``deny_read`` (absolute paths;
    pass both the written and the symlink-resolved form of each)."""
    writes = ll.write_rights(abi)
    plan = FsPlan(handled=writes | (ll.READ if deny_read else 0))
    if deny_read:
        _walk("/", _deny_tree(deny_read), plan)
    for root in write_roots:
        plan.rules.append((root, writes))
    device = ll.WRITE_FILE | (ll.TRUNCATE if abi >= 3 else 0)
    for path in DEVICE_FILES:
        plan.rules.append((path, device))
    return plan
