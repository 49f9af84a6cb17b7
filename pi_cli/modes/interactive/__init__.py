"""Interactive mode: the full-screen Textual TUI.

``run_interactive(session, initial_messages)`` is the entry point ``pi_cli.cli`` calls. Textual is
imported only when it runs, so importing this package stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_cli.session.agent_session import AgentSession


def make_app(session: AgentSession, initial_messages: list[str] | None = None, **kwargs: Any) -> Any:
    """Build the app (shared by the CLI, the tests, the screenshots and the benchmark)."""
    from pi_cli.config.paths import keybindings_path
    from pi_cli.modes.interactive.app import PiApp
    from pi_cli.modes.interactive.keys import load_keymap
    from pi_cli.modes.interactive.terminal_keys import install_alt_enter

    install_alt_enter()
    if "keymap" not in kwargs:
        keymap, warnings = load_keymap(keybindings_path())
        kwargs["keymap"] = keymap
        kwargs["warnings"] = [*kwargs.get("warnings", []), *warnings]
    return PiApp(session, initial_messages, **kwargs)


def run_interactive(
    session: AgentSession, initial_messages: list[str], after_first_paint: Callable[[], None] | None = None
) -> int:
    """Run the TUI until the user quits; returns the process exit code. ``after_first_paint``
    runs once the first frame is on screen and the first-render warm-up is done (idle time)."""
    app = make_app(session, initial_messages, terminal_dark=_terminal_dark(session))
    if after_first_paint is not None:
        app.after_first_paint.append(after_first_paint)
    result = app.run()
    return int(result or 0)


def _terminal_dark(session: AgentSession) -> bool | None:
    """Whether the terminal's background is dark, asked only when the theme follows it; for
    ``system`` the terminal's colours are asked too and given to the session's themes."""
    from pi_cli.resources.themes import luminance

    themes = session.themes
    selected = str(themes.selected or "")
    if selected == "system":
        from pi_cli.modes.terminal_colors import query_palette

        themes.terminal = query_palette()
        return None if themes.terminal is None else luminance(themes.terminal.background) < 0.2
    if "/" not in selected or selected in themes.themes:
        return None
    from pi_cli.modes.terminal_colors import query_background

    background = query_background()
    return None if background is None else luminance(background) < 0.2


__all__ = ["make_app", "run_interactive"]
