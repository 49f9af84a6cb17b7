"""Line diffs for ``edit`` results: pi's compact display format and a unified patch.

Display lines are ``+<n> text`` (added, numbered in the new file), ``-<n> text`` (removed, numbered
in the old file) or `` <n> text`` (unchanged context). Numbers are right-aligned to the width of the
longer file's line count. Up to ``context`` unchanged lines are shown next to each change; longer
unchanged stretches collapse to `` <pad> ...``. :func:`unified_patch` writes the same changes as
pi 1.6's ``details.patch`` (jsdiff's ``formatPatch`` with file headers only).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(slots=True)
class DiffResult:
    diff: str
    first_changed_line: int | None  # 1-based, in the new file


def _split_lf(text: str) -> list[str]:
    # Lines keep their "\n" so "x" and "x\n" compare unequal, as in a line-based diff. Only LF
    # counts: str.splitlines would also split on \x0b, \x1c or U+2028 inside a line.
    if not text:
        return []
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


Parts = list[tuple[str, list[str]]]  # ("=" | "-" | "+", lines with their "\n")


def line_parts(old: str, new: str) -> Parts:
    """Two LF texts as pi's part sequence: equal runs, and removed-then-added for replacements."""
    old_lines = _split_lf(old)
    new_lines = _split_lf(new)
    parts: Parts = []
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            parts.append(("=", old_lines[i1:i2]))
            continue
        if i2 > i1:
            parts.append(("-", old_lines[i1:i2]))
        if j2 > j1:
            parts.append(("+", new_lines[j1:j2]))
    return parts


def generate_diff(old: str, new: str, context: int = 4, parts: Parts | None = None) -> DiffResult:
    """Diff two LF texts into pi's numbered format; also return the first changed new-file line.
    ``parts`` (from :func:`line_parts`) saves diffing again."""
    if parts is None:
        parts = line_parts(old, new)
    width = len(str(max(len(old.split("\n")), len(new.split("\n")))))
    pad = " " * width
    out: list[str] = []
    old_no = 1
    new_no = 1
    first_changed: int | None = None

    def show(lines: list[str]) -> None:
        nonlocal old_no, new_no
        for line in lines:
            out.append(f" {str(old_no).rjust(width)} {line.rstrip(chr(10))}")
            old_no += 1
            new_no += 1

    def skip(count: int) -> None:
        nonlocal old_no, new_no
        out.append(f" {pad} ...")
        old_no += count
        new_no += count

    last_was_change = False
    for index, (kind, lines) in enumerate(parts):
        if kind != "=":
            if first_changed is None:
                first_changed = new_no
            for line in lines:
                text = line.rstrip("\n")
                if kind == "+":
                    out.append(f"+{str(new_no).rjust(width)} {text}")
                    new_no += 1
                else:
                    out.append(f"-{str(old_no).rjust(width)} {text}")
                    old_no += 1
            last_was_change = True
            continue
        next_is_change = index + 1 < len(parts) and parts[index + 1][0] != "="
        if last_was_change and next_is_change:
            if len(lines) <= context * 2:
                show(lines)
            else:
                show(lines[:context])
                skip(len(lines) - 2 * context)
                show(lines[-context:])
        elif last_was_change:
            show(lines[:context])
            if len(lines) > context:
                skip(len(lines) - context)
        elif next_is_change:
            hidden = max(0, len(lines) - context)
            if hidden:
                skip(hidden)
            show(lines[hidden:])
        else:
            old_no += len(lines)
            new_no += len(lines)
        last_was_change = False
    return DiffResult("\n".join(out), first_changed)


def unified_patch(path: str, parts: Parts, context: int = 4) -> str:
    """The changes of ``parts`` as a unified patch, byte for byte as jsdiff writes it for pi 1.6.

    ``--- path``/``+++ path`` headers, then hunks with up to ``context`` unchanged lines around
    each change (two changes at most ``2 * context`` lines apart share a hunk); a hunk side of no
    lines starts one line lower; a last line without a newline is followed by ``\\ No newline at
    end of file``.
    """
    items: Parts = [*parts, ("=", [])]
    hunks: list[tuple[int, int, int, int, list[str]]] = []
    lines_out: list[str] = []
    old_start = new_start = 0  # 0: no hunk is open
    old_no = new_no = 1
    for index, (kind, lines) in enumerate(items):
        if kind != "=":
            if not old_start:
                old_start, new_start = old_no, new_no
                before = items[index - 1][1][-context:] if index > 0 and context > 0 else []
                lines_out = [" " + line for line in before]
                old_start -= len(before)
                new_start -= len(before)
            lines_out.extend(kind + line for line in lines)
            if kind == "+":
                new_no += len(lines)
            else:
                old_no += len(lines)
            continue
        if old_start:
            if len(lines) <= context * 2 and index < len(items) - 2:  # joins the next change's hunk
                lines_out.extend(" " + line for line in lines)
            else:
                size = min(len(lines), context)
                lines_out.extend(" " + line for line in lines[:size])
                hunks.append((old_start, old_no - old_start + size, new_start, new_no - new_start + size, lines_out))
                old_start = new_start = 0
                lines_out = []
        old_no += len(lines)
        new_no += len(lines)
    out = [f"--- {path}", f"+++ {path}"]
    for old_first, old_count, new_first, new_count, body in hunks:
        old_first -= 1 if old_count == 0 else 0
        new_first -= 1 if new_count == 0 else 0
        out.append(f"@@ -{old_first},{old_count} +{new_first},{new_count} @@")
        for line in body:
            if line.endswith("\n"):
                out.append(line[:-1])
            else:
                out.extend((line, "\\ No newline at end of file"))
    return "\n".join(out) + "\n"
