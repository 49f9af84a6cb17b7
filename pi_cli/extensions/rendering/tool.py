"""Tool renderers: a registered tool's ``render_call`` / ``render_result`` (pi's ``renderCall`` /
``renderResult``), called by the front ends in place of their default title and output.

Contract for extensions: ``render_call(args, theme, context)`` and
``render_result(result, options, theme, context)`` return a string (may hold ANSI SGR styles and
newlines), a list of lines, an object with ``render(width) -> list[str]`` (pi's component), or
None (the default rendering). ``result`` is the tool result dict (``content``, ``details``);
``options`` has ``expanded`` and ``is_partial``; ``context`` is a :class:`RenderContext`.

Contract for front ends: :meth:`ToolRenderer.call` / :meth:`ToolRenderer.result` return the lines
to draw, or None to draw the default. They never raise: a renderer that raises is reported once
(per slot) through ``report`` and falls back to the default from then on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pi_cli.extensions.rendering.theme import ExtensionTheme

Report = Callable[[str, str, BaseException], None]  # the runner's report(source, event, exc)
DEFAULT_WIDTH = 100  # the width a component's render(width) gets when the front end gives none


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """pi's ``{expanded, isPartial}`` for ``render_result``."""

    expanded: bool = False
    is_partial: bool = False

    @property
    def isPartial(self) -> bool:
        return self.is_partial


@dataclass(slots=True)
class RenderContext:
    """pi's render context (the portable part): the call's ``args`` and id, ``cwd``, whether it
    ``is_partial`` / ``expanded`` / ``is_error``, and ``state``, a dict shared by both slots of one
    tool row (the front end keeps it per card)."""

    tool_call_id: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    cwd: str = ""
    expanded: bool = False
    is_partial: bool = False
    is_error: bool = False
    state: dict[str, Any] = field(default_factory=dict)


def as_lines(value: Any, width: int = DEFAULT_WIDTH) -> list[str] | None:
    """What a renderer returned as lines: a string split at newlines, a list's items as strings, a
    component's ``render(width)``; None stays None (draw the default)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.split("\n")
    render = getattr(value, "render", None)
    if callable(render):
        value = render(width)
    if isinstance(value, (list, tuple)):
        return [line for item in value for line in str(item).split("\n")]
    raise TypeError(f"renderer returned {type(value).__name__}, expected str, list of lines or a component")


class ToolRenderer:
    """One tool's renderers, as registered by extension ``source``. ``theme`` gives the active
    :class:`ExtensionTheme` at each call (a theme change shows at the next draw)."""

    def __init__(
        self,
        source: str,
        tool_name: str,
        render_call: Callable[..., Any] | None,
        render_result: Callable[..., Any] | None,
        theme: Callable[[], ExtensionTheme],
        report: Report,
        shell: str = "default",
    ) -> None:
        self.source = source
        self.tool_name = tool_name
        # pi's ``renderShell``: "self" when the renderers draw the row's whole frame (the front
        # end then drops its own card background and padding), else "default".
        self.shell = shell
        self._render_call = render_call
        self._render_result = render_result
        self._theme = theme
        self._report = report
        self._failed: set[str] = set()  # slots whose renderer raised: default from then on

    @property
    def has_call(self) -> bool:
        return self._render_call is not None and "render_call" not in self._failed

    @property
    def has_result(self) -> bool:
        return self._render_result is not None and "render_result" not in self._failed

    def call(self, args: dict[str, Any], context: RenderContext, width: int = DEFAULT_WIDTH) -> list[str] | None:
        """The call's title lines, or None for the default title."""
        render = self._render_call
        if render is None or not self.has_call:
            return None
        return self._run("render_call", lambda: render(args, self._theme(), context), width)

    def result(
        self, result: dict[str, Any] | None, options: RenderOptions, context: RenderContext, width: int = DEFAULT_WIDTH
    ) -> list[str] | None:
        """The result's lines (``options`` as the card is: expanded, partial), or None for the
        default output."""
        render = self._render_result
        if render is None or not self.has_result:
            return None
        value = dict(result or {"content": []})
        return self._run("render_result", lambda: render(value, options, self._theme(), context), width)

    def _run(self, slot: str, render: Callable[[], Any], width: int) -> list[str] | None:
        try:
            return as_lines(render(), width)
        except Exception as exc:  # an extension's bug: report once, then the default rendering
            self._failed.add(slot)
            self._report(self.source, f"{slot}:{self.tool_name}", exc)
            return None


def renderer_from(spec: Any, source: str, theme: Callable[[], ExtensionTheme], report: Report) -> ToolRenderer | None:
    """The renderers a tool spec (dict or object) carries (``render_call``/``renderCall``,
    ``render_result``/``renderResult``, with ``render_shell``/``renderShell``), or None when it
    has neither."""

    def get(*keys: str) -> Any:
        for key in keys:
            value = spec.get(key) if isinstance(spec, dict) else getattr(spec, key, None)
            if callable(value):
                return value
        return None

    def field(*keys: str) -> Any:
        for key in keys:
            value = spec.get(key) if isinstance(spec, dict) else getattr(spec, key, None)
            if value is not None:
                return value
        return None

    call, result = get("render_call", "renderCall"), get("render_result", "renderResult")
    if call is None and result is None:
        return None
    shell = "self" if field("render_shell", "renderShell") == "self" else "default"
    return ToolRenderer(source, str(field("name") or ""), call, result, theme, report, shell)
