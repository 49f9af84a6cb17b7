"""``ctx.ui.set_header`` in the TUI: an extension's component at the top of the transcript, in
place of pi_cli's start header (version, keys, loaded resources).

The header is the transcript's first entry, built by :func:`start_header` whenever the transcript
starts over (launch, ``/new``, ``/resume``…), so the extension's header stays through them; a
change swaps that entry in place. A factory or ``render`` that raises is reported once and the
built-in header comes back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.widget import Widget

from pi_cli.extensions.rendering.component import ComponentTui, HostedComponent
from pi_cli.modes.interactive.extension_ui.custom import ComponentLines


def start_header(app: Any, factory: Callable[..., Any] | None, report: Callable[[str], None]) -> Widget:
    """The transcript's first entry: the extension's header component from ``factory(tui,
    theme)``, or the built-in start header (also when the factory fails)."""
    from pi_cli.modes.interactive.startup import startup_header

    runner = app.session.extensions
    if factory is not None and runner is not None:
        tui = ComponentTui()
        try:
            component = factory(tui, runner.theme())
        except Exception as exc:  # the extension's bug: keep pi_cli's header
            report(f"Extension header failed: {exc}")
        else:
            failed: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            failed.add_done_callback(lambda done: _failed(done, report))
            view = ComponentLines(HostedComponent(component, tui, failed), id="extension-header")

            def redraw() -> None:
                view.refresh(layout=True)

            tui.connect(redraw, lambda: (app.size.width, app.size.height))
            return view
    return startup_header(app.session, app.cwd, app.user_keymap)


def _failed(done: asyncio.Future[Any], report: Callable[[str], None]) -> None:
    if not done.cancelled() and done.exception() is not None:
        report(f"Extension header failed: {done.exception()}")
