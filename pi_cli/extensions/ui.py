"""``ctx.ui``: what an extension may ask of the front end, and the no-UI fallback.

Each mode binds its own :class:`ExtensionUI` at runtime (RPC: ``extension_ui_request`` messages;
print/json: :class:`NoUI`). Dialogs are async; ``notify``/``set_*`` are fire-and-forget.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pi_cli.extensions.rendering.component import BoundFactory, CustomOptions, Present, field_of, run_custom
from pi_cli.extensions.rendering.keys import Keybindings
from pi_cli.extensions.rendering.theme import ExtensionTheme, theme_of

if TYPE_CHECKING:
    from pi_cli.resources.themes import ThemeCatalog


@runtime_checkable
class ExtensionUI(Protocol):
    """The front end's side of ``ctx.ui`` (pi's ExtensionUIContext, the portable part)."""

    has_ui: bool

    def notify(self, text: str, level: str | None = None) -> None:
        """Show ``text``; ``level`` is ``"info"``/``"warning"``/``"error"``, None when the extension
        gave none (a UI shows it as info; RPC leaves ``notifyType`` out, as pi)."""

    # Dialogs take pi's ``timeout`` option (milliseconds): when it passes unanswered the dialog gives
    # its default (False / None). Front ends without a countdown accept it and wait for the user.
    async def confirm(self, title: str, message: str = "", *, timeout: int | None = None) -> bool: ...

    async def select(self, title: str, options: list[str], *, timeout: int | None = None) -> str | None: ...

    async def input(self, title: str, placeholder: str | None = None, *, timeout: int | None = None) -> str | None: ...

    def set_status(self, key: str, text: str | None) -> None: ...

    def set_widget(self, key: str, lines: list[str] | None, placement: str | None = None) -> None:
        """Show (``lines``) or remove (None) a widget; ``placement`` None when the extension gave none
        (a UI puts it above the editor; RPC leaves ``widgetPlacement`` out, as pi)."""

    def set_editor_text(self, text: str) -> None: ...

    def paste_to_editor(self, text: str) -> None:
        """Put ``text`` into the editor as a paste would (RPC: a ``set_editor_text`` request, as pi)."""

    def get_editor_text(self) -> str:
        """The editor's text; ``""`` where the front end cannot tell synchronously (RPC, as pi)."""

    def set_title(self, title: str) -> None:
        """The terminal or window title (RPC: a fire-and-forget ``setTitle`` request)."""

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        """A multi-line text dialog; the text, or None when cancelled or not available."""

    async def custom(self, factory: BoundFactory, options: CustomOptions) -> Any:
        """An extension's component until it calls ``done`` (see
        :mod:`pi_cli.extensions.rendering.component`); None where the mode has no terminal UI."""


PLACEMENTS = ("aboveEditor", "belowEditor")
_SHEET = CustomOptions()  # a component in the editor's place (not an overlay)


class ThemeHost(Protocol):
    """What ``ctx.ui``'s theme calls need of the session: its theme catalog and a way to save
    the chosen name as the user's ``theme`` setting."""

    @property
    def themes(self) -> ThemeCatalog: ...

    def save_theme(self, name: str) -> None: ...


class NoUI:
    """print/json modes: ``has_ui`` False, ``confirm`` → False, ``select``/``input`` → None,
    ``notify`` → one line on stderr; status, widgets and editor text are dropped."""

    has_ui = False

    def notify(self, text: str, level: str | None = None) -> None:
        prefix = "" if level in (None, "info") else f"{level.capitalize()}: "
        sys.stderr.write(f"{prefix}{text}\n")
        sys.stderr.flush()

    async def confirm(self, title: str, message: str = "", *, timeout: int | None = None) -> bool:
        return False

    async def select(self, title: str, options: list[str], *, timeout: int | None = None) -> str | None:
        return None

    async def input(self, title: str, placeholder: str | None = None, *, timeout: int | None = None) -> str | None:
        return None

    def set_status(self, key: str, text: str | None) -> None:
        return None

    def set_widget(self, key: str, lines: list[str] | None, placement: str | None = None) -> None:
        return None

    def set_editor_text(self, text: str) -> None:
        return None

    def paste_to_editor(self, text: str) -> None:
        return None

    def get_editor_text(self) -> str:
        return ""

    def set_title(self, title: str) -> None:
        return None

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        return None

    async def custom(self, factory: BoundFactory, options: CustomOptions) -> Any:
        return None  # pi's no-UI answer: undefined, the factory never runs


class DialogUI:
    """``ctx.ui`` for a front end that already has the approval gate's two dialogs (``select``,
    ``input``): TUI modal screens, inline scrollback questions. ``confirm`` is a Yes/No select;
    ``notify`` goes to the transcript; statuses and widgets are kept in ``statuses``/``widgets``
    (insertion order = registration order) and ``on_change(kind, key)`` — kind ``"status"`` or
    ``"widget"`` — tells the front end which one to redraw. ``present`` shows ``custom``
    components (the TUI's, inline's); without it ``custom`` says so in one notice and answers None."""

    has_ui = True

    def __init__(
        self,
        dialogs: Any,
        notify: Callable[[str, str], None],
        set_editor_text: Callable[[str], None] | None = None,
        on_change: Callable[[str, str], None] | None = None,
        present: Present | None = None,
        theme: Callable[[], ExtensionTheme] | None = None,
    ) -> None:
        self._dialogs = dialogs
        self._present = present
        self._theme = theme  # the active theme, for the dialogs drawn as components
        self._notify = notify
        self._set_editor_text = set_editor_text
        self._on_change = on_change
        self.statuses: dict[str, str] = {}
        self.widgets: dict[str, list[str]] = {}
        self.placements: dict[str, str] = {}  # widget key → "aboveEditor" | "belowEditor"
        self.title: str | None = None  # set_title's text (None: the front end's own)
        self.working_frames: list[str] | None = None  # set_working_indicator: None default, [] hidden
        self.working_interval_ms: int | None = None
        self.working_message: str | None = None  # set_working_message (None: "Working...")
        self.working_visible = True  # set_working_visible(False) hides the working line
        self.hidden_thinking_label: str | None = None  # set_hidden_thinking_label (None: the default)
        self.autocomplete_factories: list[Callable[[Any], Any]] = []  # add_autocomplete_provider, in order
        self.footer: Callable[..., Any] | None = None  # set_footer's factory (None: the built-in)
        self.header: Callable[..., Any] | None = None  # set_header's factory (None: the built-in)
        self.editor_component: Callable[..., Any] | None = None  # set_editor_component's factory

    def notify(self, text: str, level: str | None = None) -> None:
        self._notify(text, level or "info")

    async def confirm(self, title: str, message: str = "", *, timeout: int | None = None) -> bool:
        answer: str | None = await self._dialogs.select(f"{title}\n{message}" if message else title, ["Yes", "No"])
        return answer == "Yes"

    async def select(self, title: str, options: list[str], *, timeout: int | None = None) -> str | None:
        answer: str | None = await self._dialogs.select(title, options)
        return answer

    async def input(self, title: str, placeholder: str | None = None, *, timeout: int | None = None) -> str | None:
        answer: str | None = await self._dialogs.input(title, placeholder)
        return answer

    def set_status(self, key: str, text: str | None) -> None:
        if text is None:
            self.statuses.pop(key, None)
        else:
            self.statuses[key] = str(text)
        if self._on_change is not None:
            self._on_change("status", key)

    def set_widget(self, key: str, lines: list[str] | None, placement: str | None = None) -> None:
        """``placement``: ``"aboveEditor"`` (default, also for None) or ``"belowEditor"``, as pi's option."""
        placement = placement or "aboveEditor"
        if placement not in PLACEMENTS:
            raise ValueError(f"widget placement must be one of {', '.join(PLACEMENTS)}, not {placement!r}")
        self.placements[key] = placement
        if lines is None:
            self.placements.pop(key, None)
            self.widgets.pop(key, None)
        elif isinstance(lines, str):  # one string is one widget, not one line per character
            self.widgets[key] = lines.splitlines()
        else:
            self.widgets[key] = [str(line) for line in lines]
        if self._on_change is not None:
            self._on_change("widget", key)

    def set_editor_text(self, text: str) -> None:
        if self._set_editor_text is not None:
            self._set_editor_text(text)

    def paste_to_editor(self, text: str) -> None:
        self.set_editor_text(text)

    def get_editor_text(self) -> str:
        return ""  # the terminal front ends do not lend their editor's text out (yet)

    def set_title(self, title: str) -> None:
        """Kept in ``title``; ``on_change("title", "")`` lets the front end show it."""
        self.title = str(title)
        self._changed("title")

    def set_working_indicator(self, options: Any = None) -> None:
        """pi's ``{frames, intervalMs}``: ``frames`` replace the spinner (``[]`` hides it), None
        (or no ``frames``) restores the default; ``on_change("working", "")`` follows."""
        frames = field_of(options, "frames")
        interval = field_of(options, "intervalMs", "interval_ms")
        self.working_frames = None if frames is None else [str(frame) for frame in frames]
        self.working_interval_ms = int(interval) if isinstance(interval, (int, float)) and interval > 0 else None
        self._changed("working")

    def set_working_message(self, message: str | None = None) -> None:
        """The working line's text while the agent runs; None restores "Working..."."""
        self.working_message = None if message is None else str(message)
        self._changed("working")

    def set_working_visible(self, visible: bool) -> None:
        """Show (True) or hide (False) the working line while the agent runs."""
        self.working_visible = bool(visible)
        self._changed("working")

    def set_hidden_thinking_label(self, label: str | None = None) -> None:
        """The text a collapsed thinking block shows in place of "Thinking…"; None restores it.
        ``on_change("thinking_label", "")`` follows."""
        self.hidden_thinking_label = None if label is None else str(label)
        self._changed("thinking_label")

    def add_autocomplete_provider(self, factory: Callable[[Any], Any]) -> None:
        """Stack a provider on the editor's completion: ``factory(current)`` returns it (see
        :mod:`pi_cli.modes.autocomplete`); ``on_change("autocomplete", "")`` follows."""
        if not callable(factory):
            raise TypeError("add_autocomplete_provider takes a factory: current provider -> provider")
        self.autocomplete_factories.append(factory)
        self._changed("autocomplete")

    def reset(self) -> None:
        """``/reload``: take away what the extensions put on screen (statuses, widgets, the working
        line's and thinking blocks' customisations, title, completion providers, footer, header), telling
        the front end of each."""
        widgets = list(self.widgets)
        self.statuses.clear()
        self.widgets.clear()
        self.placements.clear()
        self.title = None
        self.working_frames, self.working_interval_ms, self.working_message = None, None, None
        self.working_visible = True
        self.hidden_thinking_label = None
        self.autocomplete_factories.clear()
        self.footer = self.header = self.editor_component = None
        for key in widgets:
            if self._on_change is not None:
                self._on_change("widget", key)
        kinds = ("status", "title", "working", "thinking_label", "autocomplete", "footer", "header", "editor_component")
        for kind in kinds:
            self._changed(kind)

    def reloaded(self) -> None:
        """The extensions were loaded again: ``on_change("reload", "")`` (bind their shortcuts)."""
        self._changed("reload")

    def theme_changed(self) -> None:
        """The session's theme changed (``ctx.ui.set_theme``): ``on_change("theme", "")``."""
        self._changed("theme")

    def set_editor_component(self, factory: Callable[..., Any] | None) -> None:
        """pi's ``setEditorComponent``: ``factory(tui, theme, keybindings)`` builds the prompt
        editor (a :class:`~pi_cli.extensions.rendering.custom_editor.CustomEditor`) shown in place
        of the built-in one; None restores it. ``on_change("editor_component", "")``."""
        self.editor_component = factory
        self._changed("editor_component")

    def set_header(self, factory: Callable[..., Any] | None) -> None:
        """pi's ``setHeader``: ``factory(tui, theme)`` builds the component shown at the top of the
        transcript in place of pi_cli's start header; None restores it. ``on_change("header", "")``."""
        self.header = factory
        self._changed("header")

    def set_footer(self, factory: Callable[..., Any] | None) -> None:
        """pi's ``setFooter``: ``factory(tui, theme, footer_data)`` builds the component drawn in
        place of the built-in footer; None restores it. Kept in ``footer``; ``on_change("footer", "")``."""
        self.footer = factory
        self._changed("footer")

    def _changed(self, kind: str) -> None:
        if self._on_change is not None:
            self._on_change(kind, "")

    async def editor(self, title: str, prefill: str | None = None) -> str | None:
        """pi's multi-line editor dialog, drawn as a component (:mod:`.rendering.text_editor`);
        None when cancelled, or at once where the front end shows no components."""
        if self._present is None:
            return None
        from pi_cli.extensions.rendering.text_editor import EditorDialog

        theme = self._theme() if self._theme is not None else ExtensionTheme({})
        answer = await run_custom(self._present, lambda tui, done: EditorDialog(title, prefill, theme, done), _SHEET)
        return None if answer is None else str(answer)

    async def custom(self, factory: BoundFactory, options: CustomOptions) -> Any:
        if self._present is None:
            self._notify("This front end cannot show an extension's custom view", "warning")
            return None
        return await run_custom(self._present, factory, options)


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
