"""Whether a new memory says what an old one already says, and what the two become together.

Closeness is the Jaccard similarity of the two texts' content words (lower-cased, stop words of
the eight languages removed), or the cosine of their embeddings when both are given: a rephrasing
that shares few words can still be caught by meaning. Different facts about one thing ("Anna's car
is red" / "Anna's car is blue") share most words but not all, which is why the lexical threshold is
well above one half. Everything here is pure: frozen candidates in, a frozen candidate out.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from addon.memory.candidates import Candidate

JACCARD_THRESHOLD = 0.6
COSINE_THRESHOLD = 0.9
MAX_WORDING_CHARS = 300
"""Beyond this a wording is rambling, not specific: the shorter one is kept instead."""
MAX_MERGED_IMPORTANCE = 0.95
"""Repetition raises importance towards this, never to 1, so a pin still means something."""

_WORD = re.compile(r"\w+")
_STOP_WORDS = frozenset(
    """
    a an the is are was were be been am of to in on at for with and or but that this it its
    it's he she they we i you his her their our my your has have had do does did will would
    there here so as by from not no also very just about user
    der die das ein eine einen einem einer ist sind war waren und oder aber mit von zu im am
    in auf für den dem des es er sie wir ich du ihr sein seine hat haben auch sehr nicht
    le la les un une des est sont et ou de du au aux en il elle ils nous je tu son sa ses
    el los las uno una es son y o del al con por para lo su sus
    de het een is zijn en of van te met op voor hij zij wij ik
    il lo gli una è sono e o di da con per che
    i w z na do się jest są to że a o
    o os um uma é são e ou do da dos das com por para que
    """.split()  # noqa: SIM905 - a word list reads best as text
)


def words(text: str) -> frozenset[str]:
    """The content words of ``text``: lower-cased, stop words and single letters removed."""
    return frozenset(
        word for word in _WORD.findall(text.lower()) if len(word) > 1 and word not in _STOP_WORDS
    )


def jaccard(a: str, b: str) -> float:
    """The share of content words two texts have in common, 0 when either has none."""
    left, right = words(a), words(b)
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The cosine of two vectors; 0 for a zero vector or vectors of different lengths."""
    if len(a) != len(b):
        return 0.0
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0


def is_close(
    new: Candidate,
    existing: Candidate,
    *,
    new_vector: Sequence[float] | None = None,
    existing_vector: Sequence[float] | None = None,
) -> bool:
    """Whether ``new`` says what ``existing`` says, by words or, when given, by embedding."""
    if jaccard(new.content, existing.content) >= JACCARD_THRESHOLD:
        return True
    if new_vector is not None and existing_vector is not None:
        return cosine(new_vector, existing_vector) >= COSINE_THRESHOLD
    return False


def closest(
    new: Candidate,
    existing: Sequence[Candidate],
    *,
    new_vector: Sequence[float] | None = None,
    existing_vectors: Sequence[Sequence[float] | None] | None = None,
) -> int | None:
    """The index of the existing memory ``new`` should merge with, the most similar one; or None."""
    best: tuple[float, int] | None = None
    for index, memory in enumerate(existing):
        vector = existing_vectors[index] if existing_vectors is not None else None
        if not is_close(new, memory, new_vector=new_vector, existing_vector=vector):
            continue
        score = jaccard(new.content, memory.content)
        if new_vector is not None and vector is not None:
            score = max(score, cosine(new_vector, vector))
        if best is None or score > best[0]:
            best = (score, index)
    return None if best is None else best[1]


def merge(existing: Candidate, new: Candidate) -> Candidate:
    """The memory ``existing`` becomes on hearing ``new`` again: ``new`` is the newer one.

    The better wording is kept with its kind: the more specific one (more content words) unless
    it runs past :data:`MAX_WORDING_CHARS`; on a tie the newer wins. Importance rises as for two
    independent signals, ``1 - (1-a)(1-b)``, capped at :data:`MAX_MERGED_IMPORTANCE` but never
    below either. Entities and areas are the union, the kept wording's first.
    """
    kept, other = (new, existing) if _better_or_equal(new, existing) else (existing, new)
    a, b = existing.importance, new.importance
    importance = max(a, b, min(MAX_MERGED_IMPORTANCE, 1 - (1 - a) * (1 - b)))
    return Candidate(
        content=kept.content,
        kind=kept.kind,
        importance=importance,
        entities=tuple(dict.fromkeys((*kept.entities, *other.entities))),
        areas=tuple(dict.fromkeys((*kept.areas, *other.areas))),
    )


def _better_or_equal(new: Candidate, old: Candidate) -> bool:
    """Whether ``new``'s wording is at least as good as ``old``'s."""
    new_long = len(new.content) > MAX_WORDING_CHARS
    old_long = len(old.content) > MAX_WORDING_CHARS
    if new_long != old_long:
        return old_long
    return len(words(new.content)) >= len(words(old.content))
