"""What an installed package contributes to a real ``pi -p`` run (fake LLM server): its extension
runs, its skill is in the system prompt, its prompt template expands; ``--no-extensions`` keeps the
skill and prompt; an untrusted project's packages stay out; a vanished package is one warning;
``-e`` tries a package for one run; RPC ``get_commands`` names the package in ``sourceInfo``."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from cli.pi_harness import PiEnv, RpcClient, user_texts

from .conftest import commit

EXTENSION = """
import os
from pathlib import Path

def register(pi):
    pi.on("session_start", lambda event, ctx: Path(os.environ["MARKER"]).write_text("loaded"))
"""


def make_package(root: Path) -> Path:
    (root / "extensions").mkdir(parents=True)
    (root / "extensions" / "marker.py").write_text(EXTENSION)
    (root / "skills" / "hello").mkdir(parents=True)
    (root / "skills" / "hello" / "SKILL.md").write_text("---\nname: hello\ndescription: Greets packages\n---\nhi\n")
    (root / "prompts").mkdir()
    (root / "prompts" / "review.md").write_text("---\ndescription: review\n---\nPlease review $1\n")
    return root


def system_prompt(pi: PiEnv) -> str:
    messages = pi.bodies()[-1]["messages"]
    return "".join(m["content"] for m in messages if m["role"] == "system" and isinstance(m["content"], str))


def test_installed_package_contributes_extension_skill_and_prompt(pi: PiEnv) -> None:
    assert pi.server is not None
    marker = pi.root / "marker"
    pi.env["MARKER"] = str(marker)
    make_package(pi.root / "pkg")
    done = pi.run("install", str(pi.root / "pkg"), model=False)
    assert done.returncode == 0, done.stderr
    pi.server.add_turns([{"text": "ok"}])
    done = pi.run("-p", "/review main.py")
    assert (done.returncode, done.stdout.strip()) == (0, "ok"), done.stderr
    assert marker.read_text() == "loaded"
    assert user_texts(pi.bodies()[-1])[-1] == "Please review main.py"
    assert "Greets packages" in system_prompt(pi)

    marker.unlink()
    pi.server.add_turns([{"text": "ok"}])
    done = pi.run("-p", "--no-extensions", "/review x")
    assert done.returncode == 0, done.stderr
    assert not marker.exists()  # the extension is skipped, the skill and prompt are not
    assert user_texts(pi.bodies()[-1])[-1] == "Please review x"
    assert "Greets packages" in system_prompt(pi)


def test_untrusted_project_packages_do_not_load(pi: PiEnv) -> None:
    assert pi.server is not None
    marker = pi.root / "marker"
    pi.env["MARKER"] = str(marker)
    make_package(pi.cwd / "vendor" / "pkg")
    assert pi.run("install", "-l", "./vendor/pkg", model=False).returncode == 0
    pi.server.add_turns([{"text": "ok"}, {"text": "ok"}])
    done = pi.run("-p", "/review x")  # print mode does not ask: the project stays untrusted
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    assert user_texts(pi.bodies()[-1])[-1] == "/review x"
    done = pi.run("-p", "--approve", "/review x")
    assert done.returncode == 0, done.stderr
    assert marker.exists() and user_texts(pi.bodies()[-1])[-1] == "Please review x"


def test_vanished_package_is_one_warning(pi: PiEnv) -> None:
    assert pi.server is not None
    pi.env["MARKER"] = str(pi.root / "marker")
    package = make_package(pi.root / "pkg")
    assert pi.run("install", str(package), model=False).returncode == 0
    shutil.rmtree(package)
    pi.server.add_turns([{"text": "still here"}])
    done = pi.run("-p", "hi")
    assert (done.returncode, done.stdout.strip()) == (0, "still here")
    warnings = [line for line in done.stderr.splitlines() if "../pkg" in line]
    assert warnings == [f'Warning: Extension package "../pkg": path does not exist: {package}'], done.stderr


def test_dash_e_tries_a_package_for_one_run(pi: PiEnv) -> None:
    assert pi.server is not None
    marker = pi.root / "marker"
    pi.env["MARKER"] = str(marker)
    package = make_package(pi.root / "pkg")
    pi.server.add_turns([{"text": "ok"}, {"text": "ok"}, {"text": "ok"}])
    done = pi.run("-p", "-e", str(package), "hi")  # a package folder: its extensions/ load
    assert done.returncode == 0, done.stderr
    assert marker.read_text() == "loaded"
    marker.unlink()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=package, check=True)
    commit(package, {}, "package")
    done = pi.run("-p", "-e", f"git:{package}", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(f"Installing git:{package}...")
    assert marker.read_text() == "loaded"
    assert list((pi.agent_dir / "tmp" / "extensions" / "git").glob("*/local/**/extensions/marker.py"))
    assert not (pi.agent_dir / "settings.json").read_text().count("packages")  # nothing declared
    done = pi.run("-p", "-e", "git:/nowhere/repo", "hi")
    assert done.returncode == 0 and done.stdout.strip() == "ok"
    warnings = [line for line in done.stderr.splitlines() if line.startswith("Warning:")]
    assert len(warnings) == 1 and warnings[0].startswith("Warning: extension git:/nowhere/repo: git clone failed")


def test_rpc_get_commands_names_the_package(pi: PiEnv) -> None:
    package = make_package(pi.root / "pkg")
    pi.env["MARKER"] = str(pi.root / "marker")
    assert pi.run("install", str(package), model=False).returncode == 0
    client = RpcClient(pi)
    try:
        commands = {c["name"]: c for c in client.request({"type": "get_commands"})["data"]["commands"]}
    finally:
        client.close()
    assert commands["review"]["sourceInfo"] == {
        "path": str(package / "prompts" / "review.md"),
        "source": "../pkg",
        "scope": "user",
        "origin": "package",
        "baseDir": str(package),
    }
    assert commands["skill:hello"]["sourceInfo"]["origin"] == "package"
