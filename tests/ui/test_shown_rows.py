"""Frames written through the record of what the terminal shows: skipped pieces and scrolled
bands must leave the terminal exactly as writing every piece would (checked on a small VT
emulator), and a followed stream must scroll instead of rewriting the view."""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path
from typing import Any

from test_app import SIZE, ask, long_answer_app

from pi_cli.modes.interactive.widgets.main_screen import RowCroppedCompositor
from pi_cli.modes.interactive.widgets.shown_rows import Piece, ShownRows, compose

_SEQUENCE = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])|\x1bM|\n|[^\x1b\n]|\x1b")


class Terminal:
    """A VT100 subset: cursor placement, scrolling regions, line feed and reverse index at the
    margins, SGR (kept per cell, not interpreted). Enough to replay what a compositor writes."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.cells = [[("", " ")] * width for _ in range(height)]
        self.x = self.y = 0
        self.top, self.bottom = 0, height - 1
        self.style = ""

    def _blank(self) -> list[tuple[str, str]]:
        return [("", " ")] * self.width

    def feed(self, data: str) -> None:
        for match in _SEQUENCE.finditer(data):
            text = match.group(0)
            if text == "\n":
                if self.y == self.bottom:
                    del self.cells[self.top]
                    self.cells.insert(self.bottom, self._blank())
                else:
                    self.y = min(self.y + 1, self.height - 1)
            elif text == "\x1bM":
                if self.y == self.top:
                    del self.cells[self.bottom]
                    self.cells.insert(self.top, self._blank())
                else:
                    self.y = max(self.y - 1, 0)
            elif match.group(2) == "H":
                row, column = ([*match.group(1).split(";"), ""])[:2]
                self.y, self.x = int(row or 1) - 1, int(column or 1) - 1
            elif match.group(2) == "r":
                first, last = ([*match.group(1).split(";"), ""])[:2]
                self.top = int(first) - 1 if first else 0
                self.bottom = int(last) - 1 if last else self.height - 1
                self.x = self.y = 0
            elif match.group(2) == "m":
                self.style = "" if text == "\x1b[0m" else text
            elif match.group(2) is None and text != "\x1b":
                row = list(self.cells[self.y])
                row[self.x] = (self.style, text)
                self.cells[self.y] = row
                self.x += 1
            else:
                raise AssertionError(f"unexpected sequence {text!r}")

    def screen(self) -> list[list[tuple[str, str]]]:
        return [list(row) for row in self.cells]


def _write_all(pieces: dict[int, list[Piece]]) -> str:
    """What Textual would write for ``pieces``: every one of them, placed."""
    return "".join(f"\x1b[{y + 1};{x + 1}H{text}" for y in sorted(pieces) for x, _, text in pieces[y])


def _cut(text: str, rng: random.Random, x0: int = 0) -> list[Piece]:
    """``text`` (one cell per character) split into pieces at random columns."""
    cuts = sorted({x0, x0 + len(text), *(rng.randrange(x0, x0 + len(text)) for _ in range(rng.randrange(3)))})
    return [(a, b, text[a - x0 : b - x0]) for a, b in itertools.pairwise(cuts)]


def test_frames_through_the_record_leave_the_terminal_as_writing_every_piece_would() -> None:
    rng = random.Random(29)
    width, height = 12, 14
    lines = [f"{n:03d}-" + "".join(rng.choice("ab ") for _ in range(width - 4)) for n in range(400)]
    shown = ShownRows()
    fast, truth = Terminal(width, height), Terminal(width, height)
    view = 0
    for frame in range(600):
        kind = rng.random()
        if kind < 0.05:
            shown.forget()  # another screen painted: the record must not be trusted
            continue
        view = max(0, min(len(lines) - height, view + rng.choice([-3, -1, 0, 1, 1, 2, 5])))
        if rng.random() < 0.2:
            lines[view + rng.randrange(height)] = "".join(rng.choice("xyz ") for _ in range(width))
        band_top, band_bottom = 1, height - 2  # a header row and a footer pair stay put
        pieces: dict[int, list[Piece]] = {}
        if kind < 0.6:  # the followed view: its whole rows, and sometimes the footer
            for y in range(band_top, band_bottom):
                # Cuts follow the content, as a widget's do, except now and then.
                line = lines[view + y]
                pieces[y] = _cut(line, rng if rng.random() < 0.1 else random.Random(line))
            if rng.random() < 0.5:
                pieces[height - 1] = _cut(f"frame {frame}".ljust(width)[:width], rng)
        else:  # a part of some rows (a streamed line, a scrollbar column)
            for y in rng.sample(range(height), rng.randrange(1, 4)):
                x0 = rng.randrange(width - 1)
                pieces[y] = _cut(lines[view + y][x0 : rng.randrange(x0 + 1, width + 1)], rng, x0)
        fast.feed(compose(pieces, width, shown, height))
        truth.feed(_write_all(pieces))
        assert fast.screen() == truth.screen(), frame
    assert shown.scrolls > 50  # the check above covered scrolled bands, not only skipped pieces


def test_a_followed_view_moving_up_two_lines_scrolls_and_writes_only_the_new_lines() -> None:
    width, height = 20, 30
    rows = [f"line {n}".ljust(width) for n in range(40)]
    shown = ShownRows()
    shown.reset([[(0, width, rows[y])] for y in range(height)])
    pieces = {y: [(0, width, rows[y + 2])] for y in range(height)}
    out = compose(pieces, width, shown, height)
    assert out.startswith(f"\x1b[1;{height}r\x1b[{height};1H\n\n\x1b[r")
    assert "line 30" in out and "line 31" in out
    assert "line 29" not in out and "line 2 " not in out
    assert len(out) < 3 * width + 40


def test_unknown_rows_are_written_and_equal_pieces_are_skipped() -> None:
    shown = ShownRows()
    first = compose({0: [(0, 3, "abc")], 1: [(0, 3, "def")]}, 3, shown, 2)
    assert first == "\x1b[1;1Habc\x1b[2;1Hdef"
    assert compose({0: [(0, 3, "abc")], 1: [(0, 3, "deF")]}, 3, shown, 2) == "\x1b[2;1HdeF"
    assert compose({0: [(1, 2, "X")]}, 3, shown, 2) == "\x1b[1;2HX"
    # The piece at column 0 was cut by the X: the row is no longer known as "abc".
    assert compose({0: [(0, 3, "abc")]}, 3, shown, 2) == "\x1b[1;1Habc"
    shown.forget()
    assert compose({1: [(0, 3, "deF")]}, 3, shown, 2) == "\x1b[2;1HdeF"


async def test_a_scrolled_transcript_reaches_the_terminal_as_a_scroll(faux: Any, workdir: Path) -> None:
    """Through the app's own compositor: a full paint, the transcript scrolled by a few lines,
    the partial update that follows; replayed on the emulator it equals a fresh full paint."""
    app = long_answer_app(faux, workdir)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, app)
        compositor = app.screen._compositor
        assert isinstance(compositor, RowCroppedCompositor)
        width, height = SIZE
        terminal = Terminal(width, height)
        terminal.feed(compositor.render_full_update().render_segments(app.console))
        transcript = app.transcript
        for lines in (-7, -1, 3):
            transcript.scroll_relative(y=lines, animate=False, immediate=True)
            await pilot.pause()
            compositor._dirty_regions.add(transcript.region)
            scrolls = compositor.shown.scrolls
            update = compositor.render_partial_update()
            assert update is not None
            written = update.render_segments(app.console)
            assert compositor.shown.scrolls == scrolls + 1, lines
            assert len(written) < 4000, lines  # the whole view is ~10x that
            terminal.feed(written)
            fresh = Terminal(width, height)
            fresh.feed(compositor.render_full_update().render_segments(app.console))
            assert terminal.screen() == fresh.screen(), lines
