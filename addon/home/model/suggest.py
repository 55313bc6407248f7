"""Closest names after a miss, fast enough to run on every failed match.

Similarity is the Dice coefficient of character trigrams of loose names (see
:mod:`addon.home.model.names`): misspellings, reordered words and missing words all keep most
trigrams, and an inverted index from trigram to names means only names sharing one are scored.
We tried re-ranking with :class:`difflib.SequenceMatcher`: at about 0.15 ms per name compared it
made a miss in a 1,000-entity home cost over 1 ms, for no better suggestions on our tests.

The index is copy-on-write: posting sets are frozensets replaced on change, so :meth:`copy` is a
few shallow dict copies and a model's copy never sees the live model's renames.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Iterable

from addon.home.model.names import loose_name, trigrams

_SHORTLIST = 64
"""Names ranked before filtering; the full ranking is used only if too few are acceptable."""


class FuzzyIndex:
    """Maps loose names to item ids (entity, area or floor ids) and finds the nearest names."""

    __slots__ = ("_grams", "_ids", "_sizes")

    def __init__(
        self,
        ids: dict[str, frozenset[str]],
        grams: dict[str, frozenset[str]],
        sizes: dict[str, int],
    ) -> None:
        self._ids = ids
        self._grams = grams
        self._sizes = sizes

    @classmethod
    def build(cls, items: Iterable[tuple[str, str]]) -> FuzzyIndex:
        """Index ``(item_id, name)`` pairs in one pass."""
        ids: dict[str, set[str]] = {}
        grams: dict[str, set[str]] = {}
        sizes: dict[str, int] = {}
        for item_id, name in items:
            key = loose_name(name)
            if not key:
                continue
            if key not in ids:
                ids[key] = set()
                key_grams = trigrams(key)
                sizes[key] = len(key_grams)
                for gram in key_grams:
                    grams.setdefault(gram, set()).add(key)
            ids[key].add(item_id)
        return cls(
            {key: frozenset(value) for key, value in ids.items()},
            {gram: frozenset(value) for gram, value in grams.items()},
            sizes,
        )

    def copy(self) -> FuzzyIndex:
        """An independent index sharing the immutable posting sets."""
        return FuzzyIndex(dict(self._ids), dict(self._grams), dict(self._sizes))

    def add(self, item_id: str, name: str) -> None:
        """Index one more name for ``item_id``."""
        key = loose_name(name)
        if not key:
            return
        existing = self._ids.get(key)
        if existing is None:
            key_grams = trigrams(key)
            self._sizes[key] = len(key_grams)
            for gram in key_grams:
                self._grams[gram] = self._grams.get(gram, frozenset()) | {key}
            existing = frozenset()
        self._ids[key] = existing | {item_id}

    def remove(self, item_id: str, name: str) -> None:
        """Forget one name of ``item_id``; the name goes when no item has it any more."""
        key = loose_name(name)
        existing = self._ids.get(key)
        if existing is None or item_id not in existing:
            return
        remaining = existing - {item_id}
        if remaining:
            self._ids[key] = remaining
            return
        del self._ids[key]
        del self._sizes[key]
        for gram in trigrams(key):
            left = self._grams.get(gram, frozenset()) - {key}
            if left:
                self._grams[gram] = left
            else:
                self._grams.pop(gram, None)

    def closest(
        self,
        query: str,
        accept: Callable[[str], bool],
        *,
        limit: int = 5,
        cutoff: float = 0.35,
    ) -> list[tuple[float, str]]:
        """Up to ``limit`` ``(similarity, item_id)`` pairs nearest ``query``, best first.

        Only items for which ``accept(item_id)`` is true count (the caller passes the exposure
        and domain checks), so a suggestion can never name an entity the assistant may not see.
        """
        key = loose_name(query)
        if not key or limit <= 0:
            return []
        query_grams = trigrams(key)
        # Cost grows with the names sharing a trigram: about 0.2 ms at 1,000 entities and
        # 2-3 ms at 10,000, where "room" or "light" is in thousands of names.
        shared: Counter[str] = Counter()
        for gram in query_grams:
            shared.update(self._grams.get(gram, ()))
        size, sizes = len(query_grams), self._sizes
        # Negated scores sort best first, and equal scores alphabetically.
        scored = [(-2.0 * n / (size + sizes[name]), name) for name, n in shared.items()]
        shortlist = heapq.nsmallest(_SHORTLIST, scored)
        found = self._accepted(shortlist, accept, limit, cutoff)
        if len(found) < limit and len(scored) > _SHORTLIST and -shortlist[-1][0] >= cutoff:
            # Too few acceptable names in the shortlist, and more above the cutoff after it.
            found = self._accepted(sorted(scored), accept, limit, cutoff)
        return found

    def _accepted(
        self,
        ranked: list[tuple[float, str]],
        accept: Callable[[str], bool],
        limit: int,
        cutoff: float,
    ) -> list[tuple[float, str]]:
        """The first ``limit`` acceptable items of ``ranked`` scoring at least ``cutoff``."""
        found: list[tuple[float, str]] = []
        for negated, name in ranked:
            if -negated < cutoff:
                break
            for item in sorted(self._ids[name]):
                if accept(item):
                    found.append((-negated, item))
                    if len(found) >= limit:
                        return found
        return found
