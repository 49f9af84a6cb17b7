"""``pi install|remove|list|update`` in process: settings written, clones made and removed, pi's
wording and exit codes, and nothing half-written on failure."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pi_cli.cli import main
from pi_cli.packages.startup import resolve_packages

from .conftest import Dirs, commit

LIST_USAGE = "pi list [--approve|--no-approve]"


def make_package(root: Path) -> Path:
    (root / "extensions").mkdir(parents=True)
    (root / "extensions" / "greet.py").write_text("def register(pi):\n    pass\n")
    (root / "skills" / "hello").mkdir(parents=True)
    (root / "skills" / "hello" / "SKILL.md").write_text("---\nname: hello\ndescription: says hello\n---\nhi\n")
    (root / "prompts").mkdir()
    (root / "prompts" / "review.md").write_text("---\ndescription: review\n---\nReview $1\n")
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def settings(path: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads(path.read_text())
    return data


def test_local_install_list_remove(dirs: Dirs, capsys: pytest.CaptureFixture[str]) -> None:
    make_package(dirs.root / "pkg")
    (dirs.agent / "settings.json").write_text(json.dumps({"theme": "dark"}))
    assert run(capsys, "install", "../pkg") == (0, "Installing ../pkg...\nInstalled ../pkg\n", "")
    assert settings(dirs.agent / "settings.json") == {"theme": "dark", "packages": ["../pkg"]}
    assert run(capsys, "install", str(dirs.root / "pkg"))[0] == 0  # same package: no second entry
    assert settings(dirs.agent / "settings.json")["packages"] == ["../pkg"]
    code, out, _ = run(capsys, "list")
    assert (code, out) == (0, f"User packages:\n  ../pkg\n    {dirs.root / 'pkg'}\n")
    found = resolve_packages(dirs.agent, dirs.project, trusted=True)
    (package,) = found.packages
    assert [p.name for p in package.contents.extensions] == ["greet.py"]
    assert found.resource_paths("skills", "user") == [str(dirs.root / "pkg" / "skills")]
    assert run(capsys, "remove", "../pkg") == (0, "Removing ../pkg...\nRemoved ../pkg\n", "")
    assert (dirs.root / "pkg").is_dir()  # a local package is never deleted
    assert run(capsys, "remove", "../pkg") == (1, "Removing ../pkg...\n", "No matching package found for ../pkg\n")
    assert run(capsys, "list") == (0, "No packages installed.\n", "")


def test_local_flag_writes_project_settings(dirs: Dirs, capsys: pytest.CaptureFixture[str]) -> None:
    make_package(dirs.project / "vendor" / "pkg")
    assert run(capsys, "install", "-l", "./vendor/pkg")[0] == 0
    assert settings(dirs.project / ".pi" / "settings.json") == {"packages": ["../vendor/pkg"]}
    assert not (dirs.agent / "settings.json").exists()
    # The project now holds .pi/settings.json: untrusted until decided, so -l is refused...
    code, _, err = run(capsys, "remove", "-l", "./vendor/pkg")
    assert (code, err) == (1, "Project is not trusted. Use --approve to modify local package config.\n")
    assert run(capsys, "list") == (0, "No packages installed.\n", "")  # ...and its packages are not listed
    code, out, _ = run(capsys, "list", "--approve")
    assert out == f"Project packages:\n  ../vendor/pkg\n    {dirs.project / 'vendor' / 'pkg'}\n"
    assert resolve_packages(dirs.agent, dirs.project, trusted=False).packages == []
    assert run(capsys, "remove", "-l", "-a", "./vendor/pkg")[0] == 0
    assert settings(dirs.project / ".pi" / "settings.json") == {"packages": []}


@pytest.mark.parametrize(
    ("argv", "err"),
    [
        (["install", "./missing"], "Error: Path does not exist: {project}/missing\n"),
        (["install", "npm:left-pad"], "Error: Unsupported install source: npm:left-pad (npm packages are for pi on …"),
        (["install", "git:file:///nowhere/repo"], "Error: git clone failed: fatal: …"),
        (["install"], "Missing install source.\nUsage: pi install <source> [-l] [--approve|--no-approve]\n"),
        (["install", "a", "b"], "Unexpected argument b.\nUsage: pi install <source> [-l] [--approve|--no-approve]\n"),
        (["list", "--bogus"], f'Unknown option --bogus for "list".\nUse "pi --help" or "{LIST_USAGE}".\n'),
    ],
)
def test_failures_are_one_line_and_write_nothing(
    dirs: Dirs, capsys: pytest.CaptureFixture[str], argv: list[str], err: str
) -> None:
    code, _, stderr = run(capsys, *argv)
    if err.endswith("…"):  # git's own wording differs between versions: one line, our prefix
        assert code == 1 and stderr.startswith(err[:-1]) and stderr.count("\n") == 1
    else:
        assert (code, stderr) == (1, err.format(project=dirs.project))
    assert not (dirs.agent / "settings.json").exists()
    assert not (dirs.agent / "git").exists()


def test_broken_settings_file_is_left_alone(dirs: Dirs, capsys: pytest.CaptureFixture[str], git_repo: Path) -> None:
    (dirs.agent / "settings.json").write_text("{ not json")
    code, _, err = run(capsys, "install", f"git:{git_repo}")
    assert code == 1 and err.startswith(f"Error: Invalid JSON in {dirs.agent / 'settings.json'}: ")
    assert (dirs.agent / "settings.json").read_text() == "{ not json"
    assert not (dirs.agent / "git").exists()  # refused before anything was fetched


def test_git_install_at_ref_update_and_remove(dirs: Dirs, capsys: pytest.CaptureFixture[str], git_repo: Path) -> None:
    clone = dirs.agent / "git" / "local" / Path(*git_repo.parts[1:])
    source = f"git:file://{git_repo}@v1"
    code, out, err = run(capsys, "install", source)
    assert (code, err) == (0, "") and out.endswith(f"Installed {source}\n")
    second = commit(git_repo, {"prompts/ver.md": "---\ndescription: v2\n---\nVersion two $1\n"}, "two")
    assert "Version one" in (clone / "prompts" / "ver.md").read_text()
    assert run(capsys, "update")[1].endswith("Packages are already up to date\n")  # pinned to v1
    # Re-declared without the ref: the same clone follows the branch.
    assert run(capsys, "install", f"git:{git_repo}")[0] == 0
    assert settings(dirs.agent / "settings.json")["packages"] == [f"git:{git_repo}"]
    assert "Version two" in (clone / "prompts" / "ver.md").read_text()
    third = commit(git_repo, {"prompts/ver.md": "---\ndescription: v3\n---\nVersion three $1\n"}, "three")
    code, out, _ = run(capsys, "update", f"git:{git_repo}")
    assert out.splitlines()[0] == f"Updating git:{git_repo}..."
    assert (code, out.splitlines()[-2:]) == (0, ["Updated 1 package:", f"  git:{git_repo} {second[:7]} -> {third[:7]}"])
    assert "Version three" in (clone / "prompts" / "ver.md").read_text()
    other = "git:example.com/other/repo"
    assert run(capsys, "update", other)[2] == f"Error: No matching package found for {other}\n"
    assert run(capsys, "remove", f"git:{git_repo}")[0] == 0
    assert not clone.exists() and not (dirs.agent / "git").exists()  # empty parents pruned
    assert settings(dirs.agent / "settings.json")["packages"] == []


def test_update_is_skipped_offline(
    dirs: Dirs, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_OFFLINE", "1")
    assert run(capsys, "update") == (0, "Skipped package updates (offline mode)\n", "")


def test_missing_clone_is_one_warning(dirs: Dirs, capsys: pytest.CaptureFixture[str], git_repo: Path) -> None:
    assert run(capsys, "install", f"git:{git_repo}")[0] == 0
    make_package(dirs.root / "kept")
    assert run(capsys, "install", "../kept")[0] == 0
    clone = dirs.agent / "git" / "local" / Path(*git_repo.parts[1:])
    shutil.rmtree(clone)
    found = resolve_packages(dirs.agent, dirs.project, trusted=True)
    assert found.warnings == [f'Extension package "git:{git_repo}": not installed (run: pi update git:{git_repo})']
    assert [p.declaration.source for p in found.packages] == ["../kept"]
    assert run(capsys, "update", f"git:{git_repo}")[0] == 0  # update installs it again
    assert (clone / "prompts" / "ver.md").is_file()


def test_command_help_and_self_update(dirs: Dirs, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "install", "--help")
    assert code == 0 and out.startswith("Usage:\n  pi install <source> [-l] [--approve|--no-approve]\n")
    code, _, err = run(capsys, "update", "self")
    assert code == 1 and err.startswith("pi_cli does not update itself")


def test_project_scope_git_install_stays_out_of_the_project(
    dirs: Dirs, capsys: pytest.CaptureFixture[str], git_repo: Path
) -> None:
    assert run(capsys, "install", "-l", f"git:{git_repo}")[0] == 0
    assert settings(dirs.project / ".pi" / "settings.json") == {"packages": [f"git:{git_repo}"]}
    assert sorted(p.name for p in (dirs.project / ".pi").iterdir()) == ["settings.json"]
    (clone,) = (dirs.agent / "projects").glob("project-*/git/local/**/prompts/ver.md")
    found = resolve_packages(dirs.agent, dirs.project, trusted=True)
    assert found.resource_paths("prompts", "project") == [str(clone.parent)]
    assert run(capsys, "remove", "-l", "-a", f"git:{git_repo}")[0] == 0
    assert not (dirs.agent / "projects").exists()


def test_a_bad_entry_costs_only_itself(dirs: Dirs, capsys: pytest.CaptureFixture[str]) -> None:
    make_package(dirs.root / "pkg")
    make_package(dirs.root / "other")
    (dirs.agent / "settings.json").write_text(json.dumps({"packages": [5, "../pkg"]}))
    found = resolve_packages(dirs.agent, dirs.project, trusted=True)
    assert [p.declaration.source for p in found.packages] == ["../pkg"] and found.warnings == []
    assert run(capsys, "install", "../other")[0] == 0
    assert settings(dirs.agent / "settings.json")["packages"] == [5, "../pkg", "../other"]  # nothing lost
    code, out, err = run(capsys, "list")
    assert code == 0
    assert err == f"Warning: Invalid settings in {dirs.agent / 'settings.json'}: packages[0] must be a source string\n"
    assert out.startswith("User packages:\n  ../pkg\n")


def test_pis_npm_packages_are_skipped_quietly(dirs: Dirs, capsys: pytest.CaptureFixture[str]) -> None:
    """settings.json is shared with pi (Node): its npm: packages are not pi_cli's to load or warn about."""
    (dirs.agent / "settings.json").write_text(json.dumps({"packages": ["npm:@foo/pi-tools", "git:nohost"]}))
    found = resolve_packages(dirs.agent, dirs.project, trusted=True)
    assert found.packages == []
    assert found.warnings == [
        'Extension package "git:nohost": Invalid git source: git:nohost (expected host/user/repo or a URL)'
    ]
    assert run(capsys, "list") == (0, "User packages:\n  npm:@foo/pi-tools\n  git:nohost\n", "")
