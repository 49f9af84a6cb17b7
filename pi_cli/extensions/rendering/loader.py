"""A spinner with a message between two rules, for work a custom component waits on (pi's
``BorderedLoader``): ``signal`` is an abort signal to hand to that work (``ctx.model_registry.complete
(..., {"signal": loader.signal})``); Escape or Ctrl-C aborts it and calls ``on_abort()`` (when
``cancellable``, the default). The spinner turns every 80 ms through ``tui.request_render()``
until ``dispose()``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from pi_cli.ai.abort import AbortController, AbortSignal
from pi_cli.extensions.rendering.keys import Keybindings
from pi_cli.extensions.rendering.text import truncate_to_width
from pi_cli.extensions.rendering.theme import ExtensionTheme

FRAMES = ("⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏")
FRAME_S = 0.08
_KEYS = Keybindings()


class BorderedLoader:
    """Owned by a ``ctx.ui.custom`` factory (return it as the component, or draw it inside one)."""

    def __init__(
        self,
        tui: Any,
        theme: ExtensionTheme,
        message: str,
        cancellable: bool = True,
        on_abort: Callable[[], None] | None = None,
    ) -> None:
        self.tui, self.theme, self.message = tui, theme, message
        self.cancellable = cancellable
        self.on_abort = on_abort
        self._controller = AbortController()
        self._frame = 0
        self._timer: asyncio.TimerHandle | None = asyncio.get_running_loop().call_later(FRAME_S, self._turn)

    @property
    def signal(self) -> AbortSignal:
        return self._controller.signal

    def _turn(self) -> None:
        self._frame = (self._frame + 1) % len(FRAMES)
        self.tui.request_render()
        self._timer = asyncio.get_running_loop().call_later(FRAME_S, self._turn)

    def handle_input(self, data: str) -> None:
        if self.cancellable and _KEYS.matches(data, "tui.select.cancel") and not self.signal.aborted:
            self._controller.abort("Cancelled by the user")
            if self.on_abort is not None:
                self.on_abort()

    def render(self, width: int) -> list[str]:
        th = self.theme
        rule = th.fg("border", "─" * width)
        line = truncate_to_width(f" {th.fg('accent', FRAMES[self._frame])} {th.fg('muted', self.message)}", width)
        hint = [" " + th.fg("dim", "esc cancel"), ""] if self.cancellable else []
        return [rule, line, "", *hint, rule]

    def invalidate(self) -> None:
        return None

    def dispose(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def completion_view(ctx: Any, model: Any, system_prompt: str, text: str, message: str) -> Callable[..., Any]:
    """A ``ctx.ui.custom`` factory for one model request: a :class:`BorderedLoader` saying
    ``message`` while ``model`` answers ``text`` (under ``system_prompt``) through
    ``ctx.model_registry``; ``done`` gets the answer's text, or None when the request failed, was
    aborted or the user cancelled it (as pi's examples end)."""
    held: set[asyncio.Task[None]] = set()  # a task nobody holds may be collected mid-request

    def factory(tui: Any, theme: ExtensionTheme, keybindings: Any, done: Callable[[Any], None]) -> BorderedLoader:
        loader = BorderedLoader(tui, theme, message, on_abort=lambda: done(None))

        async def ask() -> None:
            request = {
                "systemPrompt": system_prompt,
                "messages": [{"role": "user", "content": [{"type": "text", "text": text}]}],
            }
            try:
                reply = await ctx.model_registry.complete(model, request, {"signal": loader.signal})
            except Exception:
                done(None)
                return
            if reply.get("stopReason") in ("aborted", "error"):
                done(None)
                return
            done("\n".join(b["text"] for b in reply.get("content") or [] if b.get("type") == "text"))

        task = asyncio.ensure_future(ask())
        held.add(task)
        task.add_done_callback(held.discard)
        return loader

    return factory
