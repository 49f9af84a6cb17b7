"""Benchmark ``markdown``: what the TUI's Markdown costs, per piece and per second of a fast stream.

Two parts:

* ``pieces``: µs to render one typical prose piece, one code piece (a slice of an open fence) and
  one table piece at 118 columns — Rich's Markdown as the TUI used it before issue 29 (shared
  parser, soft breaks made hard) against pi_cli's own renderer; medians of ``--repeat`` runs.
* ``stream``: the real app headless (``run_test``, 120×40) answering from the faux provider paced
  at ``--rate`` tokens/s in 4-char deltas (prose or one code fence); CPU seconds of the process
  per second of streaming, and, with ``--profile FILE``, a cProfile of that window (``pstats``
  file; the top functions are printed). Headless Textual computes every frame but writes nothing
  to a terminal, so this is the floor of the real-terminal figure (``tools/bench_tui.py``).

The ``stream`` part only uses the app's public entry points, so the same script measures an older
checkout: ``PYTHONPATH=/path/to/old python tools/bench_markdown.py stream`` (before/after pairs).
Run ``python tools/bench_markdown.py [pieces|stream|all]`` or ``python tools/bench.py markdown``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import tui_workloads as work  # noqa: E402

NAME = "markdown"
DESCRIPTION = "TUI Markdown: µs per piece (Rich vs own renderer) and CPU of a headless 1,000 tok/s stream"
BUDGET = (
    "issue #29: own renderer ≥ 3x cheaper per piece than Rich (code ≥ 2x: pygments lexes in both); headless "
    "1,000 tok/s prose ≤ 30 % CPU (a regression guard: the real-terminal goal is tools/bench_tui.py's)"
)
HEADLESS_GUARD = 30.0
RATIO = {"prose": 3.0, "code": 2.0, "table": 3.0}
WIDTH = 118
SIZE = (120, 40)

PROSE_PIECE = (
    "The agent reads the repository layout, then opens `pyproject.toml` and the test suite. It notes "
    "that the event pump merges deltas per frame, so the cost of a frame depends on what arrived "
    "since the last one and not on the length of the answer. **Finished paragraphs** stay frozen.\n"
)
CODE_PIECE = "".join(f"    total = compute_total(items, tax_rate=0.2, discount=None)  # line {n}\n" for n in range(4))
CODE_FENCE = "```python\n"
TABLE_PIECE = "| name | value | note |\n|---|---|---|\n" + "".join(
    f"| alpha_{n} | {n * 17} | the {n}th row, with `code` |\n" for n in range(6)
)


# --- part 1: per piece --------------------------------------------------------------------------


def _rich_render() -> Callable[[str, str], Any]:
    """The pre-issue-29 path: Rich's Markdown (shared parser, hard breaks) rendered to lines."""
    from markdown_it import MarkdownIt
    from rich.console import Console
    from rich.markdown import Markdown

    parser = MarkdownIt("commonmark").enable("strikethrough").enable("table")
    console = Console(width=WIDTH, color_system="truecolor", force_terminal=True)
    options = console.options.update(width=WIDTH, height=None)

    class Shared(Markdown):
        def __init__(self, markup: str) -> None:
            self.markup = markup
            self.parsed = parser.parse(markup)
            for token in self.parsed:
                for child in token.children or ():
                    if child.type == "softbreak":
                        child.type = "hardbreak"
            self.code_theme = "monokai"
            self.justify = None
            self.style = "none"
            self.hyperlinks = False
            self.inline_code_lexer = None
            self.inline_code_theme = "monokai"

    def render(text: str, fence: str) -> Any:
        return console.render_lines(Shared(fence + text), options, pad=True)

    return render


def _own_render() -> Callable[[str, str], Any] | None:
    try:
        from pi_cli.modes.interactive.markdown import DARK, PieceRenderer
        from pi_cli.modes.interactive.markdown_pieces import Piece
    except ImportError:  # an older checkout: Rich only
        return None

    def render(text: str, fence: str) -> Any:
        pieces = [Piece(text, fence)]
        return PieceRenderer(pieces, DARK).render(0, WIDTH)

    return render


def _median_us(func: Callable[[], Any], repeat: int) -> float:
    func()  # warm: lexers, caches
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        func()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6


def pieces(repeat: int) -> list[tuple[str, float, float | None]]:
    """(piece, Rich µs, own µs) for the three typical pieces."""
    rich, own = _rich_render(), _own_render()
    rows: list[tuple[str, float, float | None]] = []
    for label, text, fence in (
        ("prose", PROSE_PIECE, ""),
        ("code", CODE_PIECE, CODE_FENCE),
        ("table", TABLE_PIECE, ""),
    ):
        old = _median_us(lambda t=text, f=fence: rich(t, f), repeat)
        new = _median_us(lambda t=text, f=fence: own(t, f), repeat) if own else None
        rows.append((label, old, new))
    return rows


# --- part 2: a headless stream ------------------------------------------------------------------


class Phases:
    """CPU (thread time) spent in stream frames, screen paints and the layouts inside them, while
    ``active``: where a streaming second goes. Wraps Textual's and the app's methods for the
    benchmark's lifetime only (``close`` puts them back)."""

    def __init__(self) -> None:
        from textual.screen import Screen

        from pi_cli.modes.interactive.app import PiApp

        self.active = False
        self.totals: dict[str, list[float]] = {"frame": [0, 0.0], "paint": [0, 0.0], "layout": [0, 0.0]}
        self._saved = [(Screen, "_on_timer_update"), (Screen, "_refresh_layout"), (PiApp, "_render_frame")]
        self._originals = [getattr(owner, name) for owner, name in self._saved]
        paint, layout, frame = self._originals
        Screen._on_timer_update = self._sync(paint, "paint")  # type: ignore[method-assign]
        Screen._refresh_layout = self._sync(layout, "layout")  # type: ignore[method-assign]
        PiApp._render_frame = self._async(frame, "frame")  # type: ignore[method-assign]

    def _add(self, label: str, spent: float) -> None:
        if self.active:
            self.totals[label][0] += 1
            self.totals[label][1] += spent

    def _sync(self, original: Callable[..., Any], label: str) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return original(*args, **kwargs)
            finally:
                self._add(label, time.thread_time() - started)

        return timed

    def _async(self, original: Callable[..., Any], label: str) -> Callable[..., Any]:
        async def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return await original(*args, **kwargs)
            finally:
                self._add(label, time.thread_time() - started)

        return timed

    def summary(self, seconds: float) -> str:
        parts = []
        for label, (count, spent) in self.totals.items():
            each = 1000 * spent / count if count else 0.0
            parts.append(f"{count / seconds:.0f} {label}s/s × {each:.1f} ms")
        return "; ".join(parts) + " (layouts are inside paints)"

    def close(self) -> None:
        for (owner, name), original in zip(self._saved, self._originals, strict=True):
            setattr(owner, name, original)


async def _stream(
    text: str, rate: float, chunk: int, seconds: float, profile: str | None, phases: Phases | None = None
) -> tuple[float, float]:
    """Stream ``text`` at ``rate`` tokens/s through the app headless; CPU seconds and wall seconds
    of the window (from a second after the first frame, ``seconds`` long)."""
    from pi_cli.agent.agent import Agent
    from pi_cli.ai.providers.faux import faux_assistant, faux_text, register_faux_provider
    from pi_cli.modes.interactive import make_app
    from pi_cli.session.agent_session import AgentSession

    faux = register_faux_provider(models=["faux-1"], tokens_per_second=rate, token_size=(chunk, chunk))
    faux.set_responses([faux_assistant([faux_text(text)])])
    session = AgentSession(agent=Agent(system_prompt="bench", model=faux.model()), cwd=Path.cwd())
    app = make_app(session, keymap={})
    profiler = cProfile.Profile() if profile else None
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause(0.5)  # start-up and the warm-up thread
            app.editor.load_text("go")
            await pilot.press("enter")
            while not app.pump.frames or not app.running:
                await asyncio.sleep(0.01)
            await asyncio.sleep(1.0)  # past the first frames
            cpu0, wall0 = time.process_time(), time.perf_counter()
            if profiler is not None:
                profiler.enable()
            if phases is not None:
                phases.active = True
            await asyncio.sleep(seconds)
            if phases is not None:
                phases.active = False
            if profiler is not None:
                profiler.disable()
            cpu1, wall1 = time.process_time(), time.perf_counter()
            if not app.running:
                raise RuntimeError("the answer ended inside the window; lower --seconds")
            await app.action_interrupt()
    finally:
        faux.unregister()
    if profiler is not None and profile:
        profiler.dump_stats(profile)
    return cpu1 - cpu0, wall1 - wall0


def stream(kind: str, rate: float, seconds: float, profile: str | None, chunk: int = 1, split: bool = False) -> float:
    """CPU % of one core while streaming ``kind`` (prose/code) at ``rate`` tokens/s, ``chunk``
    tokens (4 chars each) per delta; ``split``: also print where it went (:class:`Phases`)."""
    chars = int(rate * work.CHARS_PER_TOKEN * (seconds + 6))
    text = work.prose(chars) if kind == "prose" else work.code(chars)
    names = ("HOME", "PI_CODING_AGENT_DIR", "PI_OFFLINE")
    saved = {name: os.environ.get(name) for name in names}
    with tempfile.TemporaryDirectory(prefix="bench-md-") as home:
        os.environ.update(HOME=home, PI_CODING_AGENT_DIR=home, PI_OFFLINE="1")
        phases = Phases() if split else None
        try:
            cpu, wall = asyncio.run(_stream(text, rate, chunk, seconds, profile, phases))
            if phases is not None:
                print(f"  {kind}: {phases.summary(wall)}")
        finally:  # other benchmarks run in this process after this one (tools/bench.py all)
            if phases is not None:
                phases.close()
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    return 100 * cpu / wall


def _print_profile(path: str, top: int) -> None:
    stats = pstats.Stats(path)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumtime").print_stats(top)


# --- entry points -------------------------------------------------------------------------------


def run() -> list[tuple[str, str, str, bool]]:
    """Rows for ``tools/bench.py all``."""
    rows = []
    for label, old, new in pieces(300):
        if new is None:
            rows.append((f"markdown: {label} piece, Rich", f"{old:.0f} µs", "-", True))
            continue
        ratio = RATIO[label]
        rows.append((f"markdown: {label} piece, own / Rich", f"{new:.0f} / {old:.0f} µs", f"<= 1/{ratio:g}",
                     new <= old / ratio))  # fmt: skip
    cpu = stream("prose", 1000.0, 4.0, None)
    guard = f"<= {HEADLESS_GUARD:g} %"
    rows.append(("markdown: headless 1,000 tok/s prose, CPU", f"{cpu:.1f} %", guard, cpu <= HEADLESS_GUARD))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_markdown.py", description=DESCRIPTION)
    parser.add_argument("part", nargs="?", default="all", choices=("pieces", "stream", "all"))
    parser.add_argument("--repeat", type=int, default=500, help="renders per piece (median)")
    parser.add_argument("--kind", default="prose,code", help="stream kinds: prose, code")
    parser.add_argument("--rate", type=float, default=1000.0, help="tokens (4-char deltas) per second")
    parser.add_argument("--chunk", type=int, default=1, help="tokens per delta (1: one SSE event per token)")
    parser.add_argument("--seconds", type=float, default=6.0, help="measured window of the stream")
    parser.add_argument("--profile", default="", help="write a cProfile of the (first) stream window here")
    parser.add_argument("--top", type=int, default=30, help="functions to print from the profile")
    parser.add_argument("--split", action="store_true", help="print CPU per frame, paint and layout too")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} at the start")
    if args.part in ("pieces", "all"):
        print(f"µs per piece at {WIDTH} columns, median of {args.repeat}:")
        for label, old, new in pieces(args.repeat):
            ratio = f"{old / new:6.1f}x cheaper" if new else ""
            print(f"  {label:6} Rich {old:8.0f} µs   own {new or 0:8.0f} µs   {ratio}")
    if args.part in ("stream", "all"):
        profile = args.profile or None
        for kind in [k.strip() for k in args.kind.split(",") if k.strip()]:
            cpu = stream(kind, args.rate, args.seconds, profile, args.chunk, args.split)
            rate = f"{args.rate:g} tok/s ({args.chunk} per delta)"
            print(f"headless {kind} at {rate}: {cpu:.1f} % CPU of one core over {args.seconds:g} s")
            if profile:
                _print_profile(profile, args.top)
                profile = None
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
