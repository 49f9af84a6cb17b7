"""The editor rules the TUI and inline mode share (pi_cli/modes/input_routing.py)."""

from __future__ import annotations

import pytest

from pi_cli.modes import input_routing
from pi_cli.modes.input_routing import DoublePress, Route, restored_editor_text, route_input


@pytest.mark.parametrize(
    ("text", "running", "follow_up", "expected"),
    [
        ("   ", False, False, Route("empty", "")),
        (" hello ", False, False, Route("prompt", "hello")),
        ("hello", True, False, Route("steer", "hello")),
        ("hello", True, True, Route("follow_up", "hello")),
        ("/model x", True, False, Route("command", "/model x")),
        ("!ls -la", False, False, Route("bash", "ls -la")),
        ("!! make", False, False, Route("bash", "make", exclude_from_context=True)),
        ("!ls", True, False, Route("steer", "!ls")),  # never run a command behind a busy agent
    ],
)
def test_route_input(text: str, running: bool, follow_up: bool, expected: Route) -> None:
    assert route_input(text, running=running, follow_up=follow_up) == expected


def test_restored_text_joins_with_blank_lines_and_keeps_the_draft_last() -> None:
    assert restored_editor_text(["a", "b"], "") == "a\n\nb"
    assert restored_editor_text(["a"], "draft") == "a\n\ndraft"
    assert restored_editor_text([], "draft") == "draft"


def test_double_press_within_the_window_only(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([10.0, 10.5, 20.0, 21.5, 21.9])
    monkeypatch.setattr(input_routing.time, "monotonic", lambda: next(clock))
    press = DoublePress(window=1.0)
    assert press.press() is False
    assert press.press() is True  # 0.5 s later
    assert press.press() is False  # the pair was used up; a new first press
    assert press.press() is False  # 1.5 s later: too slow
    assert press.press() is True
