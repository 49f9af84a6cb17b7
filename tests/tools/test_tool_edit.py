"""The edit tool: matching, errors, line endings, BOM, diff and concurrency."""

from __future__ import annotations

import asyncio
import os

import pytest
from tool_helpers import read_bytes, text_of, write_file

from pi_cli.agent.types import AgentTool
from pi_cli.tools.diff import generate_diff
from pi_cli.tools.edit_match import Edit, EditError, apply_edits, normalize_for_fuzzy_match
from pi_cli.tools.files.locks import active_lock_count


async def edit(tool: AgentTool, path: str, *pairs: tuple[str, str]) -> tuple[str, dict[str, object]]:
    args = {"path": path, "edits": [{"oldText": old, "newText": new} for old, new in pairs]}
    result = await tool.execute("t", args, None, None)
    return text_of(result), result.details


async def test_single_edit_with_diff_details(tools: dict[str, AgentTool], cwd: str) -> None:
    path = write_file(cwd, "a.py", "".join(f"line {i}\n" for i in range(1, 13)))
    text, details = await edit(tools["edit"], "a.py", ("line 6\n", "LINE SIX\n"))
    assert text == "Successfully replaced 1 block(s) in a.py."
    assert read_bytes(path).decode().split("\n")[5] == "LINE SIX"
    assert details["firstChangedLine"] == 6
    assert details["diff"] == "\n".join(
        [
            "    ...",
            "  2 line 2",
            "  3 line 3",
            "  4 line 4",
            "  5 line 5",
            "- 6 line 6",
            "+ 6 LINE SIX",
            "  7 line 7",
            "  8 line 8",
            "  9 line 9",
            " 10 line 10",
            "    ...",
        ]
    )


async def test_multiple_edits_match_the_original(tools: dict[str, AgentTool], cwd: str) -> None:
    path = write_file(cwd, "m.txt", "alpha\nbeta\ngamma\n")
    # The second edit's oldText only exists in the original, not after the first edit.
    text, _ = await edit(tools["edit"], "m.txt", ("alpha", "beta-ish"), ("beta\n", "BETA\n"))
    assert text == "Successfully replaced 2 block(s) in m.txt."
    assert read_bytes(path) == b"beta-ish\nBETA\ngamma\n"


async def test_crlf_and_bom_are_preserved(tools: dict[str, AgentTool], cwd: str) -> None:
    path = write_file(cwd, "win.txt", b"\xef\xbb\xbffirst\r\nsecond\r\nthird\r\n")
    await edit(tools["edit"], "win.txt", ("first\nsecond", "one\ntwo\nthree"))
    assert read_bytes(path) == b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\nthird\r\n"


async def test_lf_file_stays_lf(tools: dict[str, AgentTool], cwd: str) -> None:
    path = write_file(cwd, "lf.txt", "a\nb\n")
    await edit(tools["edit"], "lf.txt", ("a\r\nb", "x\ny"))  # model sent CRLF; file is LF
    assert read_bytes(path) == b"x\ny\n"


async def test_tolerant_match_quotes_dashes_nbsp_trailing_space(tools: dict[str, AgentTool], cwd: str) -> None:
    path = write_file(cwd, "t.py", "print(\u201chello\u201d)   \nx = 1 \u2013 2\u00a0# note\nkeep\n")
    await edit(tools["edit"], "t.py", ('print("hello")\nx = 1 - 2 # note', 'print("bye")\nx = 3'))
    # As in pi, the tolerant pass rewrites the file in normalised form.
    assert read_bytes(path) == b'print("bye")\nx = 3\nkeep\n'


def test_fuzzy_normalisation_rules() -> None:
    assert normalize_for_fuzzy_match("\u2018a\u2019 \u201cb\u201d") == "'a' \"b\""
    assert normalize_for_fuzzy_match("a\u2014b\u2212c\u2010d") == "a-b-c-d"
    assert normalize_for_fuzzy_match("x\u3000y\u202fz  \t\nw") == "x y z\nw"
    assert normalize_for_fuzzy_match("\uff21") == "A"  # NFKC


async def test_not_found(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "f.txt", "abc\n")
    with pytest.raises(EditError) as info:
        await edit(tools["edit"], "f.txt", ("xyz", "q"))
    assert str(info.value) == (
        "Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines."
    )
    with pytest.raises(EditError, match=r"^Could not find edits\[1\] in f\.txt\. The oldText must match"):
        await edit(tools["edit"], "f.txt", ("abc", "q"), ("xyz", "q"))


async def test_not_unique_reports_count(tools: dict[str, AgentTool], cwd: str) -> None:
    path = write_file(cwd, "dup.txt", "foo\nbar\nfoo\nfoo\n")
    with pytest.raises(EditError) as info:
        await edit(tools["edit"], "dup.txt", ("foo", "baz"))
    assert str(info.value) == (
        "Found 3 occurrences of the text in dup.txt. The text must be unique. Please provide more context to "
        "make it unique."
    )
    with pytest.raises(EditError, match=r"^Found 3 occurrences of edits\[1\] in dup\.txt\. Each oldText must be"):
        await edit(tools["edit"], "dup.txt", ("bar", "B"), ("foo", "baz"))
    assert read_bytes(path) == b"foo\nbar\nfoo\nfoo\n"  # nothing written on error


async def test_overlapping_edits(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "o.txt", "one two three\n")
    with pytest.raises(EditError) as info:
        await edit(tools["edit"], "o.txt", ("two three", "2 3"), ("one two", "1 2"))
    assert str(info.value) == (
        "edits[1] and edits[0] overlap in o.txt. Merge them into one edit or target disjoint regions."
    )


async def test_no_change_and_empty_old_text(tools: dict[str, AgentTool], cwd: str) -> None:
    write_file(cwd, "s.txt", "same\n")
    with pytest.raises(EditError, match=r"^No changes made to s\.txt\. The replacement produced identical content"):
        await edit(tools["edit"], "s.txt", ("same", "same"))
    with pytest.raises(EditError, match=r"^No changes made to s\.txt\. The replacements produced identical content"):
        await edit(tools["edit"], "s.txt", ("sa", "sa"), ("me", "me"))
    with pytest.raises(EditError, match=r"^oldText must not be empty in s\.txt\.$"):
        await edit(tools["edit"], "s.txt", ("", "x"))
    with pytest.raises(EditError, match=r"^edits\[1\]\.oldText must not be empty in s\.txt\.$"):
        await edit(tools["edit"], "s.txt", ("same", "x"), ("", "x"))


async def test_missing_file_and_empty_edits(tools: dict[str, AgentTool], cwd: str) -> None:
    with pytest.raises(EditError, match=r"^Could not edit file: ghost\.txt\. Error code: ENOENT\.$"):
        await edit(tools["edit"], "ghost.txt", ("a", "b"))
    write_file(cwd, "e.txt", "a")
    invalid = r"^Edit tool input is invalid\. edits must contain at least one replacement\.$"
    with pytest.raises(EditError, match=invalid):
        await tools["edit"].execute("t", {"path": "e.txt", "edits": []}, None, None)
    with pytest.raises(EditError, match="at least one replacement"):
        apply_edits("a", [], "e.txt")


def test_prepare_arguments_normalises_legacy_and_json_string(tools: dict[str, AgentTool]) -> None:
    prepare = tools["edit"].prepare_arguments
    assert prepare({"path": "p", "oldText": "a", "newText": "b"}) == {
        "path": "p",
        "edits": [{"oldText": "a", "newText": "b"}],
    }
    assert prepare({"path": "p", "edits": '[{"oldText": "a", "newText": "b"}]'}) == {
        "path": "p",
        "edits": [{"oldText": "a", "newText": "b"}],
    }
    untouched = {"path": "p", "edits": [{"oldText": "a", "newText": "b"}]}
    assert prepare(untouched) == untouched


def test_schema_shape(tools: dict[str, AgentTool]) -> None:
    schema = tools["edit"].parameters
    assert schema["required"] == ["path", "edits"]
    items = schema["properties"]["edits"]
    assert items["minItems"] == 1 and items["items"]["additionalProperties"] is False
    assert items["items"]["required"] == ["oldText", "newText"]


async def test_parallel_edits_of_one_file_do_not_race(tools: dict[str, AgentTool], cwd: str) -> None:
    count = 30
    path = write_file(cwd, "race.txt", "".join(f"item {i}: old\n" for i in range(count)))
    await asyncio.gather(*(edit(tools["edit"], "race.txt", (f"item {i}: old", f"item {i}: new")) for i in range(count)))
    assert read_bytes(path).decode() == "".join(f"item {i}: new\n" for i in range(count))
    assert active_lock_count() == 0  # lock entries are dropped once nobody holds them


async def test_edit_via_symlink_and_relative_spellings_share_a_lock(tools: dict[str, AgentTool], cwd: str) -> None:
    path = write_file(cwd, "real.txt", "a1\na2\n")
    os.symlink(path, os.path.join(cwd, "alias.txt"))
    await asyncio.gather(
        edit(tools["edit"], "alias.txt", ("a1", "b1")),
        edit(tools["edit"], "./real.txt", ("a2", "b2")),
    )
    assert read_bytes(path) == b"b1\nb2\n"
    assert os.readlink(os.path.join(cwd, "alias.txt")) == path


def test_invalid_bytes_survive_an_edit(tmp_path: os.PathLike[str]) -> None:
    applied = apply_edits("x\udcff y", [Edit("y", "z")], "f")
    assert applied.new_content == "x\udcff z"


def test_diff_gap_between_changes_and_pure_insert() -> None:
    old = "".join(f"{i}\n" for i in range(1, 21))
    new = old.replace("2\n", "two\n", 1).replace("19\n", "nineteen\n")
    result = generate_diff(old, new)
    assert result.first_changed_line == 2
    lines = result.diff.split("\n")
    assert lines[:3] == ["  1 1", "- 2 2", "+ 2 two"]
    assert "    ..." in lines  # the long unchanged middle collapses
    assert lines[-3:] == ["-19 19", "+19 nineteen", " 20 20"]
    inserted = generate_diff("a\nb\n", "a\nnew\nb\n")
    assert inserted.diff.split("\n") == [" 1 a", "+2 new", " 2 b"]
    assert inserted.first_changed_line == 2
