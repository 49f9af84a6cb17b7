"""The file tools check the sandbox's policy on the path and on where it really leads.

These checks are pi_cli's own (the tools run in-process), so only grep/find's ripgrep needs Landlock.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from pi_cli.sandbox.confinement import real
from pi_cli.sandbox.controller import Sandbox
from pi_cli.sandbox.pathcheck import read_refusal, write_refusal
from pi_cli.sandbox.policy import SandboxPolicy
from pi_cli.tools import create_all_tools

from .conftest import Places, needs_landlock


def tools_for(places: Places, box: Any) -> dict[str, Any]:
    return create_all_tools(str(places.project), sandbox=box)


class PathsOnly:
    """The sandbox as the file tools see it, without Landlock (the checks are pi_cli's own)."""

    def __init__(self, places: Places, mode: str = "workspace") -> None:
        self.policy = SandboxPolicy(mode=mode)  # type: ignore[arg-type]
        self.roots = [real(str(places.project)), real(str(places.temp))]

    def confinement(self) -> None:
        return None

    def check_read(self, path: str) -> str | None:
        return read_refusal(self.policy, path)

    def check_write(self, path: str) -> str | None:
        return write_refusal(self.policy, self.roots, path)

    def explain_block(self, output: str, cwd: str, since: float) -> str | None:
        return None


def policy_box(places: Places, mode: str = "workspace") -> PathsOnly:
    return PathsOnly(places, mode)


@pytest.fixture
def box(places: Places) -> PathsOnly:
    return policy_box(places)


async def test_reading_a_secret_is_refused_with_the_reason(places: Places, box: PathsOnly) -> None:
    tools = tools_for(places, box)
    for args in ({"path": "~/.ssh/id_rsa"}, {"path": str(places.home / ".pi/agent/auth.json")}):
        with pytest.raises(
            PermissionError, match=r"Sandbox: reading .* is blocked: it is protected by sandbox\.denyRead"
        ):
            await tools["read"].execute("c", args)
    with pytest.raises(PermissionError, match=r"sandbox\.allowRead"):
        await tools["ls"].execute("c", {"path": "~/.aws"})
    with pytest.raises(PermissionError, match="denyRead"):
        await tools["grep"].execute("c", {"pattern": "SECRET", "path": "~/.ssh"})
    result = await tools["read"].execute("c", {"path": "~/notes.txt"})
    assert "readable note" in result.content[0]["text"]


async def test_a_symlink_to_a_secret_is_judged_by_its_target(places: Places, box: PathsOnly) -> None:
    os.symlink(places.home / ".ssh", places.project / "keys")
    with pytest.raises(PermissionError, match="denyRead"):
        await tools_for(places, box)["read"].execute("c", {"path": "keys/id_rsa"})


async def test_writes_outside_the_writable_places_are_refused(places: Places, box: PathsOnly) -> None:
    tools = tools_for(places, box)
    await tools["write"].execute("c", {"path": "ok.txt", "content": "fine"})
    assert (places.project / "ok.txt").read_text() == "fine"
    await tools["write"].execute("c", {"path": str(places.temp / "t.txt"), "content": "tmp"})
    with pytest.raises(PermissionError, match=r"Sandbox: writing .* is blocked: it is outside .*sandbox.writable"):
        await tools["write"].execute("c", {"path": str(places.outside / "x.txt"), "content": "no"})
    os.symlink(places.outside, places.project / "link")
    with pytest.raises(PermissionError, match="resolves to"):
        await tools["write"].execute("c", {"path": "link/y.txt", "content": "no"})
    with pytest.raises(PermissionError, match="blocked"):
        await tools["edit"].execute(
            "c", {"path": str(places.outside / "keep.txt"), "edits": [{"oldText": "outside", "newText": "x"}]}
        )
    assert sorted(p.name for p in places.outside.iterdir()) == ["keep.txt", "sub"]
    assert (places.outside / "keep.txt").read_text() == "outside file\n"


async def test_read_only_refuses_every_write_and_off_refuses_nothing(places: Places) -> None:
    tools = tools_for(places, policy_box(places, "read-only"))
    with pytest.raises(PermissionError, match="read-only"):
        await tools["write"].execute("c", {"path": "new.txt", "content": "x"})
    tools = tools_for(places, policy_box(places, "off"))
    await tools["write"].execute("c", {"path": str(places.outside / "free.txt"), "content": "x"})
    await tools["read"].execute("c", {"path": "~/.ssh/id_rsa"})


@needs_landlock
async def test_grep_of_a_folder_holding_secrets_does_not_show_them(places: Places) -> None:
    real = Sandbox(SandboxPolicy(mode="workspace"), str(places.project), temp_dir=str(places.temp))
    try:
        tools = tools_for(places, real)
        result = await tools["grep"].execute("c", {"pattern": "SECRET|readable", "path": str(places.home)})
        text = result.content[0]["text"]
        assert "readable note" in text and "SECRET-" not in text
    finally:
        real.close()
