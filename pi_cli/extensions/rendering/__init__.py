"""What extensions draw with: ``ctx.ui.theme`` (the active theme's colours as ANSI styles), tool
renderers (a tool's ``render_call`` / ``render_result``, looked up by the front ends through the
runner's ``renderer_for``) and renderers of custom messages and entries by ``customType``. Nothing
here imports a UI toolkit: renderers give lines of text that may carry ANSI SGR styles, and each
front end draws them its own way."""

from pi_cli.extensions.rendering.custom import CustomRenderer
from pi_cli.extensions.rendering.theme import ExtensionTheme, theme_of
from pi_cli.extensions.rendering.tool import RenderContext, RenderOptions, ToolRenderer, as_lines

__all__ = ["CustomRenderer", "ExtensionTheme", "RenderContext", "RenderOptions", "ToolRenderer", "as_lines", "theme_of"]
