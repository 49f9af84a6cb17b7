"""What a package folder contributes: conventional folders, the [tool.pi] manifest, filters."""

from __future__ import annotations

from pathlib import Path

from pi_cli.packages.contents import package_contents


def tree(root: Path, files: list[str]) -> Path:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    return root


def names(paths: list[Path], root: Path) -> list[str]:
    return [p.relative_to(root).as_posix() for p in paths]


def test_conventional_folders(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        ["extensions/a.py", "extensions/_private.py", "extensions/pkg/__init__.py", "extensions/notes.txt",
         "skills/s/SKILL.md", "prompts/p.md", "themes/dark.json"],
    )  # fmt: skip
    found = package_contents(root)
    assert names(found.extensions, root) == ["extensions/a.py", "extensions/pkg"]
    assert names(found.skills, root) == ["skills"] and names(found.prompts, root) == ["prompts"]
    assert names(found.themes, root) == ["themes/dark.json"]
    assert package_contents(root / "extensions" / "a.py").extensions == [root / "extensions" / "a.py"]


def test_manifest_lists_replace_the_folders(tmp_path: Path) -> None:
    root = tree(tmp_path, ["extensions/ignored.py", "src/ext.py", "res/prompts/a.md", "res/prompts/draft.md"])
    (root / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.pi]\nextensions = ["src/ext.py"]\n'
        'prompts = ["res/prompts/*.md", "!res/prompts/draft.md"]\n'
    )
    found = package_contents(root)
    assert names(found.extensions, root) == ["src/ext.py"]
    assert names(found.prompts, root) == ["res/prompts/a.md"]
    assert found.skills == [] and found.problems == []


def test_bad_manifest_is_a_problem_line(tmp_path: Path) -> None:
    root = tree(tmp_path, ["prompts/a.md"])
    (root / "pyproject.toml").write_text("[tool.pi]\nprompts = 3\n")
    found = package_contents(root)
    assert found.problems == [f"{root / 'pyproject.toml'}: tool.pi.prompts must be a list of paths"]


def test_settings_filters_narrow(tmp_path: Path) -> None:
    files = ["extensions/a.py", "extensions/b.py", "prompts/one.md", "prompts/two.md", "skills/s/SKILL.md"]
    root = tree(tmp_path, files)
    found = package_contents(root, {"extensions": ["!extensions/b.py"], "prompts": ["prompts/two.md"], "skills": []})
    assert names(found.extensions, root) == ["extensions/a.py"]
    assert names(found.prompts, root) == ["prompts/two.md"]
    assert found.skills == []
    found = package_contents(root, {"prompts": ["-prompts/one.md", "+prompts/one.md"]})
    assert names(found.prompts, root) == ["prompts/two.md", "prompts/one.md"]


def test_which_dash_e_folders_are_packages(tmp_path: Path) -> None:
    from pi_cli.packages.temporary import is_package_spec

    tree(tmp_path, ["conventional/extensions/a.py", "loose/a.py", "loose/pyproject.toml", "manifest/src/a.py"])
    (tmp_path / "manifest" / "pyproject.toml").write_text('[tool.pi]\nextensions = ["src/a.py"]\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "extensions").mkdir()
    assert [is_package_spec(n, tmp_path) for n in ("conventional", "loose", "manifest", "pkg")] == [
        True, False, True, False,
    ]  # fmt: skip
    assert is_package_spec("git:github.com/u/r", tmp_path) and is_package_spec("pip:x", tmp_path)
