"""Examples that draw their own output: tool renderers (``render_call`` / ``render_result``) and
``ctx.ui.theme``."""
