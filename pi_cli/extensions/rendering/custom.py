"""Renderers of custom messages and custom entries (pi's ``registerMessageRenderer`` /
``registerEntryRenderer``), looked up by ``customType`` by the terminal front ends.

Contract for extensions: ``renderer(value, options, theme)`` — ``value`` is the custom message
``{role: "custom", customType, content, display, details}`` or the custom entry ``{type:
"custom", customType, data, id, timestamp}``; ``options`` has ``expanded`` (Ctrl-O in the TUI) —
returns what a tool renderer may (a string with ANSI styles, lines, a component with
``render(width)``) or None for the default drawing.

Contract for front ends: :meth:`CustomRenderer.draw` returns the lines to draw or None; it never
raises: a renderer that raises is reported once and the default drawing comes back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pi_cli.extensions.rendering.theme import ExtensionTheme
from pi_cli.extensions.rendering.tool import DEFAULT_WIDTH, RenderOptions, Report, as_lines


class CustomRenderer:
    """One ``customType``'s renderer, registered by extension ``source``."""

    def __init__(
        self, source: str, kind: str, fn: Callable[..., Any], theme: Callable[[], ExtensionTheme], report: Report
    ) -> None:
        self.source = source
        self.kind = kind  # "message" or "entry", for the error report
        self._fn = fn
        self._theme = theme
        self._report = report
        self.failed = False

    def draw(self, value: dict[str, Any], expanded: bool = False, width: int = DEFAULT_WIDTH) -> list[str] | None:
        if self.failed:
            return None
        try:
            return as_lines(self._fn(value, RenderOptions(expanded=expanded), self._theme()), width)
        except Exception as exc:  # an extension's bug: report once, then the default drawing
            self.failed = True
            self._report(self.source, f"{self.kind}_renderer:{value.get('customType', '')}", exc)
            return None
