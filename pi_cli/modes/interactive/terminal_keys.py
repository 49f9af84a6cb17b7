"""Terminal key-sequence additions Textual lacks.

Without the kitty keyboard protocol (tmux, most xterm setups) Alt+Enter arrives as ``ESC CR``;
Textual's parser then drops the ESC and reports a plain ``enter``, so a follow-up would be sent
as steering. Mapping the two-byte sequence to a key named ``alt+enter`` restores pi's binding.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class _KeyName:
    value: str  # what Textual reads from its key enum members


def install_alt_enter() -> None:
    """Teach Textual's parser that ``ESC CR`` is Alt+Enter. Idempotent."""
    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS

    table: dict[str, object] = ANSI_SEQUENCES_KEYS  # type: ignore[assignment]
    table.setdefault("\x1b\r", (_KeyName("alt+enter"),))
