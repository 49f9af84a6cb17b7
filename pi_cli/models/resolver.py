"""Turning a user's model pattern into a model, pi's way, and the ``--list-models`` table.

Pattern rules (pi's model resolver): an exact ``provider/id`` or bare ``id`` (case-insensitive)
wins; otherwise a substring of the id or display name matches, preferring undated aliases
(``claude-sonnet-4-5`` over ``claude-sonnet-4-5-20250929``) and, among several, the id that sorts
last; a trailing ``:<thinking level>`` is split off only when the whole pattern matches nothing, so
ids containing colons (OpenRouter's ``:free``) keep working.

Pure functions over lists of models; :class:`~pi_cli.models.registry.ModelRegistry` adds
providers, credentials and the CLI's fallbacks on top.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from pi_cli.ai.models import is_thinking_level
from pi_cli.ai.types import Model, ThinkingLevel

_DATE_SUFFIX = re.compile(r"-\d{8}$")
T = TypeVar("T")


@dataclass(slots=True)
class PatternMatch:
    """A parse of ``pattern``: the model (or ``None``) and a ``:level`` suffix if one was used."""

    model: Model | None
    thinking_level: ThinkingLevel | None = None
    warning: str | None = None


def is_alias(model_id: str) -> bool:
    """True for ids without a ``-YYYYMMDD`` date suffix (and for ``-latest`` ids)."""
    return model_id.endswith("-latest") or not _DATE_SUFFIX.search(model_id)


def find_exact_match(reference: str, models: Sequence[Model]) -> Model | None:
    """``provider/id`` or bare ``id``, case-insensitive; ``None`` when absent or ambiguous."""
    ref = reference.strip()
    if not ref:
        return None
    lower = ref.lower()
    canonical = [m for m in models if f"{m['provider']}/{m['id']}".lower() == lower]
    if canonical:
        return canonical[0] if len(canonical) == 1 else None
    provider, slash, model_id = ref.partition("/")
    if slash and provider.strip() and model_id.strip():
        scoped = [
            m
            for m in models
            if m["provider"].lower() == provider.strip().lower() and m["id"].lower() == model_id.strip().lower()
        ]
        if scoped:
            return scoped[0] if len(scoped) == 1 else None
    by_id = [m for m in models if m["id"].lower() == lower]
    return by_id[0] if len(by_id) == 1 else None


def _id_sort_key(model: Model) -> tuple[str, str]:
    return (model["id"].casefold(), model["id"])


def match_model(pattern: str, models: Sequence[Model]) -> Model | None:
    """Exact match first, then substring of id or name (aliases preferred, highest id first)."""
    exact = find_exact_match(pattern, models)
    if exact is not None:
        return exact
    needle = pattern.lower()
    if not needle:
        return None
    hits = [m for m in models if needle in m["id"].lower() or needle in (m.get("name") or "").lower()]
    if not hits:
        return None
    aliases = [m for m in hits if is_alias(m["id"])]
    pool = aliases or hits
    return max(pool, key=_id_sort_key)


def parse_model_pattern(pattern: str, models: Sequence[Model], *, allow_invalid_level: bool = False) -> PatternMatch:
    """Match ``pattern``, splitting ``:level`` suffixes off from the right only when needed.

    With ``allow_invalid_level`` (scoped ``--models`` lists) an unknown suffix is dropped with a
    warning; otherwise (``--model``) it counts as part of the id, so nothing matches.
    """
    model = match_model(pattern, models)
    if model is not None:
        return PatternMatch(model)
    prefix, colon, suffix = pattern.rpartition(":")
    if not colon:
        return PatternMatch(None)
    if is_thinking_level(suffix):
        inner = parse_model_pattern(prefix, models, allow_invalid_level=allow_invalid_level)
        if inner.model is not None:
            level: ThinkingLevel | None = None if inner.warning else suffix  # type: ignore[assignment]
            return PatternMatch(inner.model, level, inner.warning)
        return inner
    if not allow_invalid_level:
        return PatternMatch(None)
    inner = parse_model_pattern(prefix, models, allow_invalid_level=True)
    if inner.model is not None:
        return PatternMatch(
            inner.model, None, f'Invalid thinking level "{suffix}" in pattern "{pattern}". Using default instead.'
        )
    return inner


def close_matches(pattern: str, models: Sequence[Model], limit: int = 5) -> list[str]:
    """Up to ``limit`` ``provider/id`` names that look like ``pattern`` (for "did you mean")."""
    base = pattern.rsplit(":", 1)[0] if ":" in pattern else pattern
    base_lower = base.lower()
    refs = {f"{m['provider']}/{m['id']}": m for m in models}
    by_lower: dict[str, str] = {}
    for ref, m in refs.items():
        by_lower.setdefault(ref.lower(), ref)
        by_lower.setdefault(m["id"].lower(), ref)
    found: list[str] = []
    for candidate in difflib.get_close_matches(base_lower, list(by_lower), n=limit * 2, cutoff=0.5):
        ref = by_lower[candidate]
        if ref not in found:
            found.append(ref)
    if len(found) < limit:
        tokens = [t for t in re.split(r"[^a-z0-9.]+", base_lower) if len(t) >= 2]
        for ref, m in refs.items():
            if ref not in found and tokens and all(t in f"{ref} {m.get('name', '')}".lower() for t in tokens):
                found.append(ref)
    return found[:limit]


# --- fuzzy filtering (pi-tui's scoring: in-order characters, bonuses for runs and word starts) ---

_WORD_BOUNDARY = set(" \t-_./:")


def _fuzzy_score(query: str, text: str) -> float | None:
    if not query:
        return 0.0
    if len(query) > len(text):
        return None
    qi = 0
    score = 0.0
    last = -1
    run = 0
    for i, ch in enumerate(text):
        if qi >= len(query):
            break
        if ch != query[qi]:
            continue
        if last == i - 1:
            run += 1
            score -= run * 5
        else:
            run = 0
            if last >= 0:
                score += (i - last - 1) * 2
        if i == 0 or text[i - 1] in _WORD_BOUNDARY:
            score -= 10
        score += i * 0.1
        last = i
        qi += 1
    return score if qi == len(query) else None


def fuzzy_score(query: str, text: str) -> float | None:
    """Lower is better; ``None`` when the characters of ``query`` do not all occur in order.

    A query like ``gpt5`` that fails is retried with letters and digits swapped (``5gpt``), at a
    small penalty, as pi does.
    """
    q, t = query.lower(), text.lower()
    score = _fuzzy_score(q, t)
    if score is not None:
        return score
    m = re.fullmatch(r"([a-z]+)([0-9]+)|([0-9]+)([a-z]+)", q)
    if not m:
        return None
    swapped = (m.group(2) + m.group(1)) if m.group(1) else (m.group(4) + m.group(3))
    alt = _fuzzy_score(swapped, t)
    return None if alt is None else alt + 5


def fuzzy_filter(items: Iterable[T], query: str, text_of: Callable[[T], str]) -> list[T]:
    """Items matching every space-separated token of ``query``, best first (stable on ties)."""
    seq = list(items)
    tokens = query.split()
    if not tokens:
        return seq
    scored: list[tuple[float, int, T]] = []
    for index, item in enumerate(seq):
        text = text_of(item)
        total = 0.0
        for token in tokens:
            score = fuzzy_score(token, text)
            if score is None:
                break
            total += score
        else:
            scored.append((total, index, item))
    scored.sort(key=lambda row: (row[0], row[1]))
    return [item for _, _, item in scored]


# --- --list-models ------------------------------------------------------------------------------


def format_token_count(count: int) -> str:
    """``200000`` → ``200K``, ``16384`` → ``16.4K``, ``1000000`` → ``1M`` (pi's list format)."""
    if count >= 1_000_000:
        value = count / 1_000_000
        return f"{int(value)}M" if value == int(value) else f"{value:.1f}M"
    if count >= 1_000:
        value = count / 1_000
        return f"{int(value)}K" if value == int(value) else f"{value:.1f}K"
    return str(count)


def format_model_list(models: Sequence[Model], search: str | None = None) -> str:
    """pi's ``--list-models [search]`` output for ``models`` (normally the available ones).

    A table with columns ``provider model context max-out thinking images`` separated by two
    spaces, sorted by provider then id; ``search`` fuzzy-filters on ``"<provider> <id>"``.
    """
    if not models:
        return "No models available. Set API keys in environment variables."
    rows_models = list(models)
    if search:
        rows_models = fuzzy_filter(rows_models, search, lambda m: f"{m['provider']} {m['id']}")
        if not rows_models:
            return f'No models matching "{search}"'
    rows_models.sort(key=lambda m: (m["provider"].casefold(), m["id"].casefold()))
    header = ("provider", "model", "context", "max-out", "thinking", "images")
    rows = [
        (
            m["provider"],
            m["id"],
            format_token_count(m["contextWindow"]),
            format_token_count(m["maxTokens"]),
            "yes" if m.get("reasoning") else "no",
            "yes" if "image" in m.get("input", []) else "no",
        )
        for m in rows_models
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in [header, *rows]]
    return "\n".join(lines)
