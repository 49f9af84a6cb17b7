"""Images out: the protocol chosen per terminal, the sequences built from checked base64 only, and
inline mode drawing a tool result's image where the terminal speaks a protocol."""

from __future__ import annotations

import base64

from pi_cli.modes.inline import render
from pi_cli.modes.terminal_images import encode, image_protocol

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg=="
IMAGE = {"type": "image", "data": PNG, "mimeType": "image/png"}


def test_the_protocol_follows_the_terminal_and_can_be_forced() -> None:
    assert image_protocol({"KITTY_WINDOW_ID": "1"}) == "kitty"
    assert image_protocol({"TERM_PROGRAM": "iTerm.app"}) == "iterm2"
    assert image_protocol({"TERM_PROGRAM": "WezTerm"}) == "iterm2"
    assert image_protocol({"TERM": "xterm-256color"}) is None
    assert image_protocol({"KITTY_WINDOW_ID": "1", "TMUX": "/tmp/x"}) is None  # tmux drops them
    assert image_protocol({"PI_IMAGE_PROTOCOL": "iterm2", "TMUX": "/tmp/x"}) == "iterm2"
    assert image_protocol({"PI_IMAGE_PROTOCOL": "none", "KITTY_WINDOW_ID": "1"}) is None
    assert image_protocol({"KITTY_WINDOW_ID": "1"}, show_images=False) is None


def test_sequences_carry_only_the_checked_image() -> None:
    kitty = encode(IMAGE, "kitty", 40)  # type: ignore[arg-type]
    assert kitty.startswith("\x1b_Ga=T,f=100,c=40,m=0;") and kitty.endswith("\x1b\\\n")
    assert base64.b64decode(kitty.split(";", 1)[1].split("\x1b")[0]) == base64.b64decode(PNG)
    iterm = encode(IMAGE, "iterm2")  # type: ignore[arg-type]
    assert iterm.startswith("\x1b]1337;File=inline=1;size=70;width=60;") and iterm.endswith("\x07\n")
    hostile = {"type": "image", "data": "AAAA\x1b]0;title\x07", "mimeType": "image/png"}
    assert encode(hostile, "iterm2") == ""  # type: ignore[arg-type]
    assert encode({**IMAGE, "mimeType": "image/jpeg"}, "kitty") == ""  # type: ignore[arg-type]
    big = {"type": "image", "data": base64.b64encode(bytes(10_000)).decode(), "mimeType": "image/png"}
    chunks = encode(big, "kitty").count("\x1b_G")  # type: ignore[arg-type]
    assert chunks == 4  # 13,336 base64 characters in 4,096-character chunks


def test_inline_draws_a_tool_results_image_only_with_a_protocol() -> None:
    result = {"content": [{"type": "text", "text": "read a.png"}, IMAGE]}
    drawn = render.result_images(result, "kitty", 30)
    assert len(drawn) == 1 and isinstance(drawn[0], render.TerminalImage)
    assert drawn[0].sequence.startswith("\x1b_Ga=T,f=100,c=30")
    assert render.result_images(result, None, 30) == []


def test_a_protocol_forced_inside_tmux_goes_through_its_passthrough() -> None:
    from pi_cli.modes.terminal_images import in_tmux

    assert in_tmux({"TMUX": "/tmp/tmux-0/default,1,0"}) and not in_tmux({})
    result = {"content": [IMAGE]}
    [drawn] = render.result_images(result, "kitty", 30, tmux=True)
    assert isinstance(drawn, render.TerminalImage) and drawn.sequence.startswith("\x1bPtmux;\x1b\x1b_Ga=T")
