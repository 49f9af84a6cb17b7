"""Binding ``ctx.ui`` of the session's extensions (if any) to a terminal front end.

TUI and inline already ask the approval gate's questions (select/input); extensions reuse those
dialogs through :class:`pi_cli.extensions.ui.DialogUI`, and handler errors become transcript
notices. Nothing is imported when the session has no extensions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def bind_extension_ui(
    session: Any,
    dialogs: Any,
    notify: Callable[[str, str], None],
    set_editor_text: Callable[[str], None] | None = None,
) -> None:
    """Give the session's extension runner this front end's dialogs and notices."""
    runner = getattr(session, "extensions", None)
    if runner is None:
        return
    from pi_cli.extensions.ui import DialogUI

    runner.ui = DialogUI(dialogs, notify, set_editor_text)

    def report(record: dict[str, Any]) -> None:
        notify(f"Extension error ({record['extensionPath']}, {record['event']}): {record['error']}", "error")

    runner.on_error = report
