"""Ranking MCP tools for ``tool_search``: BM25 over descriptions, with name and server as fields.

Like pi's ranker in spirit: a tool matching more query terms ranks above one matching fewer; a
term in the tool name counts more than any number of mentions in the description; the server's
name and description help a little; a query that is exactly a tool's name ranks it first.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "with",
    ]
)
_NAME_WEIGHT = 3.0
_SERVER_WEIGHT = 0.5


def _stem(term: str) -> str:
    if len(term) > 4 and term.endswith("ies"):
        return term[:-3] + "y"
    if len(term) > 4 and re.search(r"(ches|shes|sses|xes|zes)$", term):
        return term[:-2]
    if len(term) > 3 and term.endswith("s") and not term.endswith("ss"):
        return term[:-1]
    return term


def tokenize(text: str) -> list[str]:
    """Words of ``text``: identifiers split at case changes and ``_``, stop words dropped, singular."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text).lower()
    return [_stem(w) for w in re.split(r"[^\w]+|_", text) if w and w not in _STOP]


@dataclass(frozen=True, slots=True)
class SearchDoc:
    name: str  # the pi tool name, mcp__server__tool
    text: str  # description and parameter names/descriptions
    server_text: str  # server name and description


def rank(query: str, docs: list[SearchDoc], limit: int) -> list[str]:
    """Names of the best ``limit`` matches of ``query`` (none when nothing matches)."""
    terms = set(tokenize(query))
    if not terms or not docs or limit <= 0:
        return []
    indexed = []
    for doc in docs:
        counts: dict[str, int] = {}
        for term in tokenize(doc.text):
            counts[term] = counts.get(term, 0) + 1
        local = doc.name.split("__")[-1]
        indexed.append(
            (doc, set(tokenize(doc.name)), counts, sum(counts.values()), set(tokenize(doc.server_text)), local)
        )
    average = sum(item[3] for item in indexed) / len(indexed) or 1.0
    idf = {}
    for term in terms:
        freq = sum(1 for _, names, counts, _, server, _ in indexed if term in names or term in counts or term in server)
        idf[term] = math.log(1 + (len(indexed) - freq + 0.5) / (freq + 0.5))
    exact = re.sub(r"[^a-z0-9_]", "_", query.strip().lower())
    scored: list[tuple[bool, int, float, int, str]] = []
    for order, (doc, names, counts, length, server, local) in enumerate(indexed):
        norm = 1.2 * (1 - 0.75 + 0.75 * length / average)
        score, covered = 0.0, 0
        for term in terms:
            count = counts.get(term, 0)
            weight = (_NAME_WEIGHT if term in names else 0) + (_SERVER_WEIGHT if term in server else 0)
            weight += count * 2.2 / (count + norm)
            covered += weight > 0
            score += idf[term] * weight
        if score == 0:
            continue
        local_terms = set(tokenize(local))
        if local_terms and local_terms <= terms:
            score += sum(idf.values())
        name = doc.name.lower()
        is_exact = name == exact or name.endswith(f"__{exact}")
        scored.append((is_exact, covered, score, -order, doc.name))
    scored.sort(reverse=True)
    return [item[4] for item in scored[:limit]]
