"""Fixtures for the sandbox tests: a project, an outside folder, a private temp dir, a fake HOME
holding the secrets the sandbox must protect, and a skip for kernels without Landlock."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pi_cli.sandbox import landlock
from pi_cli.sandbox.confinement import MIN_FS_ABI, MIN_NET_ABI

ABI = landlock.abi_version()
needs_landlock = pytest.mark.skipif(
    ABI < MIN_NET_ABI,
    reason=f"needs Landlock ABI {MIN_NET_ABI} (filesystem and TCP); this kernel has ABI {ABI}",
)
needs_fs_landlock = pytest.mark.skipif(
    ABI < MIN_FS_ABI, reason=f"needs Landlock ABI {MIN_FS_ABI}; this kernel has ABI {ABI}"
)

SECRETS = {
    ".ssh/id_rsa": "SECRET-SSH-KEY",
    ".aws/credentials": "SECRET-AWS",
    ".config/gcloud/credentials.db": "SECRET-GCLOUD",
    ".netrc": "SECRET-NETRC",
    ".docker/config.json": "SECRET-DOCKER",
    ".pi/agent/auth.json": "SECRET-PI-AUTH",
}


@dataclass
class Places:
    root: Path
    project: Path
    outside: Path
    temp: Path
    home: Path

    def snapshot(self, folder: Path | None = None) -> dict[str, str]:
        """Every entry under ``folder`` (default: outside) with a digest of its contents."""
        base = folder or self.outside
        out: dict[str, str] = {}
        for path in sorted(base.rglob("*")):
            rel = str(path.relative_to(base))
            if path.is_symlink():
                out[rel] = "link:" + os.readlink(path)
            elif path.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        return out


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Places]:
    root = tmp_path
    project, outside, temp, home = (root / n for n in ("project", "outside", "tmp", "home"))
    for folder in (project, outside, temp, home):
        folder.mkdir()
    (outside / "keep.txt").write_text("outside file\n")
    (outside / "sub").mkdir()
    (outside / "sub" / "deep.txt").write_text("deep\n")
    (project / "inside.txt").write_text("inside file\n")
    for rel, text in SECRETS.items():
        path = home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")
    (home / "notes.txt").write_text("readable note\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(home / ".pi" / "agent"))
    yield Places(root, project, outside, temp, home)
