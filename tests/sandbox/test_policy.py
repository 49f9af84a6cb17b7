"""The sandbox policy: settings, ``--sandbox``, a project that may only narrow, and refusing to run
unconfined where Landlock is missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_cli.errors import SandboxUnavailableError
from pi_cli.sandbox.blocked import explain_block
from pi_cli.sandbox.confinement import check_support
from pi_cli.sandbox.policy import SandboxPolicy
from pi_cli.sandbox.settings import load_sandbox_policy

from .conftest import Places


def write_settings(path: Path, sandbox: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"sandbox": sandbox}))


def load(places: Places, flag: str | None = None, trusted: bool = True) -> tuple[SandboxPolicy, list[str]]:
    return load_sandbox_policy(places.project, flag=flag, project_trusted=trusted, agent_dir=places.home / ".pi/agent")


def test_defaults_are_off_with_the_secrets_denied(places: Places) -> None:
    policy, warnings = load(places)
    assert policy.mode == "off" and policy.network == "off" and not warnings
    assert str(places.home / ".ssh") in policy.deny_read
    assert str(places.home / ".pi/agent/auth.json") in policy.deny_read


def test_user_settings_and_the_flag(places: Places) -> None:
    write_settings(
        places.home / ".pi/agent/settings.json",
        {
            "mode": "workspace",
            "writable": ["~/.cache/pip", "../shared"],
            "network": {"allow": ["PyPI.org", "*.github.com"]},
            "denyRead": ["~/.kube"],
            "allowRead": ["~/.aws"],
            "autoAllowBashIfSandboxed": False,
        },
    )
    policy, warnings = load(places)
    assert not warnings
    assert policy.mode == "workspace" and policy.network == "allow"
    assert policy.allow_hosts == ("pypi.org", "*.github.com")
    assert policy.writable == (str(places.home / ".cache/pip"), str(places.root / "shared"))
    assert str(places.home / ".kube") in policy.deny_read and str(places.home / ".aws") not in policy.deny_read
    assert policy.auto_allow_bash is False
    assert load(places, flag="read-only")[0].mode == "read-only"
    assert load(places, flag="off")[0].mode == "off"


def test_a_project_narrows_and_never_widens(places: Places) -> None:
    write_settings(
        places.home / ".pi/agent/settings.json",
        {"mode": "workspace", "network": "on", "writable": [str(places.outside)]},
    )
    project = places.project / ".pi/settings.json"
    write_settings(
        project,
        {
            "mode": "off",
            "network": {"allow": ["pypi.org"]},
            "writable": [str(places.outside / "sub"), "/etc"],
            "denyRead": ["secrets"],
            "allowRead": ["~/.ssh"],
            "autoAllowBashIfSandboxed": False,
        },
    )
    policy, warnings = load(places)
    assert policy.mode == "workspace"  # "off" would widen
    assert policy.network == "allow" and policy.allow_hosts == ("pypi.org",)
    assert policy.writable == (str(places.outside / "sub"),)
    assert str(places.project / "secrets") in policy.deny_read and str(places.home / ".ssh") in policy.deny_read
    assert policy.auto_allow_bash is False
    assert any("allowRead" in w and str(project) in w for w in warnings)
    assert any("/etc" in w and "only narrow" in w for w in warnings)
    write_settings(project, {"mode": "read-only", "network": "off"})
    narrowed, _ = load(places)
    assert narrowed.mode == "read-only" and narrowed.network == "off"
    assert load(places, trusted=False)[0].mode == "workspace"  # an untrusted project says nothing
    assert load(places, flag="off")[0].mode == "off"  # the user's explicit word


def test_bad_fields_are_one_line_each_naming_file_and_field(places: Places) -> None:
    user = places.home / ".pi/agent/settings.json"
    write_settings(user, {"mode": "jail", "writable": "x", "network": {"deny": []}, "denyRead": ["/"], "color": 1})
    policy, warnings = load(places)
    assert policy.mode == "off" and policy.network == "off"
    assert len(warnings) == 5
    for field in ("sandbox.mode", "sandbox.writable", "sandbox.network", "sandbox.denyRead", "sandbox.color"):
        assert any(field in w and str(user) in w and "\n" not in w for w in warnings), field
    write_settings(user, ["not an object"])
    assert load(places)[1] == [f"Invalid setting in {user}: sandbox: expected an object; ignored"]


@pytest.mark.parametrize(
    ("abi", "policy", "needle"),
    [
        (0, SandboxPolicy(mode="workspace"), "Landlock"),
        (2, SandboxPolicy(mode="read-only"), "ABI is 2"),
        (3, SandboxPolicy(mode="workspace", network="off"), "restricting TCP needs Landlock ABI 4"),
    ],
)
def test_asking_for_a_sandbox_that_cannot_be_had_is_an_error(abi: int, policy: SandboxPolicy, needle: str) -> None:
    with pytest.raises(SandboxUnavailableError, match=needle) as caught:
        check_support(policy, abi)
    message = str(caught.value)
    assert "\n" not in message and "--sandbox off" in message


def test_what_can_be_had_is_accepted() -> None:
    check_support(SandboxPolicy(mode="off"), 0)
    check_support(SandboxPolicy(mode="workspace", network="on"), 3)
    check_support(SandboxPolicy(mode="workspace"), 4)


def test_a_blocked_run_is_explained_and_ordinary_failures_are_not(places: Places) -> None:
    policy = SandboxPolicy(mode="workspace")
    roots = [str(places.project), str(places.temp)]
    out = places.outside
    note = explain_block(policy, roots, f"bash: line 1: {out}/x: Permission denied\n", str(places.project), [])
    assert note is not None and f"writing {out}/x" in note and "sandbox.writable" in note
    note = explain_block(policy, roots, f"cat: {places.home}/.ssh/id_rsa: Permission denied", str(places.project), [])
    assert note is not None and "reading" in note and "allowRead" in note
    traceback = "  File socket.py, in create_connection\nPermissionError: [Errno 13] Permission denied\n"
    note = explain_block(policy, roots, traceback, str(places.project), [])
    assert note is not None and "network connection" in note
    ordinary = "touch: cannot touch 'mine': Permission denied"  # inside the project: not the sandbox
    assert explain_block(policy, roots, ordinary, str(places.project), []) is None
    assert explain_block(policy, roots, "all fine", str(places.project), []) is None
    assert explain_block(SandboxPolicy(), roots, f"{out}/x: Permission denied", str(places.project), []) is None
    hosts = explain_block(policy, roots, "HTTP Error 403", str(places.project), ["evil.example:443"])
    assert hosts is not None and "evil.example:443" in hosts and "sandbox.network.allow" in hosts


def test_the_sandbox_flag() -> None:
    from pi_cli.cli_args import HELP_TEXT, parse_args
    from pi_cli.errors import UsageError

    assert parse_args(["--sandbox", "workspace", "-p", "hi"]).sandbox == "workspace"
    assert parse_args(["-p", "hi"]).sandbox is None
    with pytest.raises(UsageError, match=r'Invalid --sandbox "jail"\. Valid values: off, workspace, read-only'):
        parse_args(["--sandbox", "jail"])
    assert "--sandbox <mode>" in HELP_TEXT
