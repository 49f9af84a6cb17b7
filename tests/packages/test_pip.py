"""pip sources, offline (wheels written in tmp_path, found through PIP_FIND_LINKS with
PIP_NO_INDEX): a package installs into its private folder (not the interpreter), its entry point
extension loads, its prompt folder feeds templates and ``pi update`` upgrades it; a git package's
declared dependencies land in its clone."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import subprocess
import zipfile
from pathlib import Path

from cli.pi_harness import PiEnv, user_texts

from .conftest import commit


def wheel_files(version: str) -> dict[str, str]:
    info = f"pi_hello-{version}.dist-info"
    return {
        "pi_hello/__init__.py": (
            "import os\nfrom pathlib import Path\n\n"
            "def register(pi):\n"
            "    pi.on('session_start', lambda event, ctx: Path(os.environ['MARKER']).write_text('pip'))\n"
        ),
        "pi_hello/prompts/hey.md": "---\ndescription: hey\n---\nHey from pip $1\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: pi-hello\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/entry_points.txt": "[pi_cli.extensions]\nhello = pi_hello:register\n",
    }


def build_wheel(folder: Path, version: str = "1.0") -> Path:
    """A minimal valid wheel, written directly (no build backend, no network)."""
    wheel = folder / f"pi_hello-{version}-py3-none-any.whl"
    records = []
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in wheel_files(version).items():
            data = text.encode()
            archive.writestr(name, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            records.append(f"{name},sha256={digest},{len(data)}")
        records.append(f"pi_hello-{version}.dist-info/RECORD,,")
        archive.writestr(f"pi_hello-{version}.dist-info/RECORD", "\n".join(records) + "\n")
    return wheel


def test_pip_package_installs_privately_loads_and_updates(pi: PiEnv) -> None:
    assert pi.server is not None
    marker = pi.root / "marker"
    wheels = pi.root / "wheels"
    wheels.mkdir()
    build_wheel(wheels, "1.0")
    pi.env.update(MARKER=str(marker), PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheels))
    done = pi.run("install", "pip:pi-hello", model=False, timeout=120)
    assert done.returncode == 0, done.stderr
    site = pi.agent_dir / "pip" / "pi-hello"
    assert (site / "pi_hello" / "__init__.py").is_file()
    assert importlib.util.find_spec("pi_hello") is None  # not in the interpreter pi_cli runs in
    listed = pi.run("list", model=False)
    assert listed.stdout == f"User packages:\n  pip:pi-hello\n    {site}\n"

    pi.server.add_turns([{"text": "ok"}])
    done = pi.run("-p", "/hey there")
    assert done.returncode == 0, done.stderr
    assert marker.read_text() == "pip"
    assert user_texts(pi.bodies()[-1])[-1] == "Hey from pip there"

    build_wheel(wheels, "1.1")
    del pi.env["PI_OFFLINE"]
    done = pi.run("update", model=False, timeout=120)
    assert done.stdout.splitlines() == ["Updating pip:pi-hello...", "Updated 1 package:", "  pip:pi-hello 1.0 -> 1.1"]
    done = pi.run("remove", "pip:pi-hello", model=False)
    assert done.returncode == 0 and not site.exists()


def test_git_package_dependencies_install_into_its_clone(pi: PiEnv) -> None:
    """A git package whose pyproject.toml declares dependencies gets them in ``.pi-deps`` (offline:
    pip finds the wheel through PIP_FIND_LINKS), and its extension can import them."""
    assert pi.server is not None
    marker = pi.root / "marker"
    wheels = pi.root / "wheels"
    wheels.mkdir()
    build_wheel(wheels)
    pi.env.update(MARKER=str(marker), PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheels))
    repo = pi.root / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    uses = "from pi_hello import register as hello\n\ndef register(pi):\n    hello(pi)\n"
    pyproject = '[project]\nname = "uses-hello"\ndependencies = ["pi-hello"]\n'
    commit(repo, {"pyproject.toml": pyproject, "extensions/uses.py": uses}, "x")
    done = pi.run("install", f"git:{repo}", model=False, timeout=120)
    assert done.returncode == 0, done.stderr
    clone = pi.agent_dir / "git" / "local" / Path(*repo.parts[1:])
    assert (clone / ".pi-deps" / "pi_hello" / "__init__.py").is_file()
    pi.server.add_turns([{"text": "ok"}])
    done = pi.run("-p", "hi")
    assert done.returncode == 0, done.stderr
    assert marker.read_text() == "pip"
