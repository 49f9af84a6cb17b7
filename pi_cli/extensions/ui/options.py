"""The extension's side of ``ctx.ui``: :class:`DialogOptionsUI` adds pi's dialog options
(``timeout`` in ms, ``signal``), the theme calls and the component slots on top of a front end's
:class:`~pi_cli.extensions.ui.front.ExtensionUI`, and :class:`PromptSpan` brackets the dialogs it
opens with ``ui_prompt_start`` / ``ui_prompt_end``."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pi_cli.extensions.rendering.component import BoundFactory, CustomOptions
from pi_cli.extensions.rendering.keys import Keybindings
from pi_cli.extensions.rendering.theme import ExtensionTheme, theme_of
from pi_cli.extensions.ui.front import ExtensionUI, ThemeHost

if TYPE_CHECKING:
    from pi_cli.resources.themes import ThemeCatalog


class PromptSpan:
    """pi's ``ui_prompt_start`` / ``ui_prompt_end`` around the dialogs an extension opens
    (``{reason: "ui_prompt", kind, title?}``): nested or overlapping dialogs make one outer span.
    ``notify`` hands each event to the handlers without waiting for them (the runner's notify)."""

    def __init__(self, notify: Callable[[dict[str, Any]], None]) -> None:
        self._notify = notify
        self._depth = 0
        self._outer: dict[str, Any] | None = None

    async def run(self, kind: str, title: str | None, dialog: Awaitable[Any]) -> Any:
        if self._depth == 0:
            self._outer = {"reason": "ui_prompt", "kind": kind, **({"title": title} if title else {})}
            self._notify({"type": "ui_prompt_start", **self._outer})
        self._depth += 1
        try:
            return await dialog
        finally:
            self._depth -= 1
            if self._depth == 0 and self._outer is not None:
                outer, self._outer = self._outer, None
                self._notify({"type": "ui_prompt_end", **outer})


class DialogOptionsUI:
    """``ctx.ui`` as extensions see it: the mode's :class:`ExtensionUI`, with pi's dialog options
    on ``confirm``/``select``/``input`` — ``timeout`` (milliseconds) and ``signal`` (an
    AbortSignal). When either ends the wait first, the dialog is taken away (the front end's
    wait is cancelled) and the call answers as a dismissed dialog: False or None. Everything
    else is the wrapped UI's. ``theme`` is pi's ``ctx.ui.theme``: the active theme's colours
    (:class:`~pi_cli.extensions.rendering.ExtensionTheme`), the same object in every mode."""

    def __init__(
        self,
        ui: ExtensionUI,
        theme: Callable[[], ExtensionTheme] | None = None,
        themes: ThemeHost | None = None,
        span: PromptSpan | None = None,
        signal: Any = None,
    ) -> None:
        self._ui = ui
        self._theme = theme
        self._themes = themes  # the session's themes, for get_all_themes / get_theme / set_theme
        self._span = span if span is not None else PromptSpan(_ignore)  # the runner's: spans nest across ctx.ui
        self._signal = signal  # the tool call's abort signal when this is a tool's ctx.ui

    @property
    def theme(self) -> ExtensionTheme:
        return self._theme() if self._theme is not None else ExtensionTheme({})

    async def custom(self, factory: Callable[..., Any], options: Any = None, *, signal: Any = None) -> Any:
        """pi's ``ctx.ui.custom``: ``factory(tui, theme, keybindings, done)`` builds a component
        shown until it calls ``done(value)``; gives ``value``. ``options`` is a dict (pi's
        ``overlay``, ``overlayOptions``) or :class:`CustomOptions`. TUI and inline show it;
        print, json and RPC answer None without calling the factory (as pi). When
        ``signal`` fires — by default, in a tool's ``ctx``, the call's abort signal — the
        component is taken away and the answer is None (an abort never waits on a view)."""
        theme, keys = self.theme, Keybindings()
        bound: BoundFactory = lambda tui, done: factory(tui, theme, keys, done)  # noqa: E731
        shown = self._ui.custom(bound, CustomOptions.of(options))
        return await self._span.run(
            "custom", None, _bounded(shown, None, signal if signal is not None else self._signal)
        )

    def set_working_indicator(self, options: Any = None) -> None:
        """pi's spinner frames while the agent works (TUI, inline); a no-op where the front end
        has no working line (print, json, RPC: as pi's RPC mode)."""
        self._forward("set_working_indicator", options)

    def set_working_message(self, message: str | None = None) -> None:
        """The working line's text (TUI, inline); a no-op elsewhere, as ``set_working_indicator``."""
        self._forward("set_working_message", message)

    def set_editor_component(self, factory: Callable[..., Any] | None = None) -> None:
        """pi's ``setEditorComponent`` (TUI; a no-op elsewhere, as pi's RPC mode)."""
        self._forward("set_editor_component", factory)

    def get_editor_component(self) -> Callable[..., Any] | None:
        """The factory ``set_editor_component`` gave (None: the built-in editor)."""
        factory = getattr(self._ui, "editor_component", None)
        return factory if callable(factory) else None

    def set_header(self, factory: Callable[..., Any] | None = None) -> None:
        """pi's ``setHeader`` (TUI; a no-op elsewhere, as pi's RPC mode): see :meth:`DialogUI.set_header`."""
        self._forward("set_header", factory)

    def set_footer(self, factory: Callable[..., Any] | None = None) -> None:
        """pi's ``setFooter`` (TUI; a no-op elsewhere, as pi's RPC mode): see :meth:`DialogUI.set_footer`."""
        self._forward("set_footer", factory)

    def set_working_visible(self, visible: bool) -> None:
        """Hide (False) or show again (True) the working line (TUI, inline); a no-op elsewhere."""
        self._forward("set_working_visible", visible)

    def set_hidden_thinking_label(self, label: str | None = None) -> None:
        """What a collapsed thinking block says (TUI; None: the default); a no-op elsewhere (pi's
        RPC mode ignores it too; inline shows thinking as it streams)."""
        self._forward("set_hidden_thinking_label", label)

    def add_autocomplete_provider(self, factory: Callable[[Any], Any]) -> None:
        """Stack a completion provider on the editor (TUI, inline); a no-op elsewhere (as pi's RPC)."""
        self._forward("add_autocomplete_provider", factory)

    # -- themes (pi's getAllThemes / getTheme / setTheme) -------------------------------------------

    def get_all_themes(self) -> list[dict[str, str | None]]:
        """``[{name, path}]`` of every theme this front end can switch to (path None for a
        built-in); ``[]`` without a terminal UI (as pi's RPC mode)."""
        catalog = self._catalog()
        if catalog is None:
            return []
        return [
            {"name": name, "path": None if theme.source == "builtin" else theme.source}
            for name, theme in catalog.themes.items()
        ]

    def get_theme(self, name: str) -> ExtensionTheme | None:
        """The theme ``name`` as ``ctx.ui.theme`` would show it, without switching; None when no
        theme has that name (or there is no terminal UI)."""
        catalog = self._catalog()
        theme = None if catalog is None else catalog.themes.get(name)
        return None if theme is None else theme_of(theme)

    def set_theme(self, theme: str | ExtensionTheme) -> dict[str, Any]:
        """Switch the front end to the theme ``name`` (saved as the ``theme`` setting, as pi does)
        and redraw; pi's answer ``{"success": bool, "error"?: str}``. A theme object (from
        :meth:`get_theme`) switches by its name."""
        catalog = self._catalog()
        if catalog is None or self._themes is None:
            return {"success": False, "error": "Theme switching not supported in this mode"}
        name = theme.name if isinstance(theme, ExtensionTheme) else str(theme)
        problem = catalog.problem(name)
        if problem is not None:
            return {"success": False, "error": problem}
        if catalog.selected != name:
            catalog.selected = name
            self._themes.save_theme(name)
        changed = getattr(self._ui, "theme_changed", None)
        if callable(changed):
            changed()
        return {"success": True}

    def _catalog(self) -> ThemeCatalog | None:
        if self._themes is None or not self._ui.has_ui or not callable(getattr(self._ui, "theme_changed", None)):
            return None
        return self._themes.themes

    @property
    def has_ui(self) -> bool:
        return bool(self._ui.has_ui)

    def _forward(self, name: str, value: Any) -> None:
        """Call the front end's ``name(value)`` where it has one (TUI, inline); a no-op elsewhere."""
        method = getattr(self._ui, name, None)
        if callable(method):
            method(value)

    def __getattr__(self, name: str) -> Any:  # notify, set_status… and a front end's extras
        return getattr(self._ui, name)

    async def confirm(self, title: str, message: str = "", *, timeout: float | None = None, signal: Any = None) -> bool:
        dialog = _bounded(self._ui.confirm(title, message, timeout=_ms(timeout)), timeout, signal)
        return bool(await self._span.run("confirm", title, dialog))

    async def select(
        self, title: str, options: list[str], *, timeout: float | None = None, signal: Any = None
    ) -> str | None:
        dialog = _bounded(self._ui.select(title, options, timeout=_ms(timeout)), timeout, signal)
        answer: str | None = await self._span.run("select", title, dialog)
        return answer

    async def input(
        self, title: str, placeholder: str | None = None, *, timeout: float | None = None, signal: Any = None
    ) -> str | None:
        dialog = _bounded(self._ui.input(title, placeholder, timeout=_ms(timeout)), timeout, signal)
        answer: str | None = await self._span.run("input", title, dialog)
        return answer

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        answer: str | None = await self._span.run("editor", title, self._ui.editor(title, prefill))
        return answer


def _ignore(event: dict[str, Any]) -> None:
    return None


def _ms(timeout: float | None) -> int | None:
    """The timeout as the front ends take it (whole milliseconds; RPC sends it to its client)."""
    return None if timeout is None else int(timeout)


async def _bounded(dialog: Any, timeout: float | None, signal: Any) -> Any:
    """``dialog``'s answer, or None once ``timeout`` ms passed or ``signal`` fired (the dialog's
    task is cancelled then, which the front ends answer by removing the question)."""
    if timeout is None and signal is None:
        return await dialog
    task = asyncio.ensure_future(dialog)
    aborted = asyncio.ensure_future(signal.wait()) if signal is not None else None
    waiting = {task} if aborted is None else {task, aborted}
    try:
        done, _ = await asyncio.wait(
            waiting, timeout=timeout / 1000 if timeout is not None else None, return_when=asyncio.FIRST_COMPLETED
        )
        if task in done:
            return task.result()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return None
    finally:
        if aborted is not None:
            aborted.cancel()
