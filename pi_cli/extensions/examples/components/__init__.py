"""Examples that show their own components with ``ctx.ui.custom`` (a question dialog, a game, a
tool list, a spinner while a model works) or ``set_footer``."""
