"""The parsed form of a shell command: :class:`Script` → :class:`Command` → :class:`Word` /
:class:`Redirect`.

A :class:`Word` keeps its text after quote removal (``"a b"`` → ``a b``, ``$'\\x72m'`` → ``rm``,
``r\\<newline>m`` → ``rm``), with expansions only the running shell can do (``$HOME``, ``$(…)``)
kept as written and flagged; ``marked`` is the same text with only the *unquoted* braces and commas
replaced by markers, for brace expansion.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Unquoted brace-expansion characters in Word.marked (private-use code points, never in input).
OPEN, COMMA, CLOSE = "\ue000", "\ue001", "\ue002"


@dataclass(slots=True)
class Word:
    """One shell word (see module doc). ``kinds`` names the constructs in it: ``$(``, `````,
    ``<(``, ``>(``; ``subs`` holds the commands those run."""

    text: str = ""
    marked: str = ""
    raw: str = ""  # as written (reserved words and assignments are recognised on this)
    spaced: bool = False  # a quoted part of it holds a blank (shown in single quotes in a part's text)
    quoted: bool = False
    expands: bool = False  # holds $-expansions or substitutions: its value is known only at run time
    glob: bool = False  # unquoted * ? [
    tilde: bool = False  # starts with an unquoted ~
    kinds: frozenset[str] = frozenset()  # immutable defaults: a word is built per token, cheaply
    subs: tuple[Script, ...] = ()

    @property
    def dynamic(self) -> bool:
        return self.expands or self.glob


@dataclass(slots=True)
class Redirect:
    """``op`` as written (``>``, ``>>``, ``2>`` is ``op=">"`` with ``fd="2"``, ``<<`` …); ``target``
    is None for a heredoc, whose unquoted body's substitutions are in ``body``."""

    op: str
    fd: str = ""
    target: Word | None = None
    body: list[Word] = field(default_factory=list)


@dataclass(slots=True)
class Command:
    """One simple command (or, with ``data``, the words of a control structure)."""

    assigns: list[Word] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    source: str = ""
    data: bool = False

    def empty(self) -> bool:
        return not (self.assigns or self.words or self.redirects)


@dataclass(slots=True)
class Script:
    commands: list[Command] = field(default_factory=list)
