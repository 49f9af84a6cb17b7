"""What the approval dialog shows for an edit: the diff with the file's own line numbers (issue 33:
it showed -1/+1 for a change on line 3), and each replacement alone when the file cannot say."""

from __future__ import annotations

from pathlib import Path

from pi_cli.permissions.preview import preview_lines


def test_an_edit_shows_the_file_diff_with_its_line_numbers(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\nfour\n")
    lines = preview_lines("edit", {"path": "a.txt", "edits": [{"oldText": "three", "newText": "THREE"}]}, str(tmp_path))
    assert lines[0] == "edit a.txt"
    assert "-3 three" in lines and "+3 THREE" in lines


def test_an_edit_that_will_not_apply_shows_its_replacements(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    lines = preview_lines("edit", {"path": "a.txt", "edits": [{"oldText": "zzz", "newText": "yyy"}]}, str(tmp_path))
    assert any("zzz" in line for line in lines) and any("yyy" in line for line in lines)
    missing = preview_lines("edit", {"path": "gone.txt", "edits": [{"oldText": "a", "newText": "b"}]}, str(tmp_path))
    assert missing[0] == "edit gone.txt" and len(missing) > 1
