"""Examples that show their own components with ``ctx.ui.custom``: a question dialog and a game."""
