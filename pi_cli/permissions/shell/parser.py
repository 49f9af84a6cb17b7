"""A bash parser for the approval gate: every command a string would run, with its redirections.

It reads what bash reads — quotes and escapes, ``$'…'``, line continuations, comments, heredocs
(quoted or not, ``<<-``), ``$(…)``, backticks, ``$((…))``, ``${…}``, ``<(…)``/``>(…)``,
subshells, groups, ``if``/``for``/``while``/``case``/``[[ ]]``/``(( ))``, functions, and the
operators ``;`` ``&`` ``&&`` ``||`` ``|`` ``|&`` ``;;`` and newlines — and produces a flat
:class:`Script`: the simple commands in source order, each with its words, assignments and
redirections, and the scripts inside its substitutions hanging off its words. Control structure
beyond that is not kept: the gate judges each command that *could* run.

The parser is strict where leniency would hide a command: an unterminated quote or substitution,
or nesting deeper than :data:`MAX_DEPTH`, is a :class:`ShellSyntaxError` (the gate then asks).
Words of ``for … in``, ``case``, ``[[ ]]`` and ``(( ))`` become *data* commands, which run nothing
themselves but may hold substitutions.
"""

from __future__ import annotations

import re

from pi_cli.permissions.shell.nodes import CLOSE, COMMA, OPEN, Command, Redirect, Script, Word
from pi_cli.permissions.shell.words import decode_ansi_c

MAX_DEPTH = 40
_PLAIN = re.compile(r"[^ \t\r\n;&|()<>'\"\\$`{},*?\[]+")  # bash splits words on ASCII blanks only
# A word of plain characters only, ending where the word ends: most words, taken in one match.
_SIMPLE_WORD = re.compile(r"[^ \t\r\n;&|()<>'\"\\$`{},*?\[~]+(?=[ \t\r\n;&|()<>]|$)")
_BLANKS = re.compile(r"(?:[ \t\r]|\\\n)+")
# One token at command level; anything else (quotes, $, backticks, braces, globs, <( ) goes to
# the character-level word reader. Digits right before < or > are a redirection's fd, not a word.
_TOKEN = re.compile(
    # words first: most tokens are words, and the alternation is tried in order
    r"(?:(?P<word>(?!\d+[<>])[^ \t\r\n;&|()<>'\"\\$`{},*?\[~#][^ \t\r\n;&|()<>'\"\\$`{},*?\[]*(?=[ \t\r\n;&|()<>]|$))"
    r"|(?P<blank>(?:[ \t\r]|\\\n)+)"
    r"|(?P<op>;;&|;;|;&|&&|\|\||\|&|[;&|()])"
    r"|(?P<redirect>(?P<fd>\d+|\{[A-Za-z_][A-Za-z0-9_]*\})?(?P<rop>&>>|&>|<<<|<<-|<<|<>|<&|>>|>&|>\||<(?!\()|>(?!\()))"
    r"|(?P<newline>\n)"
    r"|(?P<comment>\#[^\n]*))"
    r"(?:[ \t\r]|\\\n)*"  # blanks after a token are taken with it
)
_SKIPPED = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "{", "}", "!", "esac"})
_RESERVED = _SKIPPED | {"coproc", "time", "function", "for", "select", "case", "[["}
_PARAM_CHARS = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]")


def _has_blank(text: str) -> bool:
    return " " in text or "\t" in text or "\n" in text


class ShellSyntaxError(ValueError):
    """The command cannot be read safely; the message says where."""


_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=")


class _Parser:
    def __init__(self, source: str, depth: int = 0, start: int = 0) -> None:
        if depth > MAX_DEPTH:
            raise ShellSyntaxError("commands nested too deeply")
        self.s = source
        self.n = len(source)
        self.i = start
        self.depth = depth
        self.heredocs: list[tuple[Redirect, str, bool, bool]] = []  # (redirect, delimiter, strip tabs, quoted)

    # -- commands -------------------------------------------------------------------------------

    def script(self, closing: str | None = None) -> Script:
        """Commands up to the end, or up to the unmatched ``closing`` ``)`` (consumed).

        The hot loop of the gate: one token regex run per token, then the fewest checks that
        tell a word at command position (reserved words, assignments) from an argument."""
        out = Script()
        commands = out.commands
        cur = Command()
        fresh = True  # cur holds nothing yet
        start = self.i
        parens = 0
        case: list[str] = []  # "pattern" / "body" per open case statement
        s, n = self.s, self.n
        token = _TOKEN.match

        def flush(end: int) -> None:
            nonlocal cur, fresh
            if not fresh:
                cur.source = s[start:end].strip()
                commands.append(cur)
                cur = Command()
                fresh = True

        while True:
            m = token(s, self.i)
            kind = m.lastgroup if m is not None else None
            if kind == "word" and cur.words and not case and not cur.data:  # an argument: most tokens
                # Arguments in a row, in one tight loop: the common case of every command.
                words = cur.words
                while True:
                    text = m.group("word")  # type: ignore[union-attr]
                    words.append(Word(text, text, text))
                    end = m.end()  # type: ignore[union-attr]
                    m = token(s, end)
                    if m is None or m.lastgroup != "word":
                        break
                self.i = end
                continue
            if kind == "word":
                if fresh:
                    start, fresh = self.i, False
                self.i = m.end()  # type: ignore[union-attr]
                text = m.group("word")  # type: ignore[union-attr]
                word = Word(text, text, text)
            elif kind == "blank":
                self.i = m.end()  # type: ignore[union-attr]
                continue
            elif kind == "op":
                op = m.group("op")  # type: ignore[union-attr]
                if op == ")" and closing == ")" and parens == 0 and not (case and case[-1] == "pattern"):
                    flush(self.i)
                    self.i += 1
                    return out
                at_command = fresh
                flush(self.i)
                self.i += len(op)
                if case and case[-1] == "pattern":
                    if op == ")":
                        case[-1] = "body"
                    continue  # "(" and "|" between patterns
                if op == "(" and at_command and s.startswith("(", self.i):
                    begin = self.i - 1
                    self.i += 1
                    commands.append(Command(words=[self._arith()], source=s[begin : self.i].strip(), data=True))
                elif op == "(":
                    parens += 1
                elif op == ")":
                    parens -= 1
                    if parens < 0:
                        raise ShellSyntaxError("unexpected )")
                elif op in (";;", ";&", ";;&") and case:
                    case[-1] = "pattern"
                continue
            elif kind == "redirect":
                if fresh:
                    start, fresh = self.i, False
                self._redirect(cur, m.group("fd") or "", m.group("rop"), m.end())  # type: ignore[union-attr]
                continue
            elif kind == "newline":
                flush(self.i)
                self.i += 1
                if self.heredocs:
                    self._read_heredocs()
                continue
            elif kind == "comment":
                self.i = m.end()  # type: ignore[union-attr]
                continue
            elif self.i >= n:
                if closing is not None:
                    raise ShellSyntaxError("a $( or ( is not closed")
                flush(self.i)
                return out
            else:
                if fresh:
                    start, fresh = self.i, False
                word = self.word()
                self._blanks()
            bare = word.raw
            if case and case[-1] == "pattern":
                if bare == "esac":
                    case.pop()
                else:
                    commands.append(Command(words=[word], source=word.text, data=True))
                fresh = not (cur.words or cur.assigns or cur.redirects)
                continue
            if cur.data:
                if bare == "do":
                    flush(self.i)
                else:
                    cur.words.append(word)
                continue
            if cur.words:
                cur.words.append(word)
                continue
            if cur.assigns and not ("=" in bare and _ASSIGNMENT.match(bare)):
                cur.words.append(word)
                continue
            # Command position: reserved words, assignments, function definitions.
            if bare in _RESERVED and self._reserved(bare, word, cur, commands, case, start):
                fresh = not (cur.words or cur.assigns or cur.redirects)
                continue
            if "=" in bare and _ASSIGNMENT.match(bare):
                cur.assigns.append(word)
                continue
            if self.i < n and s[self.i] == "(" and self._skip_empty_parens():
                fresh = not (cur.words or cur.assigns or cur.redirects)
                continue  # name () { …; }: the body follows as ordinary commands
            cur.words.append(word)

    def _reserved(
        self, bare: str, word: Word, cur: Command, commands: list[Command], case: list[str], start: int
    ) -> bool:
        """Handle a reserved word at command position; False when it is an ordinary word here."""
        s = self.s
        if bare == "esac":
            if case:
                case.pop()
            return True
        if bare in _SKIPPED or bare == "coproc":
            return True
        if bare == "time":
            if s.startswith("-p", self.i) and s[self.i + 2 : self.i + 3] in ("", " ", "\t"):
                self.i += 2
            return True
        if bare == "function":
            self._blanks()
            self.word()
            self._skip_empty_parens()
            return True
        if bare in ("for", "select"):
            self._blanks()
            if s.startswith("((", self.i):
                self.i += 2
                commands.append(Command(words=[self._arith()], source=s[start : self.i].strip(), data=True))
                return True
            cur.data = True
            cur.words.append(word)
            return True
        if bare == "case":
            self._case_head(commands, start)
            case.append("pattern")
            return True
        if bare == "[[":
            commands.append(self._conditional(word, start))
            return True
        return False

    def _blanks(self) -> None:
        m = _BLANKS.match(self.s, self.i)
        if m is not None:
            self.i = m.end()

    def _skip_empty_parens(self) -> bool:
        save = self.i
        self._blanks()
        if self.i < self.n and self.s[self.i] == "(":
            self.i += 1
            self._blanks()
            if self.i < self.n and self.s[self.i] == ")":
                self.i += 1
                return True
        self.i = save
        return False

    def _redirect(self, cur: Command, fd: str, op: str, end: int) -> None:
        self.i = end
        self._blanks()
        if self.i >= self.n or self.s[self.i] in "\n;&|)":
            raise ShellSyntaxError(f"redirection {op} has no target")
        target = self.word()
        redirect = Redirect(op, fd, None if op in ("<<", "<<-") else target)
        if op in ("<<", "<<-"):
            self.heredocs.append((redirect, target.text, op == "<<-", target.quoted))
        cur.redirects.append(redirect)

    def _read_heredocs(self) -> None:
        s = self.s
        for redirect, delimiter, strip, quoted in self.heredocs:
            body: list[str] = []
            while self.i < self.n:
                end = s.find("\n", self.i)
                end = self.n if end == -1 else end
                line = s[self.i : end]
                self.i = min(end + 1, self.n)
                if (line.lstrip("\t") if strip else line) == delimiter:
                    break
                body.append(line)
            if not quoted and body:
                redirect.body.append(_Parser("\n".join(body), self.depth + 1).heredoc_body())
        self.heredocs.clear()

    def _case_head(self, commands: list[Command], start: int) -> None:
        self._blanks()
        subject = self.word()
        while self.i < self.n and self.s[self.i] in " \t\n":
            self.i += 1
        if self.word().text != "in":
            raise ShellSyntaxError("case without in")
        commands.append(Command(words=[subject], source=self.s[start : self.i].strip(), data=True))

    def _conditional(self, first: Word, start: int) -> Command:
        """``[[ … ]]``: words until ``]]``; ``<``, ``>``, ``(``, ``&&`` are operators of the test."""
        words = [first]
        s = self.s
        while True:
            while self.i < self.n and s[self.i] in " \t\n":
                self.i += 1
            if self.i >= self.n:
                raise ShellSyntaxError("[[ without ]]")
            if s.startswith("]]", self.i) and (self.i + 2 >= self.n or s[self.i + 2] in " \t\n;&|)"):
                self.i += 2
                return Command(words=words, source=s[start : self.i].strip(), data=True)
            if s[self.i] in "()<>&|!":
                self.i += 1
                continue
            words.append(self.word())

    # -- words ----------------------------------------------------------------------------------

    def word(self) -> Word:
        """One word from ``self.i`` (which is not at a blank or an operator)."""
        simple = _SIMPLE_WORD.match(self.s, self.i)
        if simple is not None:
            self.i = simple.end()
            plain = simple.group()
            return Word(plain, plain, plain)
        w = Word()
        text: list[str] = []
        marked: list[str] = []
        s, n = self.s, self.n
        begin = self.i
        if s.startswith("~", self.i):
            w.tilde = True
        while self.i < n:
            m = _PLAIN.match(s, self.i)
            if m is not None:
                text.append(m.group())
                marked.append(m.group())
                self.i = m.end()
                continue
            c = s[self.i]
            if c in " \t\r\n;&|()":
                break
            if c in "<>":
                if not s.startswith("(", self.i + 1):
                    break
                self._substitution(w, text, marked, c + "(")
            elif c == "\\":
                if s.startswith("\n", self.i + 1):
                    self.i += 2
                    continue
                ch = s[self.i + 1 : self.i + 2]
                text.append(ch)
                marked.append(ch)
                w.quoted = True
                w.spaced = w.spaced or _has_blank(ch)
                self.i += 2
            elif c == "'":
                end = s.find("'", self.i + 1)
                if end == -1:
                    raise ShellSyntaxError("a ' quote is not closed")
                piece = s[self.i + 1 : end]
                text.append(piece)
                marked.append(piece)
                w.quoted = True
                w.spaced = w.spaced or _has_blank(piece)
                self.i = end + 1
            elif c == '"':
                self.i += 1
                self._double(w, text, marked)
            elif c == "$":
                self._dollar(w, text, marked, in_double=False)
            elif c == "`":
                self._backtick(w, text, marked)
            elif c in "*?[":
                w.glob = True
                text.append(c)
                marked.append(c)
                self.i += 1
            else:  # { } ,
                text.append(c)
                marked.append({"{": OPEN, ",": COMMA, "}": CLOSE}[c])
                self.i += 1
        if self.i == begin:
            raise ShellSyntaxError(f"unexpected {s[self.i : self.i + 1]!r}")
        w.text = "".join(text)
        w.marked = "".join(marked)
        w.raw = s[begin : self.i]
        return w

    def _double(self, w: Word, text: list[str], marked: list[str]) -> None:
        """Inside ``"…"`` from ``self.i`` to the closing quote (consumed)."""
        s, n = self.s, self.n
        w.quoted = True
        while self.i < n:
            c = s[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\" and self.i + 1 < n and s[self.i + 1] in '$`"\\\n':
                if s[self.i + 1] != "\n":
                    text.append(s[self.i + 1])
                    marked.append(s[self.i + 1])
                self.i += 2
            elif c == "$":
                self._dollar(w, text, marked, in_double=True)
            elif c == "`":
                self._backtick(w, text, marked)
            else:
                end = self.i + 1
                while end < n and s[end] not in '"\\$`':
                    end += 1
                text.append(s[self.i : end])
                marked.append(s[self.i : end])
                w.spaced = w.spaced or _has_blank(s[self.i : end])
                self.i = end
        raise ShellSyntaxError('a " quote is not closed')

    def _dollar(self, w: Word, text: list[str], marked: list[str], *, in_double: bool) -> None:
        s, i = self.s, self.i
        nxt = s[i + 1 : i + 2]
        if nxt == "'" and not in_double:
            j = i + 2
            while j < self.n and s[j] != "'":
                j += 2 if s[j] == "\\" else 1
            if j >= self.n:
                raise ShellSyntaxError("a $' quote is not closed")
            value = decode_ansi_c(s[i + 2 : j])
            text.append(value)
            marked.append(value)
            w.quoted = True
            w.spaced = w.spaced or _has_blank(value)
            self.i = j + 1
        elif nxt == '"' and not in_double:
            self.i += 2
            self._double(w, text, marked)
        elif s.startswith("$((", i):
            try:
                self.i = i + 3
                inner = self._arith()
            except ShellSyntaxError:
                self.i = i  # "$((cmd) …)": a command substitution after all
                self._substitution(w, text, marked, "$(")
                return
            w.kinds |= inner.kinds
            w.subs += inner.subs
            w.expands = True
            text.append(s[i : self.i])
            marked.append(s[i : self.i])
        elif nxt == "(":
            self._substitution(w, text, marked, "$(")
        elif nxt == "{":
            self._parameter(w, text, marked)
        else:
            m = _PARAM_CHARS.match(s, i + 1)
            end = m.end() if m is not None else i + 1
            w.expands = w.expands or m is not None
            text.append(s[i:end])
            marked.append(s[i:end])
            self.i = end

    def _substitution(self, w: Word, text: list[str], marked: list[str], kind: str) -> None:
        """``$(…)``, ``<(…)`` or ``>(…)`` from ``self.i``: its commands, parsed in place."""
        begin = self.i
        inner = _Parser(self.s, self.depth + 1, begin + 2)
        w.subs += (inner.script(closing=")"),)
        self.i = inner.i
        w.kinds |= {kind}
        w.expands = True
        text.append(self.s[begin : self.i])
        marked.append(self.s[begin : self.i])

    def _backtick(self, w: Word, text: list[str], marked: list[str]) -> None:
        s, j = self.s, self.i + 1
        while j < self.n and s[j] != "`":
            j += 2 if s[j] == "\\" else 1
        if j >= self.n:
            raise ShellSyntaxError("a ` quote is not closed")
        raw = s[self.i + 1 : j]
        inner = re.sub(r"\\([$`\\])", r"\1", raw)
        w.subs += (_Parser(inner, self.depth + 1).script(),)
        w.kinds |= {"`"}
        w.expands = True
        text.append(s[self.i : j + 1])
        marked.append(s[self.i : j + 1])
        self.i = j + 1

    def _parameter(self, w: Word, text: list[str], marked: list[str]) -> None:
        """``${…}`` from ``self.i``; substitutions inside it count."""
        begin = self.i
        self.i += 2
        scratch = Word()
        junk: list[str] = []
        s, depth = self.s, 1
        while self.i < self.n:
            c = s[self.i]
            if c == "}":
                depth -= 1
                self.i += 1
                if depth == 0:
                    break
            elif c == "{":
                depth += 1
                self.i += 1
            elif c == "\\":
                self.i += 2
            elif c == '"':  # single quotes are not special here: inside "…" bash runs '$(…)' too
                self.i += 1
                self._double(scratch, junk, junk)
            elif c == "$":
                self._dollar(scratch, junk, junk, in_double=True)
            elif c == "`":
                self._backtick(scratch, junk, junk)
            else:
                self.i += 1
        else:
            raise ShellSyntaxError("a ${ is not closed")
        w.kinds |= scratch.kinds
        w.subs += scratch.subs
        w.expands = True
        text.append(s[begin : self.i])
        marked.append(s[begin : self.i])

    def _arith(self) -> Word:
        """From after ``((`` to the matching ``))`` (consumed): a data word with its substitutions."""
        w = Word()
        junk: list[str] = []
        s, depth, begin = self.s, 0, self.i
        while self.i < self.n:
            c = s[self.i]
            if c == ")" and depth == 0:
                if s.startswith("))", self.i):
                    self.i += 2
                    w.text = w.marked = s[begin : self.i - 2]
                    return w
                raise ShellSyntaxError("(( is not closed by ))")
            if c == "(":
                depth += 1
                self.i += 1
            elif c == ")":
                depth -= 1
                self.i += 1
            elif c == "$":
                self._dollar(w, junk, junk, in_double=True)
            elif c == "`":
                self._backtick(w, junk, junk)
            elif c == '"':
                self.i += 1
                self._double(w, junk, junk)
            else:
                self.i += 1
        raise ShellSyntaxError("(( is not closed by ))")

    def heredoc_body(self) -> Word:
        """An unquoted heredoc body: like double quotes without the quote; its substitutions."""
        w = Word()
        junk: list[str] = []
        while self.i < self.n:
            c = self.s[self.i]
            if c == "\\":
                self.i += 2
            elif c == "$":
                self._dollar(w, junk, junk, in_double=True)
            elif c == "`":
                self._backtick(w, junk, junk)
            else:
                self.i += 1
        return w


def parse(command: str) -> Script:
    """The commands in ``command`` (module doc); :class:`ShellSyntaxError` when it cannot be read."""
    try:
        return _Parser(command).script()
    except RecursionError:
        raise ShellSyntaxError("commands nested too deeply") from None
