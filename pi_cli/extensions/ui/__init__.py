"""``ctx.ui``: what an extension may ask of the front end, and the no-UI fallback.

Each mode binds its own :class:`ExtensionUI` at runtime (RPC: ``extension_ui_request`` messages;
print/json: :class:`NoUI`; TUI and inline: :class:`DialogUI`). Dialogs are async;
``notify``/``set_*`` are fire-and-forget. ``front`` holds the front ends' side, ``options`` what
an extension's ``ctx.ui`` adds on top (dialog options, themes, component slots, prompt spans).
"""

from pi_cli.extensions.ui.front import PLACEMENTS, DialogUI, ExtensionUI, NoUI, ThemeHost
from pi_cli.extensions.ui.options import DialogOptionsUI, PromptSpan

__all__ = ["PLACEMENTS", "DialogOptionsUI", "DialogUI", "ExtensionUI", "NoUI", "PromptSpan", "ThemeHost"]
