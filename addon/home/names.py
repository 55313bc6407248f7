"""How names compare: Home Assistant's exact rule for matching, a looser one for suggestions.

Home Assistant 2025.4's ``helpers/intent.py`` ``_normalize_name`` is ``name.strip().casefold()``:
case and surrounding spaces do not matter, but inner spacing and punctuation do ("Kid's Lamp" is
not "Kids Lamp"). Matching uses exactly that, so we act where Assist acts and refuse where it
refuses. The looser key (punctuation dropped, spaces collapsed) is only for finding the names to
suggest after a miss, so a model that wrote "kitchen-lights" is told the real name.
"""

from __future__ import annotations

import re

_NOT_WORD = re.compile(r"[\W_]+", re.UNICODE)


def normalize_name(name: str) -> str:
    """Home Assistant's ``_normalize_name``: the key two names must share to match."""
    return name.strip().casefold()


def loose_name(name: str) -> str:
    """Case, spacing and punctuation folded away; for similarity, never for matching."""
    return " ".join(_NOT_WORD.sub(" ", name.casefold()).split())


def trigrams(loose: str) -> frozenset[str]:
    """Character trigrams of a loose name padded with spaces, so short words still count."""
    padded = f" {loose} "
    return frozenset(padded[i : i + 3] for i in range(len(padded) - 2))


def dice(left: frozenset[str], right: frozenset[str]) -> float:
    """Dice similarity of two trigram sets: 1.0 for the same loose name, 0.0 for nothing shared."""
    total = len(left) + len(right)
    return 2.0 * len(left & right) / total if total else 0.0
