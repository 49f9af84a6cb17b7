"""What extensions draw with: ``ctx.ui.theme`` (the active theme's colours as ANSI styles), tool
renderers (a tool's ``render_call`` / ``render_result``, looked up by the front ends through the
runner's ``renderer_for``) and renderers of custom messages and entries by ``customType``. Nothing
here imports a UI toolkit: renderers give lines of text that may carry ANSI SGR styles, and each
front end draws them its own way. ``ctx.ui.custom`` components (:mod:`.component`) take keys as
terminal data (:mod:`.keys`) and may use the width helpers of :mod:`.text`, the one-line editor of
:mod:`.line_editor`, the pick list of :mod:`.select_list` and the spinner of :mod:`.loader`."""

from pi_cli.extensions.rendering.component import ComponentTui, CustomOptions, OverlayOptions
from pi_cli.extensions.rendering.custom import CustomRenderer
from pi_cli.extensions.rendering.keys import Key, Keybindings, key_data, matches_key, parse_key
from pi_cli.extensions.rendering.text import truncate_to_width, visible_width, wrap_text_with_ansi
from pi_cli.extensions.rendering.theme import ExtensionTheme, theme_of
from pi_cli.extensions.rendering.tool import RenderContext, RenderOptions, ToolRenderer, as_lines

__all__ = [
    "ComponentTui",
    "CustomOptions",
    "CustomRenderer",
    "ExtensionTheme",
    "Key",
    "Keybindings",
    "OverlayOptions",
    "RenderContext",
    "RenderOptions",
    "ToolRenderer",
    "as_lines",
    "key_data",
    "matches_key",
    "parse_key",
    "theme_of",
    "truncate_to_width",
    "visible_width",
    "wrap_text_with_ansi",
]
