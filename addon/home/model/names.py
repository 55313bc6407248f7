"""How names compare: Home Assistant's exact rule first, a looser one as the fallback.

Home Assistant 2025.4's ``helpers/intent.py`` ``_normalize_name`` is ``name.strip().casefold()``:
case and surrounding spaces do not matter, but inner spacing and punctuation do ("Kitchen-Ceiling"
is not "Kitchen Ceiling"). Matching tries exactly that first, so wherever Assist would act we act
on the same entities. Small local models write "kitchen-ceiling", "Kitchen Ceiling." or
"kitchen  ceiling" for a name they were shown, so when the exact key matches nothing, matching
retries with the loose key, which also finds the names to suggest after a miss.
"""

from __future__ import annotations

import re
import unicodedata

_ASCII_SEPARATORS = re.compile(r"[^a-z0-9]+")


def normalize_name(name: str) -> str:
    """Home Assistant's ``_normalize_name``: the key two names must share to match."""
    return name.strip().casefold()


def loose_name(name: str) -> str:
    """The key of a name with case, spacing and punctuation folded away.

    Case-folded, then every run of characters that are not letters, digits or combining marks
    (punctuation, symbols, whitespace, underscores) becomes one space, and the ends are
    stripped: "Entrance Color + White Lights" gives "entrance color white lights". Marks are
    word characters because they are part of a letter: dropping them would split Hindi words
    and make a decomposed "Bär" look like "Bar". NFKC first and last makes composed and
    decomposed text, and compatibility forms (full-width letters, ligatures), the same key.
    """
    if name.isascii():
        return " ".join(_ASCII_SEPARATORS.sub(" ", name.lower()).split())
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join("".join(char if _is_word(char) else " " for char in folded).split())


def _is_word(char: str) -> bool:
    return char.isalnum() or unicodedata.category(char).startswith("M")


def trigrams(loose: str) -> frozenset[str]:
    """Character trigrams of a loose name padded with spaces, so short words still count."""
    padded = f" {loose} "
    return frozenset(padded[i : i + 3] for i in range(len(padded) - 2))


def dice(left: frozenset[str], right: frozenset[str]) -> float:
    """Dice similarity of two trigram sets: 1.0 for the same loose name, 0.0 for nothing shared."""
    total = len(left) + len(right)
    return 2.0 * len(left & right) / total if total else 0.0
