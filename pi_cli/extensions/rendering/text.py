"""Width helpers for lines that carry SGR styles (pi-tui's ``visibleWidth``, ``truncateToWidth``,
``wrapTextWithAnsi``): widths count terminal cells (wide characters count 2) and ignore the
``ESC [ … m`` sequences, which are kept in place so colours survive a cut or a wrap."""

from __future__ import annotations

import re

from rich.cells import cell_len

_SGR = re.compile(r"\x1b\[[0-9;:]*m")
_RESET = "\x1b[0m"


def _pieces(text: str) -> list[tuple[bool, str]]:
    """``text`` as (is_style, piece): SGR sequences and single characters, in order."""
    out: list[tuple[bool, str]] = []
    at = 0
    for match in _SGR.finditer(text):
        out.extend((False, ch) for ch in text[at : match.start()])
        out.append((True, match.group(0)))
        at = match.end()
    out.extend((False, ch) for ch in text[at:])
    return out


def visible_width(text: str) -> int:
    """The cells ``text`` takes on screen, its SGR styles not counted."""
    return cell_len(_SGR.sub("", text))


def truncate_to_width(text: str, width: int, ellipsis: str = "...", pad: bool = False) -> str:
    """``text`` cut to ``width`` cells, ending in ``ellipsis`` when cut (the styles before the cut
    kept, then reset); ``pad`` fills a shorter line with spaces up to ``width``."""
    width = max(0, width)
    size = visible_width(text)
    if size <= width:
        return text + " " * (width - size) if pad else text
    room = max(0, width - visible_width(ellipsis))
    kept: list[str] = []
    used = 0
    styled = False
    for is_style, piece in _pieces(text):
        if is_style:
            kept.append(piece)
            styled = True
            continue
        cells = cell_len(piece)
        if used + cells > room:
            break
        kept.append(piece)
        used += cells
    cut = "".join(kept) + (_RESET if styled else "") + ellipsis[: max(0, width - used)]
    return cut + " " * (width - visible_width(cut)) if pad else cut


def _split_at(text: str, width: int) -> tuple[str, str]:
    """The first ``width`` cells of ``text`` and the rest (styles stay with the characters after them)."""
    used = 0
    for index, (is_style, piece) in enumerate(pieces := _pieces(text)):
        if is_style:
            continue
        cells = cell_len(piece)
        if used + cells > width:
            return "".join(p for _, p in pieces[:index]), "".join(p for _, p in pieces[index:])
        used += cells
    return text, ""


def wrap_text_with_ansi(text: str, width: int) -> list[str]:
    """``text`` wrapped at word boundaries to lines of at most ``width`` cells (a word longer than
    a line is broken); newlines start new lines. Styles open at a break are carried on (each line
    ends with a reset and the next one re-opens them)."""
    width = max(1, width)
    lines: list[str] = []
    for paragraph in text.split("\n"):
        current = ""
        for word in re.split(r"(?<= )", paragraph):  # words keep their trailing space
            if visible_width(current + word.rstrip(" ")) <= width:
                current += word
                continue
            if current.strip():
                lines.append(current.rstrip(" "))
                current = ""
            while visible_width(word.rstrip(" ")) > width:
                head, word = _split_at(word, width)
                lines.append(head)
            current = word
        lines.append(current.rstrip(" ") if current.strip() else current)
    return _carry_styles(lines)


def _carry_styles(lines: list[str]) -> list[str]:
    """Re-open at each line's start the styles still active at the previous line's end."""
    out: list[str] = []
    active: list[str] = []
    for line in lines:
        prefix = "".join(active)
        for match in _SGR.finditer(line):
            code = match.group(0)
            active = [] if code in (_RESET, "\x1b[m") else [*active, code]
        out.append(prefix + line + (_RESET if active else ""))
    return out
