"""What a bash command would do, in the terms permission rules speak: parts, constructs, writes.

:func:`analyse` parses a command (:mod:`.parser`) and returns an :class:`Analysis`:

- ``parts``: every command that could run, at any depth — inside ``$(…)``, backticks, ``<(…)``,
  ``bash -c '…'``, ``eval …``, ``xargs CMD``, ``find -exec CMD ;``, ``exec CMD``. A part's ``text``
  is its words after quote removal and brace expansion, joined by spaces (a word holding a blank
  keeps single quotes around it, so word boundaries survive). *Root* parts are the ones an allow
  rule must cover; the others sit inside a construct of a root part and are covered by the rule
  that names that construct. Deny and ask rules look at every part, at its text without leading
  assignments, at its command path's basename (``/bin/rm`` → ``rm``), and through wrappers
  (``env``, ``sudo``, ``nice``, ``timeout``, ``command`` …).
- ``constructs`` of a part: ``$(``, `````, ``<(``, ``>(``, ``eval``, ``exec``, ``-c`` (a shell's
  inline code), ``-S`` (``env -S``), ``xargs``, ``-exec``, ``-execdir``, ``-ok``, ``-okdir``,
  ``-delete`` — each must be named by the allow
  rule that covers the part.
- ``writes``: files that output redirections (``>``, ``>>``, ``>|``, ``&>``, ``<>``, ``>&file``)
  and ``find -fprint``-style actions write, as written; None for a target computed at run time.
  ``/dev/null``, ``/dev/std*``, ``/dev/fd/*`` and ``/dev/tty`` are not files.
- ``error``: why the command could not be read (then nothing can be allowed by a pattern).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from pi_cli.permissions.shell.nodes import OPEN, Command, Script, Word
from pi_cli.permissions.shell.parser import ShellSyntaxError, parse
from pi_cli.permissions.shell.words import brace_expand

SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "fish"})
_NOT_FILES = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty")
_WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
_FIND_EXEC = ("-exec", "-execdir", "-ok", "-okdir")
_FIND_WRITES = {"-fprint": 1, "-fprint0": 1, "-fls": 1, "-fprintf": 1}
# Wrappers: options that take a separate value, per wrapper; the command follows the options.
_WRAPPERS: dict[str, frozenset[str]] = {
    "env": frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "nice": frozenset({"-n", "--adjustment"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"}),
    "doas": frozenset({"-u", "-C"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "setsid": frozenset(),
    "exec": frozenset({"-a"}),
    "xargs": frozenset({"-I", "-i", "-n", "-P", "-d", "-E", "-L", "-l", "-s", "-a", "--delimiter", "--arg-file"}),
}
_TAKES_DURATION = frozenset({"timeout"})
# Commands _special looks at (the shells, eval, exec, xargs, find, cd …); others pass straight by.
_SPECIAL = SHELLS | {"eval", "exec", "xargs", "find", "cd", "pushd", "popd", "env"}


class Part(NamedTuple):
    """One command that could run (see the module doc). A tuple: a 1 KB command makes dozens."""

    text: str
    constructs: frozenset[str]
    variants: tuple[str, ...]
    root: bool
    dynamic: bool  # its command name or inline code is computed at run time


@dataclass(frozen=True, slots=True)
class Analysis:
    parts: tuple[Part, ...]
    writes: tuple[str | None, ...]
    changes_dir: bool
    error: str | None = None

    @property
    def roots(self) -> tuple[Part, ...]:
        return tuple(p for p in self.parts if p.root)


def _show(word_text: str, spaced: bool = True) -> str:
    """A word in a part's text: in single quotes when quoting gave it a blank (or it is empty)."""
    if not word_text or (spaced and (" " in word_text or "\t" in word_text or "\n" in word_text)):
        return f"'{word_text}'"
    return word_text


def _base(command: str) -> str:
    """``/usr/bin/rm`` → ``rm`` (cheaper than os.path.basename on the hot path)."""
    return command.rpartition("/")[2] if "/" in command else command


class _Walker:
    def __init__(self) -> None:
        self.parts: list[Part] = []
        self.writes: list[str | None] = []
        self.changes_dir = False

    def script(self, script: Script, root: bool, depth: int) -> None:
        for command in script.commands:
            self.command(command, root, depth)

    def command(self, cmd: Command, root: bool, depth: int) -> None:
        if depth > 20:
            raise ShellSyntaxError("commands nested too deeply")
        constructs: set[str] = set()
        inner: list[Script] = []
        for word in (*cmd.assigns, *cmd.words):
            if word.kinds:
                constructs |= word.kinds
                inner.extend(word.subs)
        for redirect in cmd.redirects:
            target = redirect.target
            if target is not None:
                if target.kinds:
                    constructs |= target.kinds
                    inner.extend(target.subs)
                self._redirect_write(redirect.op, target)
            for body in redirect.body:
                constructs |= body.kinds
                inner.extend(body.subs)
        expanded: list[str] = []
        shown: list[str] = [_show(w.text, w.spaced) for w in cmd.assigns]
        dynamic = False
        for word in cmd.words:
            if OPEN not in word.marked:  # the usual case: no brace expansion
                text = word.text
                expanded.append(text)
                shown.append(text if text and not word.spaced else _show(text, word.spaced))
                continue
            items = brace_expand(word)
            if items is None:
                dynamic = True
                items = [word.text]
            expanded.extend(items)
            shown.extend(_show(item, word.spaced) for item in items)
        if cmd.data:
            if constructs:
                self._add(cmd.source, constructs, (), root, dynamic)
        elif expanded or cmd.assigns:
            dynamic = dynamic or (bool(cmd.words) and cmd.words[0].dynamic)
            unwrapped = _unwrapped(expanded) if expanded and _base(expanded[0]) in _WRAPPERS else []
            code, opaque = self._special(expanded, unwrapped, cmd.words, constructs)
            inner.extend(code)
            variants = _variants(expanded, unwrapped, bool(cmd.assigns))
            self._add(" ".join(shown), constructs, variants, root, dynamic or opaque)
        for script in inner:
            self.script(script, False, depth + 1)

    def _add(self, text: str, constructs: set[str], variants: tuple[str, ...], root: bool, dynamic: bool) -> None:
        self.parts.append(Part(text, frozenset(constructs), variants, root, dynamic))

    def _redirect_write(self, op: str, target: Word) -> None:
        if op == ">&" and (target.text.isdigit() or target.text == "-"):
            return  # duplicating a descriptor
        if op not in _WRITE_OPS and op != ">&":
            return
        self.writes.append(_target(target))

    def _special(
        self, words: list[str], unwrapped: list[list[str]], raw: list[Word], constructs: set[str]
    ) -> tuple[list[Script], bool]:
        """Constructs given by the command itself and the code it runs; (scripts, opaque)."""
        scripts: list[Script] = []
        opaque = False
        for command_words in (words, *unwrapped) if unwrapped else (words,):
            if not command_words:
                continue
            name = _base(command_words[0])
            if name not in _SPECIAL:
                continue
            args = command_words[1:]
            if name in ("cd", "pushd", "popd"):
                self.changes_dir = True
            if name == "eval":
                constructs.add("eval")
                scripts.append(_parse_code(" ".join(args)))
                opaque = opaque or any(w.dynamic for w in raw[1:])
            elif name == "exec":
                constructs.add("exec")
            elif name == "xargs":
                constructs.add("xargs")
            elif name in SHELLS:
                code = _dash_c(args)
                if code is not None:
                    constructs.add("-c")
                    scripts.append(_parse_code(code))
                    opaque = opaque or "$" in code or "`" in code
            elif name == "find":
                scripts.extend(self._find(args, constructs))
            elif name == "env" and any(a in ("-S", "--split-string") for a in args):
                at = next(i for i, a in enumerate(args) if a in ("-S", "--split-string"))
                constructs.add("-S")
                scripts.append(_parse_code(args[at + 1] if at + 1 < len(args) else ""))
        return scripts, opaque

    def _find(self, args: list[str], constructs: set[str]) -> list[Script]:
        scripts: list[Script] = []
        i = 0
        while i < len(args):
            arg = args[i]
            if arg in _FIND_EXEC:
                constructs.add(arg)
                end = i + 1
                while end < len(args) and args[end] not in (";", "+"):
                    end += 1
                scripts.append(_parse_code(" ".join(_show(a) for a in args[i + 1 : end])))
                i = end
            elif arg == "-delete":
                constructs.add("-delete")
            elif arg in _FIND_WRITES and i + 1 < len(args):
                self.writes.append(_static_path(args[i + 1]))
                i += 1
            i += 1
        return scripts


def _parse_code(code: str) -> Script:
    return parse(code)


def _dash_c(args: list[str]) -> str | None:
    """The inline code of ``bash -c CODE`` (also ``-ec``, ``-lc``, ``-o x -c``); None without -c."""
    for i, arg in enumerate(args):
        if arg.startswith("-") and not arg.startswith("--") and "c" in arg[1:]:
            return args[i + 1] if i + 1 < len(args) else ""
        if not arg.startswith(("-", "+")):
            return None  # a script file: its contents are not the gate's to see
    return None


def _unwrapped(words: list[str]) -> list[list[str]]:
    """The commands wrappers run (``sudo -u x rm y`` → ``rm y``), outermost first."""
    out: list[list[str]] = []
    current = words
    for _ in range(8):
        if not current:
            break
        name = os.path.basename(current[0])
        takes = _WRAPPERS.get(name)
        if takes is None:
            break
        i = 1
        while i < len(current):
            arg = current[i]
            if arg == "--":
                i += 1
                break
            if name == "env" and "=" in arg and not arg.startswith("-"):
                i += 1
                continue
            if not arg.startswith("-") or arg == "-":
                break
            if name == "command" and arg in ("-v", "-V"):
                return out  # a lookup, nothing runs
            i += 2 if arg in takes else 1
        if name in _TAKES_DURATION and i < len(current):
            i += 1
        current = ["echo"] if name == "xargs" and i >= len(current) else current[i:]  # xargs' default
        out.append(current)
    return out


def _variants(words: list[str], unwrapped: list[list[str]], assigned: bool) -> tuple[str, ...]:
    """Further texts for deny/ask rules: the words without leading assignments, the basename form
    and what wrappers run (none for the usual command, whose text is all there is)."""
    if not words or ("/" not in words[0] and not unwrapped and not assigned):
        return ()
    out: list[str] = []
    for command_words in (words, *unwrapped):
        if not command_words:
            continue
        text = " ".join(_show(w) for w in command_words)
        if _base(words[0]) == "xargs" and command_words is not words:
            text += " "  # xargs appends arguments: `xargs rm` runs `rm …`, which `bash(rm *)` must meet
        if text not in out:
            out.append(text)
        base = _base(command_words[0])
        if base != command_words[0]:
            out.append(" ".join([base, *(_show(w) for w in command_words[1:])]))
    return tuple(out)


def _static_path(text: str) -> str | None:
    if any(c in text for c in "$`*?[") or (text.startswith("~") and not text.startswith("~/") and text != "~"):
        return None
    return os.path.expanduser(text) if text.startswith("~") else text


def _target(word: Word) -> str | None:
    """The file a redirection writes, or None when only the running shell knows it."""
    if word.dynamic or (word.tilde and not (word.text == "~" or word.text.startswith("~/"))):
        return None
    text = os.path.expanduser(word.text) if word.tilde else word.text
    if text in _NOT_FILES or text.startswith("/dev/fd/"):
        return ""  # not a file
    return text


@lru_cache(maxsize=512)
def analyse(command: str) -> Analysis:
    """The analysis of ``command`` (module doc); never raises."""
    walker = _Walker()
    try:
        walker.script(parse(command), True, 0)
    except (ShellSyntaxError, RecursionError) as exc:
        return Analysis((), (), False, str(exc) if isinstance(exc, ShellSyntaxError) else "commands nested too deeply")
    writes = tuple(w for w in walker.writes if w != "")
    return Analysis(tuple(walker.parts), writes, walker.changes_dir)
