"""The ``"sandbox"`` settings and ``--sandbox``: reading them into a :class:`SandboxPolicy`.

```json
"sandbox": {
  "mode": "off" | "workspace" | "read-only",
  "writable": ["~/.cache/pip", "../shared"],
  "network": "off" | "on" | {"allow": ["pypi.org", "*.github.com"]},
  "denyRead": ["~/.kube"],
  "allowRead": ["~/.aws"],
  "autoAllowBashIfSandboxed": true
}
```
The user settings decide. A trusted project's ``.pi/settings.json`` may only narrow: a stricter
mode or network, ``writable`` a subset of the user's, ``denyRead`` additions, ``false`` for
``autoAllowBashIfSandboxed``; ``allowRead`` is the user's alone. ``--sandbox MODE`` replaces the
mode of the settings, and an explicit ``--sandbox off`` turns the sandbox off whatever the project
says. Relative paths are taken from the project folder. Each bad field is one warning line naming
the file and the field, and that field keeps its default.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pi_cli.config import paths
from pi_cli.config.settings import read_settings_file
from pi_cli.sandbox.policy import MODES, NetworkMode, ProjectNarrowing, SandboxMode, SandboxPolicy, narrow

_USER_KEYS = frozenset({"mode", "writable", "network", "denyRead", "allowRead", "autoAllowBashIfSandboxed"})


def parse_mode(value: str) -> SandboxMode:
    """``value`` as a sandbox mode; ValueError naming the choices otherwise."""
    if value in MODES:
        return value
    raise ValueError(f"unknown sandbox mode {value!r} (choose off, workspace or read-only)")


def _path(value: str, cwd: str) -> str:
    expanded = os.path.expanduser(value)
    return os.path.normpath(expanded if os.path.isabs(expanded) else os.path.join(cwd, expanded))


class _Reader:
    """Reads one file's section, collecting one warning per bad field."""

    def __init__(self, file: Path, section: dict[str, Any], cwd: str, warnings: list[str]) -> None:
        self.file, self.section, self.cwd, self.warnings = file, section, cwd, warnings

    def warn(self, key: str, problem: str) -> None:
        self.warnings.append(f"Invalid setting in {self.file}: sandbox.{key}: {problem}; ignored")

    def mode(self) -> SandboxMode | None:
        value = self.section.get("mode")
        if value is None:
            return None
        if isinstance(value, str) and value in MODES:
            return value
        self.warn("mode", 'expected "off", "workspace" or "read-only"')
        return None

    def paths(self, key: str) -> tuple[str, ...] | None:
        value = self.section.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
            self.warn(key, "expected a list of paths")
            return None
        out = tuple(_path(item, self.cwd) for item in value)
        if key == "denyRead" and "/" in out:
            self.warn(key, 'cannot deny "/" (everything)')
            return tuple(p for p in out if p != "/")
        return out

    def network(self) -> tuple[NetworkMode, tuple[str, ...]] | None:
        value = self.section.get("network")
        if value is None:
            return None
        if value in ("off", "on"):
            return value, ()
        hosts = value.get("allow") if isinstance(value, dict) and set(value) == {"allow"} else None
        if isinstance(hosts, list) and all(isinstance(h, str) and h.strip() and " " not in h.strip() for h in hosts):
            return "allow", tuple(h.strip().lower() for h in hosts)
        self.warn("network", 'expected "off", "on" or {"allow": ["host", ...]}')
        return None

    def flag(self, key: str) -> bool | None:
        value = self.section.get(key)
        if value is None or isinstance(value, bool):
            return value
        self.warn(key, "expected true or false")
        return None


def _section(file: Path, warnings: list[str]) -> dict[str, Any] | None:
    data, _error = read_settings_file(file)  # the settings loader reports unreadable files
    section = data.get("sandbox")
    if section is None:
        return None
    if not isinstance(section, dict):
        warnings.append(f"Invalid setting in {file}: sandbox: expected an object; ignored")
        return None
    for key in sorted(set(section) - _USER_KEYS):
        warnings.append(f"Invalid setting in {file}: sandbox.{key}: unknown field; ignored")
    return section


def _user_policy(file: Path, cwd: str, warnings: list[str]) -> SandboxPolicy:
    section = _section(file, warnings)
    if section is None:
        return SandboxPolicy()
    read = _Reader(file, section, cwd, warnings)
    defaults = SandboxPolicy()
    network = read.network() or ("off", ())
    allow_read = read.paths("allowRead") or ()
    deny = [p for p in defaults.deny_read if not any(p == a or p.startswith(a.rstrip("/") + "/") for a in allow_read)]
    deny.extend(p for p in read.paths("denyRead") or () if p not in deny)
    auto = read.flag("autoAllowBashIfSandboxed")
    return SandboxPolicy(
        mode=read.mode() or "off",
        writable=read.paths("writable") or (),
        network=network[0],
        allow_hosts=network[1],
        deny_read=tuple(deny),
        auto_allow_bash=True if auto is None else auto,
    )


def _project_narrowing(file: Path, cwd: str, warnings: list[str]) -> ProjectNarrowing:
    section = _section(file, warnings)
    if section is None:
        return ProjectNarrowing()
    read = _Reader(file, section, cwd, warnings)
    if "allowRead" in section:
        read.warn("allowRead", "only the user settings may allow reading a protected path")
    return ProjectNarrowing(
        mode=read.mode(),
        writable=read.paths("writable"),
        network=read.network(),
        deny_read=read.paths("denyRead") or (),
        auto_allow_bash=read.flag("autoAllowBashIfSandboxed"),
    )


def load_sandbox_policy(
    cwd: str | os.PathLike[str],
    *,
    flag: str | None = None,
    project_trusted: bool = False,
    agent_dir: str | os.PathLike[str] | None = None,
) -> tuple[SandboxPolicy, list[str]]:
    """The session's policy (module doc) and the warning lines found on the way.

    ``flag`` is ``--sandbox``'s value (already checked by the command line). The policy is only
    data: whether this system can enforce it is checked when the sandbox is built.
    """
    root = os.path.abspath(os.fspath(cwd))
    warnings: list[str] = []
    user_file = Path(agent_dir or paths.agent_dir()) / "settings.json"
    policy = _user_policy(user_file, root, warnings)
    if flag is not None:
        policy = policy.with_mode(parse_mode(flag))
    if project_trusted:
        project_file = paths.project_settings_path(Path(root))
        narrowing = _project_narrowing(project_file, root, warnings)
        if flag == "off":
            narrowing = ProjectNarrowing(None, narrowing.writable, narrowing.network, narrowing.deny_read)
        policy, ignored = narrow(policy, narrowing)
        warnings.extend(
            f"{project_file}: sandbox: a project can only narrow the sandbox; ignored {item}" for item in ignored
        )
    return policy, warnings
