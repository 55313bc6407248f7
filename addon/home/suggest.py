"""Closest names after a miss, fast enough to run on every failed match.

A trigram index over loose names (see :mod:`addon.home.names`) picks a short list by Dice
similarity; :class:`difflib.SequenceMatcher` reorders only that list. Scoring every name with
difflib would cost tens of milliseconds in a large home; this costs well under one.

The index is copy-on-write: posting sets are frozensets replaced on change, so :meth:`copy` is a
pair of shallow dict copies and a model's copy never sees the live model's renames.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from difflib import SequenceMatcher

from addon.home.names import loose_name, trigrams

_SHORTLIST = 32
"""How many Dice-ranked names difflib re-scores; enough that the true nearest is among them."""


class FuzzyIndex:
    """Maps loose names to item ids (entity, area or floor ids) and finds the nearest names."""

    __slots__ = ("_grams", "_ids")

    def __init__(self, ids: dict[str, frozenset[str]], grams: dict[str, frozenset[str]]) -> None:
        self._ids = ids
        self._grams = grams

    @classmethod
    def build(cls, items: Iterable[tuple[str, str]]) -> FuzzyIndex:
        """Index ``(item_id, name)`` pairs in one pass."""
        ids: dict[str, set[str]] = {}
        grams: dict[str, set[str]] = {}
        for item_id, name in items:
            key = loose_name(name)
            if not key:
                continue
            if key not in ids:
                ids[key] = set()
                for gram in trigrams(key):
                    grams.setdefault(gram, set()).add(key)
            ids[key].add(item_id)
        return cls(
            {key: frozenset(value) for key, value in ids.items()},
            {gram: frozenset(value) for gram, value in grams.items()},
        )

    def copy(self) -> FuzzyIndex:
        """An independent index sharing the immutable posting sets."""
        return FuzzyIndex(dict(self._ids), dict(self._grams))

    def add(self, item_id: str, name: str) -> None:
        """Index one more name for ``item_id``."""
        key = loose_name(name)
        if not key:
            return
        existing = self._ids.get(key)
        if existing is None:
            for gram in trigrams(key):
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
        cutoff: float = 0.4,
    ) -> list[tuple[str, str]]:
        """Up to ``limit`` ``(item_id, loose name)`` pairs nearest ``query``, best first.

        Only items for which ``accept(item_id)`` is true count (the caller passes the exposure
        and domain checks), so a suggestion can never name an entity the assistant may not see.
        """
        key = loose_name(query)
        if not key or limit <= 0:
            return []
        query_grams = trigrams(key)
        shared: Counter[str] = Counter()
        for gram in query_grams:
            shared.update(self._grams.get(gram, ()))
        # A padded name of n characters has at most n trigrams: cheap and close enough to rank.
        size = len(query_grams)
        ranked = sorted(
            ((2.0 * count / (size + len(name)), name) for name, count in shared.items()),
            key=lambda item: (-item[0], item[1]),
        )
        shortlist: list[tuple[float, str, list[str]]] = []
        examined = 0
        for dice, name in ranked:
            accepted = sorted(item for item in self._ids[name] if accept(item))
            if not accepted:
                continue
            examined += 1
            score = (dice + SequenceMatcher(None, key, name).ratio()) / 2.0
            if score >= cutoff:
                shortlist.append((score, name, accepted))
            if examined >= _SHORTLIST:
                break
        shortlist.sort(key=lambda item: (-item[0], item[1]))
        found: list[tuple[str, str]] = []
        for _score, name, accepted in shortlist:
            for item in accepted:
                found.append((item, name))
                if len(found) >= limit:
                    return found
        return found
