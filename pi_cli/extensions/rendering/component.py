"""``ctx.ui.custom``: an extension's own component, shown until it calls ``done(value)``.

Contract for extensions (pi's ``ctx.ui.custom(factory, options)``, snake_case):
``factory(tui, theme, keybindings, done)`` returns (or returns an awaitable of) a component — an
object (or a dict of these callables) with ``render(width) -> list[str]`` (lines of at most
``width`` cells; SGR colours allowed, every other control sequence is dropped) and
``handle_input(data)`` (the key as terminal data, see :mod:`.keys`); ``invalidate()`` (drop
caches: the theme or width changed) and ``dispose()`` (closed) are optional. ``tui.request_render()``
asks for a redraw after the component's state changed; keys redraw on their own. ``done(value)``
closes the component and the awaited ``ctx.ui.custom`` gives ``value`` (``done()``: None). When
``render`` or ``handle_input`` raises, the component closes and ``ctx.ui.custom`` raises that error.
``options``: ``overlay`` (draw it floating above the transcript instead of in the editor's place)
and ``overlay_options`` (:class:`OverlayOptions`, or a dict in pi's camelCase, or a callable giving
one, asked again at each draw). print/json/RPC answer None at once, the factory never called (pi's
answer there).

Contract for front ends: ``present(hosted, options)`` shows a :class:`HostedComponent`, calls
``hosted.tui.connect(redraw, size)``, feeds keys to ``hosted.send(data)`` and draws
``hosted.lines(width)``; it returns the callable that takes the component away again. A front end
that removes the component on its own (quitting) calls ``hosted.withdraw()``: the call gives None.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from pi_cli.tools.sanitize import keep_sgr

Done = Callable[..., None]
BoundFactory = Callable[["ComponentTui", Done], Any]  # the factory with theme and keybindings bound
Present = Callable[["HostedComponent", "CustomOptions"], Callable[[], None]]


class Component(Protocol):
    """What a factory returns (``invalidate``/``dispose`` optional)."""

    def render(self, width: int) -> list[str]: ...

    def handle_input(self, data: str) -> None: ...


class ComponentTui:
    """The ``tui`` a factory gets: ``request_render()``, and the area's ``columns``/``rows``."""

    def __init__(self) -> None:
        self._redraw: Callable[[], None] | None = None
        self._size: Callable[[], tuple[int, int]] | None = None

    def connect(self, redraw: Callable[[], None], size: Callable[[], tuple[int, int]]) -> None:
        """The front end's side: how to redraw the component and how big its screen is."""
        self._redraw, self._size = redraw, size

    def request_render(self, force: bool = False) -> None:
        if self._redraw is not None:
            self._redraw()

    @property
    def columns(self) -> int:
        return self._size()[0] if self._size is not None else 80

    @property
    def rows(self) -> int:
        return self._size()[1] if self._size is not None else 24


class FooterData:
    """pi's ``footerData`` for ``set_footer`` factories: ``get_git_branch()``,
    ``get_extension_statuses()`` (key → text of ``set_status``) and ``on_branch_change(callback)``
    (returns the unsubscribe callable; the front end calls ``branch_changed()``)."""

    def __init__(self, branch: Callable[[], str | None], statuses: Callable[[], dict[str, str]]) -> None:
        self._branch = branch
        self._statuses = statuses
        self._listeners: list[Callable[[], None]] = []

    def get_git_branch(self) -> str | None:
        return self._branch()

    def get_extension_statuses(self) -> dict[str, str]:
        return dict(self._statuses())

    def on_branch_change(self, callback: Callable[[], None]) -> Callable[[], None]:
        self._listeners.append(callback)

        def unsubscribe() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)

        return unsubscribe

    def branch_changed(self) -> None:
        for callback in list(self._listeners):
            callback()


ANCHORS = ("center", "top-left", "top-center", "top-right", "left-center", "right-center",
           "bottom-left", "bottom-center", "bottom-right")  # fmt: skip


@dataclass(frozen=True, slots=True)
class OverlayOptions:
    """pi's overlay placement (the portable part): ``anchor`` (one of :data:`ANCHORS`), ``width``
    and ``max_height`` (cells, or ``"50%"`` of the screen), ``margin`` (cells from the edges)."""

    anchor: str = "center"
    width: int | str | None = None
    max_height: int | str | None = None
    margin: int = 0

    @classmethod
    def of(cls, value: Any) -> OverlayOptions:
        if isinstance(value, OverlayOptions):
            return value
        if value is None:
            return cls()
        anchor = str(field_of(value, "anchor") or "center")
        margin = field_of(value, "margin")
        return cls(
            anchor=anchor if anchor in ANCHORS else "center",
            width=field_of(value, "width"),
            max_height=field_of(value, "max_height", "maxHeight"),
            margin=int(margin) if isinstance(margin, (int, float)) else 0,
        )

    def cells(self, value: int | str | None, total: int) -> int | None:
        """``value`` (``width``/``max_height``) in cells of a ``total``-cell screen, None if unset."""
        if isinstance(value, str) and value.endswith("%"):
            try:
                return max(1, int(total * float(value[:-1]) / 100))
            except ValueError:
                return None
        if isinstance(value, (int, float)) and value > 0:
            return min(int(value), total)
        return None


@dataclass(frozen=True, slots=True)
class CustomOptions:
    """``ctx.ui.custom``'s options: ``overlay`` and its placement (fixed or asked at each draw)."""

    overlay: bool = False
    overlay_options: OverlayOptions | Callable[[], Any] | None = None

    @classmethod
    def of(cls, value: Any) -> CustomOptions:
        if isinstance(value, CustomOptions):
            return value
        if value is None:
            return cls()
        placement = field_of(value, "overlay_options", "overlayOptions")
        fixed = placement if callable(placement) else (None if placement is None else OverlayOptions.of(placement))
        return cls(overlay=bool(field_of(value, "overlay")), overlay_options=fixed)

    def placement(self, component: Any = None) -> OverlayOptions:
        """The placement for this draw; without options, the component's own ``width`` (as pi)."""
        if callable(self.overlay_options):
            return OverlayOptions.of(self.overlay_options())
        if self.overlay_options is not None:
            return self.overlay_options
        width = field_of(component, "width")
        return OverlayOptions(width=width if isinstance(width, (int, str)) else None)


def field_of(value: Any, *names: str) -> Any:
    """One field of a dict or an object (an extension's options or component), None if absent."""
    for name in names:
        found = value.get(name) if isinstance(value, dict) else getattr(value, name, None)
        if found is not None:
            return found
    return None


class HostedComponent:
    """One ``ctx.ui.custom`` component as the front end holds it: lines to draw, keys to send.
    An error from the component ends the call with that error; the front end just redraws."""

    def __init__(self, component: Any, tui: ComponentTui, result: asyncio.Future[Any]) -> None:
        self.component = component
        self.tui = tui
        self._result = result

    @property
    def closed(self) -> bool:
        return self._result.done()

    def _call(self, name: str, *args: Any) -> Any:
        method = field_of(self.component, name)
        if method is None:
            return None
        try:
            return method(*args)
        except Exception as exc:  # the extension's bug: close the component, raise in its await
            if not self._result.done():
                self._result.set_exception(exc)
            return None

    def lines(self, width: int) -> list[str]:
        """The component's lines at ``width``: newlines split, tabs as spaces, SGR kept only."""
        if self.closed:
            return []
        drawn = self._call("render", max(1, width))
        if drawn is None:
            return []
        rows = [drawn] if isinstance(drawn, str) else drawn
        return [keep_sgr(row).replace("\t", "    ") for item in rows for row in str(item).split("\n")]

    def send(self, data: str) -> None:
        """A key, as terminal data; ignored once the component is done."""
        if not self.closed:
            self._call("handle_input", data)

    def invalidate(self) -> None:
        self._call("invalidate")

    def withdraw(self) -> None:
        """The front end took the component away without ``done`` (it is closing): the call
        answers None, so nothing waits on a view that is gone."""
        if not self._result.done():
            self._result.set_result(None)

    def dispose(self) -> None:
        method = field_of(self.component, "dispose")
        if method is not None:
            try:
                method()
            except Exception:  # closing anyway; a failing cleanup must not hide the result
                pass


async def run_custom(present: Present | None, factory: BoundFactory, options: CustomOptions) -> Any:
    """Build the component, let ``present`` show it, and give the value passed to ``done``.
    Without ``present`` (no terminal UI) the factory is not called and the answer is None. The
    component is taken away however the wait ends (done, an error, the caller cancelled)."""
    if present is None:
        return None
    result: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    tui = ComponentTui()

    def done(value: Any = None) -> None:
        if not result.done():
            result.set_result(value)

    made = factory(tui, done)
    if inspect.isawaitable(made):
        made = await made
    if result.done():  # done() while building: nothing to show
        return result.result()
    hosted = HostedComponent(made, tui, result)
    close = present(hosted, options)
    try:
        return await result
    finally:
        close()
        hosted.dispose()
