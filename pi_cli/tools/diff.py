"""Line diffs in pi's compact display format, used for ``edit`` results.

Each line is ``+<n> text`` (added, numbered in the new file), ``-<n> text`` (removed, numbered in
the old file) or `` <n> text`` (unchanged context). Numbers are right-aligned to the width of the
longer file's line count. Up to ``context`` unchanged lines are shown next to each change; longer
unchanged stretches collapse to `` <pad> ...``.
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


def generate_diff(old: str, new: str, context: int = 4) -> DiffResult:
    """Diff two LF texts into pi's numbered format; also return the first changed new-file line."""
    old_lines = _split_lf(old)
    new_lines = _split_lf(new)
    width = len(str(max(len(old.split("\n")), len(new.split("\n")))))
    pad = " " * width
    out: list[str] = []
    old_no = 1
    new_no = 1
    first_changed: int | None = None

    # Turn opcodes into pi's part sequence: equal runs, and removed-then-added for replacements.
    parts: list[tuple[str, list[str]]] = []
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            parts.append(("=", old_lines[i1:i2]))
            continue
        if i2 > i1:
            parts.append(("-", old_lines[i1:i2]))
        if j2 > j1:
            parts.append(("+", new_lines[j1:j2]))

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
