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
_FD_PREFIX = re.compile(r"(\d+|\{[A-Za-z_][A-Za-z0-9_]*\})(?=[<>])")
_REDIRECTS = ("&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", ">>", ">&", ">|", "<", ">")
_OPERATORS = (";;&", ";;", ";&", "&&", "||", "|&", ";", "&", "|", "(", ")")
_SKIPPED = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "{", "}", "!", "esac"})
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
        """Commands up to the end, or up to the unmatched ``closing`` ``)`` (consumed)."""
        out = Script()
        cur = Command()
        start = self.i
        parens = 0
        case: list[str] = []  # "pattern" / "body" per open case statement
        s = self.s

        def flush(end: int) -> None:
            nonlocal cur, start
            if not cur.empty():
                cur.source = s[start:end].strip()
                out.commands.append(cur)
            cur = Command()

        while True:
            self._blanks()
            if self.i >= self.n:
                if closing is not None:
                    raise ShellSyntaxError("a $( or ( is not closed")
                flush(self.i)
                return out
            if cur.empty():
                start = self.i
            c = s[self.i]
            if c == "#":
                end = s.find("\n", self.i)
                self.i = self.n if end == -1 else end
                continue
            if c == "\n":
                flush(self.i)
                self.i += 1
                self._read_heredocs()
                continue
            if c in "<>&" and self._at_redirect():
                self._redirect(cur, "")
                continue
            if c in ";&|()":
                op = next(o for o in _OPERATORS if s.startswith(o, self.i))
                if op == ")" and closing == ")" and parens == 0 and not (case and case[-1] == "pattern"):
                    flush(self.i)
                    self.i += 1
                    return out
                at_command = cur.empty()
                flush(self.i)
                self.i += len(op)
                if case and case[-1] == "pattern":
                    if op == ")":
                        case[-1] = "body"
                    continue  # "(" and "|" between patterns
                if op == "(" and s.startswith("(", self.i) and at_command:
                    self.i += 1
                    out.commands.append(Command(words=[self._arith()], source=s[start : self.i].strip(), data=True))
                elif op == "(":
                    parens += 1
                elif op == ")":
                    parens -= 1
                    if parens < 0:
                        raise ShellSyntaxError("unexpected )")
                elif op in (";;", ";&", ";;&") and case:
                    case[-1] = "pattern"
                continue
            prefix = _FD_PREFIX.match(s, self.i)
            if prefix is not None and self._at_redirect(prefix.end()):
                self.i = prefix.end()
                self._redirect(cur, prefix.group(1))
                continue
            word = self.word()
            bare = word.raw
            if case and case[-1] == "pattern":
                if bare == "esac":
                    case.pop()
                else:
                    out.commands.append(Command(words=[word], source=word.text, data=True))
                continue
            if cur.data:
                if bare == "do":
                    flush(self.i)
                else:
                    cur.words.append(word)
                continue
            if cur.words or cur.assigns:
                if not cur.words and _ASSIGNMENT.match(bare):
                    cur.assigns.append(word)
                else:
                    cur.words.append(word)
                continue
            # Command position: reserved words, assignments, function definitions.
            if bare == "esac" and case:
                case.pop()
                continue
            if bare in _SKIPPED or bare == "coproc":
                continue
            if bare == "time":
                self._blanks()
                if s.startswith("-p", self.i) and s[self.i + 2 : self.i + 3] in ("", " ", "\t"):
                    self.i += 2
                continue
            if bare == "function":
                self._blanks()
                self.word()
                self._skip_empty_parens()
                continue
            if bare in ("for", "select"):
                self._blanks()
                if s.startswith("((", self.i):
                    self.i += 2
                    out.commands.append(Command(words=[self._arith()], source=s[start : self.i].strip(), data=True))
                    continue
                cur.data = True
                cur.words.append(word)
                continue
            if bare == "case":
                self._case_head(out, start)
                case.append("pattern")
                continue
            if bare == "[[":
                out.commands.append(self._conditional(word, start))
                continue
            if _ASSIGNMENT.match(bare):
                cur.assigns.append(word)
                continue
            if self._skip_empty_parens():
                continue  # name () { …; }: the body follows as ordinary commands
            cur.words.append(word)

    def _blanks(self) -> None:
        s, n = self.s, self.n
        while self.i < n:
            c = s[self.i]
            if c in " \t\r":
                self.i += 1
            elif c == "\\" and s.startswith("\n", self.i + 1):
                self.i += 2
            else:
                return

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

    def _at_redirect(self, at: int | None = None) -> bool:
        j = self.i if at is None else at
        s = self.s
        if s.startswith(("<(", ">("), j):
            return False  # process substitution
        if s.startswith("&", j):
            return s.startswith(("&>>", "&>"), j)
        return j < self.n and s[j] in "<>"

    def _redirect(self, cur: Command, fd: str) -> None:
        op = next(o for o in _REDIRECTS if self.s.startswith(o, self.i))
        self.i += len(op)
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

    def _case_head(self, out: Script, start: int) -> None:
        self._blanks()
        subject = self.word()
        while self.i < self.n and self.s[self.i] in " \t\n":
            self.i += 1
        if self.word().text != "in":
            raise ShellSyntaxError("case without in")
        out.commands.append(Command(words=[subject], source=self.s[start : self.i].strip(), data=True))

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
            w.subs.extend(inner.subs)
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
        w.subs.append(inner.script(closing=")"))
        self.i = inner.i
        w.kinds.add(kind)
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
        w.subs.append(_Parser(inner, self.depth + 1).script())
        w.kinds.add("`")
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
        w.subs.extend(scratch.subs)
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
