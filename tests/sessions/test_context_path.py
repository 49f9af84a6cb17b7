"""The context of the root → leaf path: the last model (change or reply) and thinking level win
wherever they stand, and a damaged file whose parents form a cycle still gives a context."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pi_cli.store.context import build_session_context
from pi_cli.store.entry_index import EntryIndex


def _entry(eid: str, parent: str | None, kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": eid, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z", **fields}


def _message(eid: str, parent: str | None, role: str, **fields: Any) -> dict[str, Any]:
    return _entry(eid, parent, "message", message={"role": role, "content": eid, **fields})


def test_the_last_model_and_thinking_level_on_the_path_win() -> None:
    path = [
        _entry("a", None, "model_change", provider="p0", modelId="m0"),
        _entry("b", "a", "thinking_level_change", thinkingLevel="low"),
        _message("c", "b", "user"),
        _message("d", "c", "assistant", provider="p1", model="m1"),
        _entry("e", "d", "thinking_level_change", thinkingLevel="high"),
        _message("f", "e", "user"),
    ]
    context = build_session_context(path)
    assert (context.model, context.thinking_level) == ({"provider": "p1", "modelId": "m1"}, "high")
    assert [m["content"] for m in context.messages] == ["c", "d", "f"]
    path.append(_entry("g", "f", "model_change", provider="p2", modelId="m2"))
    assert build_session_context(path).model == {"provider": "p2", "modelId": "m2"}
    assert build_session_context(path[2:3]).model is None


def test_a_parent_cycle_ends_the_walk_at_the_first_repeat() -> None:
    index = EntryIndex()
    index.reset([_message("x", "z", "user"), _message("y", "x", "assistant"), _message("z", "y", "user")], None)
    assert index.leaf_id == "z"
    assert [m["content"] for m in index.build_context().messages] == ["x", "y", "z"]
    assert [e["id"] for e in index.get_branch()] == ["x", "y", "z"]


@given(
    st.lists(
        st.tuples(st.sampled_from(["previous", "previous", "none", "earlier", "later", "missing"]), st.booleans()),
        min_size=1,
        max_size=12,
    ),
    st.integers(min_value=-1, max_value=11),
)
def test_the_path_is_the_walk_from_the_leaf_whatever_the_parents(shape: list[tuple[str, bool]], leaf: int) -> None:
    """The never-branched chain is taken as the entries themselves: it must be exactly what walking
    the parents from the leaf gives, for chains, branches, repeated ids, cycles and moved leaves."""
    entries: list[dict[str, Any]] = []
    for number, (parent, repeat) in enumerate(shape):
        eid = f"e{number - 1}" if repeat and number else f"e{number}"
        pid = {"previous": f"e{number - 1}" if number else None, "none": None, "earlier": "e0",
               "later": f"e{len(shape) - 1}", "missing": "gone"}[parent]  # fmt: skip
        entries.append(_message(eid, pid, "user"))
    index = EntryIndex()
    index.reset(entries, None)
    if 0 <= leaf < len(entries):
        index.leaf_id = entries[leaf]["id"]
    walked = list(index._iter_slim_branch())
    walked.reverse()
    assert [id(e) for e in index._slim_path()] == [id(e) for e in walked]


def test_a_chain_that_never_branched_is_the_entries_in_order() -> None:
    entries = [_message(f"e{n}", f"e{n - 1}" if n else None, "user") for n in range(50)]
    index = EntryIndex()
    index.reset(entries, None)
    assert index._is_one_chain() and index._slim_path() == entries
    index.leaf_id = "e30"  # moved back: the walk
    assert not index._is_one_chain() and index._slim_path() == entries[:31]
