"""Event pump: decouples the agent's event stream from rendering.

The agent awaits its listeners in order, so whatever the UI does inside a listener stalls the
HTTP reader. The listener here therefore only appends the event to a list and sets a flag. A
separate task drains the list at most once per frame, merges consecutive deltas of the same
content block into one operation, and hands the batch to the renderer. After each render it waits
``max(min_interval, 1.5 × last render time)``, so a slow render (a long code fence) lowers the
frame rate instead of starving the keyboard; a frame that carried little text (a slow model: a
few tokens) waits ``slow_interval`` instead, so 20 characters do not cost a 24 fps redraw.
24 frames a second is the ceiling: a fast model (~1,000 tokens/s) still looks continuous, and
each frame of a following transcript repaints every visible row (the view moves a line a frame),
so 30 fps cost ~9 % more CPU for motion nobody reads (tools/bench_tui.py, cpu_prose_fast).

Keys come before frames (:class:`KeysFirst`): a frame is not built while a key the user just
pressed is still on its way to the screen, so its echo is painted on its own instead of after, or
together with, the layout a stream frame asks for.

Order is preserved: non-delta events are never reordered around deltas; they split the merge.
This module imports no Textual, so it can be tested on its own.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

DELTA_TYPES = frozenset({"text_delta", "thinking_delta", "toolcall_delta"})


@dataclass(slots=True)
class Delta:
    """Merged deltas of one content block of the streaming assistant message."""

    kind: str  # "text_delta" | "thinking_delta" | "toolcall_delta"
    content_index: int
    text: str
    message: dict[str, Any]  # the partial assistant message (shared, never copied)


Op = Delta | dict[str, Any]
"""One render operation: a merged delta, or an agent/session event passed through unchanged."""


def coalesce(events: list[dict[str, Any]]) -> list[Op]:
    """Merge runs of deltas for the same content block; keep every other event, in order."""
    ops: list[Op] = []
    parts: list[str] = []
    last: Delta | None = None
    for event in events:
        inner = event.get("assistantMessageEvent") if event.get("type") == "message_update" else None
        kind = inner.get("type") if isinstance(inner, dict) else None
        if inner is not None and kind in DELTA_TYPES:
            index = int(inner.get("contentIndex", 0))
            message = event.get("message") or inner.get("partial") or {}
            if last is not None and last.kind == kind and last.content_index == index:
                parts.append(inner.get("delta", ""))
                last.message = message
                continue
            if last is not None:
                last.text = "".join(parts)
            last = Delta(str(kind), index, "", message)
            parts = [inner.get("delta", "")]
            ops.append(last)
            continue
        if last is not None:
            last.text = "".join(parts)
            last, parts = None, []
        ops.append(event)
    if last is not None:
        last.text = "".join(parts)
    return ops


def bound(ops: list[Op], max_chars: int) -> tuple[list[Op], list[Op]]:
    """Split ``ops`` so the first part carries at most ``max_chars`` of delta text.

    A burst (one HTTP read can hold tens of thousands of characters) is then rendered over
    several frames instead of one long stall; the rest is carried to the next frame, in order.
    """
    used = 0
    for index, op in enumerate(ops):
        if not isinstance(op, Delta):
            continue
        if used + len(op.text) <= max_chars:
            used += len(op.text)
            continue
        room = max(0, max_chars - used)
        head = Delta(op.kind, op.content_index, op.text[:room], op.message)
        rest = Delta(op.kind, op.content_index, op.text[room:], op.message)
        now = [*ops[:index], head] if room else ops[:index]
        return now, [rest, *ops[index + 1 :]]
    return ops, []


Renderer = Callable[[list[Op]], Awaitable[None]]

KEY_WAIT_S = 0.03
"""How long after a key stream frames may wait for its echo to be painted (a bound: a key the
screen never repaints for, such as one a dialog swallows, holds the stream back no longer)."""


class KeysFirst:
    """Holds stream frames back while a key is between the terminal and the screen.

    ``key()`` is called when a key (or a paste) reaches the app. ``wait()``, awaited before each
    frame, first lets input already posted from the terminal reader's thread land, then — for
    at most ``KEY_WAIT_S`` after the key — waits until nothing is queued for the app or the focused
    widget (``busy``) and the screen has painted once more (``paints``: a count of paints), so the
    key's echo reaches the terminal before the next frame is built.
    """

    def __init__(self, paints: Callable[[], int], busy: Callable[[], bool], max_wait: float = KEY_WAIT_S) -> None:
        self._paints = paints
        self._busy = busy
        self.max_wait = max_wait
        self._key_at = -1.0
        self.waited = 0.0  # seconds frames were held back, in total (for benchmarks)

    def key(self) -> None:
        self._key_at = time.perf_counter()

    async def wait(self) -> None:
        for _ in range(2):
            await asyncio.sleep(0)  # a key the reader thread just posted is handed to the app
        deadline = self._key_at + self.max_wait
        started = now = time.perf_counter()
        mark: int | None = None  # paints when the key had been handled
        while now < deadline:
            if self._busy():
                mark = None
            elif mark is None:
                mark = self._paints()
            elif self._paints() > mark:
                break
            await asyncio.sleep(0.001)
            now = time.perf_counter()
        self.waited += now - started


class EventPump:
    """Buffers events from the agent and renders them in merged batches at frame rate.

    ``push`` is safe to call from any coroutine on the loop and never awaits. ``start`` launches
    the draining task; ``stop`` cancels it after a final flush. ``drain`` renders whatever is
    pending right now (used before quitting and by tests). ``before_frame`` (e.g.
    :meth:`KeysFirst.wait`) is awaited before each frame the task builds.
    """

    def __init__(
        self, render: Renderer, min_interval: float = 1 / 24, max_interval: float = 0.25,
        before_frame: Callable[[], Awaitable[None]] | None = None,
    ) -> None:  # fmt: skip
        self._render = render
        self._before_frame = before_frame
        self._pending: list[dict[str, Any]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self.min_interval = min_interval
        self.max_interval = max_interval
        self.last_render_seconds = 0.0
        self.worst_render_seconds = 0.0
        self.frames = 0
        self.errors: list[str] = []
        self.max_chars_per_frame = 32_000
        self.slow_interval = 0.1  # gap after a frame with fewer than ``slow_chars`` of new text
        self.slow_chars = 64
        self.last_chars = 0
        self._carry: list[Op] = []
        self.yield_after = 0.008
        self._turn_started = time.perf_counter()
        self._turn_marker: asyncio.Handle | None = None

    def push(self, event: dict[str, Any], *_: object) -> Awaitable[None] | None:
        """Listener entry point: queue one event (extra arguments such as a signal are ignored).

        Usually returns None (nothing to await). When the producer has run for
        ``yield_after`` seconds without giving the loop a turn — an HTTP read can hand the parser
        hundreds of events at once, all dispatched synchronously — it returns ``sleep(0)`` so
        the awaiting agent lets keystrokes and frames through.
        """
        self._pending.append(event)
        self._wake.set()
        if self._turn_marker is None:
            # First event since the loop last had a turn: remember when this burst began; the
            # marker runs (and clears itself) as soon as the producer yields.
            self._turn_started = time.perf_counter()
            self._turn_marker = asyncio.get_running_loop().call_soon(self._end_turn)
            return None
        if time.perf_counter() - self._turn_started > self.yield_after:
            return asyncio.sleep(0)
        return None

    def _end_turn(self) -> None:
        self._turn_marker = None

    @property
    def pending(self) -> int:
        """Number of events (or carried-over operations) waiting to be rendered."""
        return len(self._pending) + len(self._carry)

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="pi-event-pump")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass
        await self.drain()

    async def settle(self, timeout: float = 30.0) -> None:
        """Wait until the running pump has rendered everything (frame by frame, no stall)."""
        deadline = time.perf_counter() + timeout
        while self.pending and self._task is not None and time.perf_counter() < deadline:
            await asyncio.sleep(self.min_interval)
        if self.pending:
            await self.drain()

    async def drain(self, *, frame: bool = False) -> None:
        """Render what is pending, in order: everything, or (``frame``) one frame's worth."""
        async with self._lock:
            while self._pending or self._carry:
                batch, self._pending = self._pending, []
                self._wake.clear()
                ops = [*self._carry, *coalesce(batch)]
                self._carry = []
                if frame:
                    ops, self._carry = bound(ops, self.max_chars_per_frame)
                self.last_chars = sum(len(op.text) for op in ops if isinstance(op, Delta))
                started = time.perf_counter()
                try:
                    await self._render(ops)
                except Exception as exc:  # a render bug must not kill the pump and freeze the UI
                    self.errors.append(f"{type(exc).__name__}: {exc}")
                self.last_render_seconds = time.perf_counter() - started
                self.worst_render_seconds = max(self.worst_render_seconds, self.last_render_seconds)
                self.frames += 1
                if frame:
                    break

    async def _run(self) -> None:
        while True:
            if not self._carry:
                await self._wake.wait()
            if self._before_frame is not None:
                await self._before_frame()
            await self.drain(frame=True)
            # A backlog (carried text) only needs a short breather for keys and paints between
            # frames; fresh input waits a full frame so deltas can merge.
            floor = 0.005 if self._carry else self.min_interval
            if not self._carry and 0 < self.last_chars < self.slow_chars:
                floor = self.slow_interval
            gap = min(self.max_interval, max(floor, 1.5 * self.last_render_seconds))
            await asyncio.sleep(gap)
