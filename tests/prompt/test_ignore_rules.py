"""The gitignore subset that filters the skill walk."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_cli.resources.ignore_rules import IgnoreRule, is_ignored, read_ignore_rules


def rules_for(tmp_path: Path, text: str, sub: str = "") -> list[IgnoreRule]:
    folder = tmp_path / sub if sub else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".gitignore").write_text(text, encoding="utf-8")
    return read_ignore_rules(str(folder), str(tmp_path))


@pytest.mark.parametrize(
    ("pattern", "path", "is_dir", "expected"),
    [
        ("*.log", "a/b/x.log", False, True),
        ("*.log", "x.logs", False, False),
        ("/top", "top", True, True),
        ("/top", "a/top", True, False),
        ("out/", "out", False, False),
        ("out/", "a/out", True, True),
        ("docs/*.md", "docs/a.md", False, True),
        ("docs/*.md", "docs/sub/a.md", False, False),
        ("a/**/z", "a/z", True, True),
        ("a/**/z", "a/b/c/z", True, True),
        ("**/cache", "deep/er/cache", True, True),
        ("file?.txt", "file1.txt", False, True),
        ("file?.txt", "file10.txt", False, False),
        ("[ab]x", "bx", False, True),
        ("[!ab]x", "bx", False, False),
        ("\\#hash", "#hash", False, True),
        ("# comment", "# comment", False, False),
    ],
)
def test_single_pattern(tmp_path: Path, pattern: str, path: str, is_dir: bool, expected: bool) -> None:
    assert is_ignored(path, is_dir, rules_for(tmp_path, pattern + "\n")) is expected


def test_last_match_wins_and_negation(tmp_path: Path) -> None:
    rules = rules_for(tmp_path, "*.md\n!keep.md\n")
    assert is_ignored("drop.md", False, rules)
    assert not is_ignored("keep.md", False, rules)


def test_nested_file_rules_are_scoped_to_their_folder(tmp_path: Path) -> None:
    rules = rules_for(tmp_path, "secret\n", sub="group")
    assert is_ignored("group/secret", True, rules)
    assert not is_ignored("secret", True, rules)
    assert not is_ignored("other/secret", True, rules)


def test_missing_ignore_files_give_no_rules(tmp_path: Path) -> None:
    assert read_ignore_rules(str(tmp_path), str(tmp_path)) == []
