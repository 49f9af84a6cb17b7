"""The sandbox's policy for pi_cli's own file tools (read, write, edit, grep, find, ls).

Those tools run inside pi, not in a confined process, so they check the same rules themselves, on
the path as written *and* with symlinks resolved: a link inside the project that points outside is
judged by where it points. Each refusal is one sentence saying what was refused, why, and what the
user can change.
"""

from __future__ import annotations

import os

from pi_cli.config import paths
from pi_cli.sandbox.confinement import deny_forms
from pi_cli.sandbox.policy import SandboxPolicy, is_inside, real

_DEVICES = frozenset({"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"})


def _user_settings() -> str:
    return str(paths.agent_dir() / "settings.json")


def _forms(path: str) -> tuple[str, str]:
    absolute = os.path.normpath(os.path.abspath(path))
    return absolute, real(absolute)


def denied_entry(policy: SandboxPolicy, path: str) -> str | None:
    """The ``denyRead`` entry that covers ``path`` (as written or resolved), if any."""
    forms = _forms(path)
    for entry in deny_forms(policy):
        if any(is_inside(form, entry) for form in forms):
            return entry
    return None


def read_refusal(policy: SandboxPolicy, path: str) -> str | None:
    """None when the sandbox lets tools read ``path``; else why not (a denied secret)."""
    if not policy.active:
        return None
    entry = denied_entry(policy, path)
    if entry is None:
        return None
    return (
        f"Sandbox: reading {path} is blocked: it is protected by sandbox.denyRead ({entry}), so no tool may "
        f'read it while the sandbox is on. The user can allow it by adding "{entry}" to "sandbox.allowRead" in '
        f"{_user_settings()}, or turn the sandbox off (/sandbox off, --sandbox off)."
    )


def write_allowed(policy: SandboxPolicy, write_roots: list[str], path: str) -> bool:
    """Whether ``path`` (as written and resolved) lies where the sandbox lets tools write."""
    if not policy.active:
        return True
    resolved = _forms(path)[1]  # where the write lands decides, not the name it goes through
    if resolved in _DEVICES:
        return True
    if policy.mode != "workspace":
        return False
    return any(is_inside(resolved, root) for root in write_roots)


def write_refusal(policy: SandboxPolicy, write_roots: list[str], path: str) -> str | None:
    """None when the sandbox lets tools write ``path``; else why not and how to allow it."""
    if write_allowed(policy, write_roots, path):
        return None
    resolved = real(path)
    shown = path if resolved == os.path.normpath(os.path.abspath(path)) else f"{path} (resolves to {resolved})"
    if policy.mode == "read-only":
        why = "the sandbox is read-only, so tools may write nowhere"
        fix = "switch to /sandbox workspace (or --sandbox workspace) to write in the project"
    else:
        why = "it is outside the places the sandbox lets tools write (" + ", ".join(write_roots) + ")"
        fix = f'add the folder to "sandbox.writable" in {_user_settings()}'
    return f"Sandbox: writing {shown} is blocked: {why}. The user can {fix}, or turn the sandbox off (/sandbox off)."
