"""Fuzzing the edit tool's matcher and argument handling.

Properties: :func:`apply_edits` raises nothing but :class:`EditError` (a message for the model);
an exact, unique edit changes exactly that span; the tool keeps a file's BOM and CRLF endings; the
argument shim never raises on whatever a model sends.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from pi_cli.tools.edit import EditTool
from pi_cli.tools.edit_match import Edit, EditError, apply_edits, normalize_to_lf

from .fuzz_settings import FUZZ

_PIECES = [
    "a",
    "b",
    "ab",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\u00a0",
    "\u2019",
    "'",
    "\u201c",
    '"',
    "\u2014",
    "-",
    "\ufb01",
    "fi",
    "é",
    "e\u0301",
    "\u3000",
    "\U0001f600",
    "x = 1",
    "\\",
]
texty = st.lists(st.sampled_from(_PIECES), max_size=25).map("".join)


@FUZZ
@given(texty, st.lists(st.tuples(texty, texty), min_size=0, max_size=4))
def test_apply_edits_raises_only_edit_error(content: str, pairs: list[tuple[str, str]]) -> None:
    content = normalize_to_lf(content)
    try:
        applied = apply_edits(content, [Edit(o, n) for o, n in pairs], "f.txt")
    except EditError as exc:
        assert "f.txt" in str(exc) or "edits must contain" in str(exc)
    else:
        assert applied.new_content != applied.base_content


@FUZZ
@given(texty, st.integers(0, 10_000), st.integers(1, 12), texty)
def test_exact_unique_edit_replaces_that_span(content: str, start: int, size: int, new: str) -> None:
    content = normalize_to_lf(content)
    assume(content)
    start %= len(content)
    old = content[start : start + size]
    assume(old and content.count(old) == 1 and old != normalize_to_lf(new))
    applied = apply_edits(content, [Edit(old, new)], "f.txt")
    assert not applied.used_fuzzy
    assert applied.new_content == content.replace(old, normalize_to_lf(new), 1)


@FUZZ
@given(texty, st.integers(0, 10_000), st.integers(1, 12), texty, st.booleans(), st.booleans())
async def test_edit_tool_keeps_bom_and_crlf(
    tmp_path: Path, content: str, start: int, size: int, new: str, bom: bool, crlf: bool
) -> None:
    lf = normalize_to_lf(content)
    assume(lf)
    start %= len(lf)
    old = lf[start : start + size]
    assume(old and lf.count(old) == 1 and old != normalize_to_lf(new))
    crlf = crlf and "\n" in lf  # the ending is read off the first line break; none means LF
    on_disk = ("\ufeff" if bom else "") + (lf.replace("\n", "\r\n") if crlf else lf)
    path = tmp_path / "f.txt"
    path.write_bytes(on_disk.encode("utf-8"))
    tool = EditTool(str(tmp_path))
    await tool.execute("t1", tool.prepare_arguments({"path": "f.txt", "oldText": old, "newText": new}))
    after = path.read_bytes().decode("utf-8")
    expected_lf = lf.replace(old, normalize_to_lf(new), 1)
    expected = ("\ufeff" if bom else "") + (expected_lf.replace("\n", "\r\n") if crlf else expected_lf)
    assert after == expected


json_any = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


@FUZZ
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "path": json_any,
            "edits": st.one_of(json_any, st.text(max_size=30)),
            "oldText": json_any,
            "newText": json_any,
        },
    )
)
def test_prepare_arguments_never_raises(args: dict[str, Any]) -> None:
    out = EditTool("/nonexistent").prepare_arguments(args)
    assert isinstance(out, dict)


_WHITESPACE_OLD_TEXT = """
import resource
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from pi_cli.tools.edit_match import Edit, EditError, apply_edits
try:
    apply_edits("abc\\n", [Edit("  ", "x")], "f.txt")
except EditError as exc:
    print("EditError:", exc)
"""


def test_whitespace_only_old_text_is_a_clear_error() -> None:
    # Used to loop forever (fuzzy form "" and find("", i) == i), allocating without bound; so it runs
    # in a child with a 1 GiB address-space cap and a timeout.
    try:
        result = subprocess.run([sys.executable, "-c", _WHITESPACE_OLD_TEXT], capture_output=True, text=True, timeout=3)
    except subprocess.TimeoutExpired:
        raise AssertionError("apply_edits did not return within 3 s (a correct one takes milliseconds)") from None
    assert result.returncode == 0, result.stderr[-500:]
    assert "EditError: Could not find" in result.stdout
