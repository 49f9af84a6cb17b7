"""Source strings: pip, git (all of pi's forms plus local repositories) and local paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_cli.packages.sources import SourceError, parse_source, settings_form


@pytest.mark.parametrize(
    ("raw", "clone", "name", "ref"),
    [
        ("git:github.com/user/repo", "https://github.com/user/repo", "github.com/user/repo", None),
        ("git:github.com/user/repo@v1", "https://github.com/user/repo", "github.com/user/repo", "v1"),
        ("https://github.com/user/repo.git", "https://github.com/user/repo.git", "github.com/user/repo", None),
        ("https://github.com/user/repo@abc123", "https://github.com/user/repo", "github.com/user/repo", "abc123"),
        ("ssh://git@host.example/u/r", "ssh://git@host.example/u/r", "host.example/u/r", None),
        ("git:git@github.com:user/repo@main", "git@github.com:user/repo", "github.com/user/repo", "main"),
        ("git:file:///srv/repos/tools@v2", "/srv/repos/tools", "local/srv/repos/tools", "v2"),
        ("git:/srv/repos/tools", "/srv/repos/tools", "local/srv/repos/tools", None),
    ],
)
def test_git_forms(raw: str, clone: str, name: str, ref: str | None) -> None:
    source = parse_source(raw)
    assert (source.kind, source.location, source.name, source.ref) == ("git", clone, name, ref)
    assert source.pinned is (ref is not None)


def test_git_identity_ignores_the_ref() -> None:
    base = Path("/")
    assert parse_source("git:github.com/u/r@v1").identity(base) == parse_source("https://github.com/u/r").identity(base)


@pytest.mark.parametrize(
    ("raw", "name", "pinned"),
    [
        ("pip:pi-tools", "pi-tools", False),
        ("pip:Pi_Tools==1.2", "Pi_Tools", True),
        ("pip:pi-tools[extra]>=1", "pi-tools", False),
        ("pip:/tmp/dist/pi_tools-1.0-py3-none-any.whl", "pi_tools", False),
        ("pip:./src/pi-tools", "pi-tools", False),
    ],
)
def test_pip_forms(raw: str, name: str, pinned: bool) -> None:
    source = parse_source(raw)
    assert (source.kind, source.name, source.pinned) == ("pip", name, pinned)
    assert source.identity(Path("/")) == "pip:pi-tools"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("npm:@foo/bar", "Unsupported install source: npm:@foo/bar"),
        ("git:nohost", "Invalid git source: git:nohost"),
        ("git:github.com/onlyuser", "Invalid git source"),
        ("git:github.com/u/../../etc", "Invalid git source"),
        ("pip:", "Invalid pip source"),
        ("pip:/", "Invalid pip source: pip:/ (cannot tell the project name)"),
        ("pip:./..", "Invalid pip source"),
        ("  ", "Missing package source"),
    ],
)
def test_bad_sources_are_one_line(raw: str, message: str) -> None:
    with pytest.raises(SourceError) as caught:
        parse_source(raw)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_local_paths_are_stored_relative_to_the_settings_folder(tmp_path: Path) -> None:
    source = parse_source("./pkg")
    cwd = tmp_path / "project"
    assert settings_form(source, cwd, cwd / ".pi") == "../pkg"
    assert settings_form(source, cwd, tmp_path / "agent") == "../project/pkg"
    assert settings_form(parse_source("."), cwd, cwd) == "."
    assert source.identity(cwd) == f"local:{cwd / 'pkg'}"
