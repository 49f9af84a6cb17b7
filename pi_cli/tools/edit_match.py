"""Matching and applying ``edit`` replacements (pure functions, no I/O).

Every ``oldText`` is located in the *original* content (edits do not see each other's results). An
exact match is tried first; if that fails, a tolerant pass compares both sides after
:func:`normalize_for_fuzzy_match` (NFKC, trailing whitespace per line, typographic quotes and
dashes, exotic spaces). As in pi, when any edit needs the tolerant pass the whole content is
replaced by its normalised form before replacing, so the write also normalises those characters
elsewhere in the file. Each ``oldText`` must occur exactly once, edits must not overlap, and the
result must differ from the input; errors use pi's wording (with ``edits[i]`` when there are several).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass

_SINGLE_QUOTES = re.compile("[\u2018\u2019\u201a\u201b]")
_DOUBLE_QUOTES = re.compile("[\u201c\u201d\u201e\u201f]")
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]")
_SPACES = re.compile("[\u00a0\u2002-\u200a\u202f\u205f\u3000]")
_TRAILING_WS = re.compile(r"[ \t\f\v\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+$", re.MULTILINE)


class EditError(ValueError):
    """An edit could not be applied; the message is what the model sees."""


@dataclass(slots=True)
class Edit:
    old_text: str
    new_text: str


@dataclass(slots=True)
class AppliedEdits:
    base_content: str  # the content replacements were applied to (normalised if fuzzy was needed)
    new_content: str
    used_fuzzy: bool


def detect_line_ending(content: str) -> str:
    """``"\\r\\n"`` if the first line break is CRLF, else ``"\\n"``."""
    lf = content.find("\n")
    if lf == -1:
        return "\n"
    return "\r\n" if lf > 0 and content[lf - 1] == "\r" else "\n"


def normalize_to_lf(text: str) -> str:
    """``text`` with CRLF and lone CR line breaks turned into LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def restore_line_endings(text: str, ending: str) -> str:
    """Undo :func:`normalize_to_lf` for a file whose line ending was ``ending``."""
    return text.replace("\n", "\r\n") if ending == "\r\n" else text


def strip_bom(content: str) -> tuple[str, str]:
    """Split a leading U+FEFF off: returns (bom, text)."""
    return ("\ufeff", content[1:]) if content.startswith("\ufeff") else ("", content)


def normalize_for_fuzzy_match(text: str) -> str:
    """The tolerant form both sides are compared in when an exact match fails."""
    text = unicodedata.normalize("NFKC", text)
    text = _TRAILING_WS.sub("", text)
    text = _SINGLE_QUOTES.sub("'", text)
    text = _DOUBLE_QUOTES.sub('"', text)
    text = _DASHES.sub("-", text)
    return _SPACES.sub(" ", text)


def _occurrences(haystack: str, needle: str) -> list[int]:
    """Start offsets of non-overlapping occurrences of ``needle`` (none for an empty needle)."""
    if not needle:  # a whitespace-only oldText normalises to "": find("", i) == i would loop forever
        return []
    found: list[int] = []
    start = haystack.find(needle)
    while start != -1:
        found.append(start)
        start = haystack.find(needle, start + len(needle))
    return found


def _not_found(path: str, index: int, total: int) -> EditError:
    if total == 1:
        return EditError(
            f"Could not find the exact text in {path}. The old text must match exactly including all "
            "whitespace and newlines."
        )
    return EditError(
        f"Could not find edits[{index}] in {path}. The oldText must match exactly including all "
        "whitespace and newlines."
    )


def _not_unique(path: str, index: int, total: int, count: int) -> EditError:
    if total == 1:
        return EditError(
            f"Found {count} occurrences of the text in {path}. The text must be unique. Please provide "
            "more context to make it unique."
        )
    return EditError(
        f"Found {count} occurrences of edits[{index}] in {path}. Each oldText must be unique. Please "
        "provide more context to make it unique."
    )


def apply_edits(content: str, edits: list[Edit], path: str) -> AppliedEdits:
    """Apply ``edits`` to LF-normalised ``content``; raise :class:`EditError` on any problem.

    ``path`` is only used in messages (pass what the model wrote).
    """
    if not edits:
        raise EditError("Edit tool input is invalid. edits must contain at least one replacement.")
    total = len(edits)
    normalized = [Edit(normalize_to_lf(e.old_text), normalize_to_lf(e.new_text)) for e in edits]
    for index, edit in enumerate(normalized):
        if not edit.old_text:
            if total == 1:
                raise EditError(f"oldText must not be empty in {path}.")
            raise EditError(f"edits[{index}].oldText must not be empty in {path}.")

    fuzzy_content: str | None = None
    if any(e.old_text not in content for e in normalized):
        fuzzy_content = normalize_for_fuzzy_match(content)
    base = content
    # Switch to the normalised content only if some edit matches there but not exactly.
    if fuzzy_content is not None and any(
        e.old_text not in content and normalize_for_fuzzy_match(e.old_text) in fuzzy_content for e in normalized
    ):
        base = fuzzy_content

    spans: list[tuple[int, int, int, str]] = []  # (start, length, edit index, new text)
    for index, edit in enumerate(normalized):
        needle = edit.old_text
        hits = _occurrences(base, needle)
        if not hits:
            needle = normalize_for_fuzzy_match(edit.old_text)
            hits = _occurrences(base, needle) if base is fuzzy_content else []
        if not hits:
            raise _not_found(path, index, total)
        if len(hits) > 1:
            raise _not_unique(path, index, total, len(hits))
        spans.append((hits[0], len(needle), index, edit.new_text))

    spans.sort()
    for prev, cur in itertools.pairwise(spans):
        if prev[0] + prev[1] > cur[0]:
            raise EditError(
                f"edits[{prev[2]}] and edits[{cur[2]}] overlap in {path}. Merge them into one edit or "
                "target disjoint regions."
            )

    pieces: list[str] = []
    cursor = 0
    for start, length, _index, new_text in spans:
        pieces.append(base[cursor:start])
        pieces.append(new_text)
        cursor = start + length
    pieces.append(base[cursor:])
    new_content = "".join(pieces)
    if new_content == base:
        if total == 1:
            raise EditError(
                f"No changes made to {path}. The replacement produced identical content. This might "
                "indicate an issue with special characters or the text not existing as expected."
            )
        raise EditError(f"No changes made to {path}. The replacements produced identical content.")
    return AppliedEdits(base, new_content, base is fuzzy_content)
