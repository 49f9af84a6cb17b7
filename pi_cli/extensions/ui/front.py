"""The front ends' side of ``ctx.ui``: the :class:`ExtensionUI` protocol each mode binds, the
no-UI fallback (:class:`NoUI`, print and json modes) and :class:`DialogUI` for front ends that
already have the approval gate's dialogs (TUI, inline)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pi_cli.extensions.rendering.component import BoundFactory, CustomOptions, Present, field_of, run_custom
from pi_cli.extensions.rendering.theme import ExtensionTheme

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
