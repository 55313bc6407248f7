"""A request's words as context selection reads them: places, kinds of device, name words.

Places are read longest phrase first ("the living room" before "room"); what is left is
read for kinds of device (:data:`~addon.home.context.lexicon.KIND_WORDS`, read together so "lock the
door" is locks) and for words of the home's names.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from addon.home.context.context_index import ContextIndex, Phrase
from addon.home.context.lexicon import (
    FILLER,
    KIND_WORDS,
    OUTSIDE,
    VERB_KINDS,
    VERB_LEAD,
    Kind,
    words,
)


@dataclass(frozen=True, slots=True)
class ParsedRequest:
    """The request's words sorted into places, kinds and name words."""

    all_words: Phrase
    area_ids: tuple[str, ...]
    floor_ids: tuple[str, ...]
    kinds: frozenset[Kind]
    kind_words: tuple[tuple[str, tuple[Kind, ...]], ...]
    name_words: frozenset[str]
    """Words of names the request said, places apart."""
    all_name_words: frozenset[str]
    """The same with the places' words."""
    outside: bool
    """Whether the request says "outside" (:data:`~addon.home.context.lexicon.OUTSIDE`)."""


def parse_request(index: ContextIndex, text: str) -> ParsedRequest:
    """Find the places (longest phrase first), the kinds of device and the other name words."""
    said = words(text)
    areas: list[str] = []
    floors: list[str] = []
    rest: list[str] = []
    kind_said: list[str] = []
    i = 0
    reach = index.place_reach
    while i < len(said):
        longest = min(index.longest_phrase, reach.get(said[i], 0), len(said) - i)
        for length in range(longest, 0, -1):
            phrase = said[i : i + length]
            if phrase in index.area_phrases:
                areas.extend(a for a in index.area_phrases[phrase] if a not in areas)
            elif phrase in index.floor_phrases:
                floors.extend(f for f in index.floor_phrases[phrase] if f not in floors)
            else:
                continue
            i += length
            break
        else:
            rest.append(said[i])
            if not _verb(said, i):
                kind_said.append(said[i])
            i += 1
    kind_words = read_kinds(kind_said)
    kinds = frozenset(kind for _word, found in kind_words for kind in found)
    name_words = frozenset(word for word in rest if word not in FILLER and word in index.by_word)
    # Names often hold their area's words ("Pantry Desk Lamp"): home-wide, those count too.
    all_names = frozenset(word for word in said if word not in FILLER and word in index.by_word)
    outside = not OUTSIDE.isdisjoint(said)
    return ParsedRequest(
        said, tuple(areas), tuple(floors), kinds, kind_words, name_words, all_names, outside
    )


def _verb(said: Sequence[str], i: int) -> bool:
    """Whether ``said[i]`` is a kind's word used as a verb ("switch on the lamp")."""
    return said[i] in VERB_KINDS and (i == 0 or said[i - 1] in VERB_LEAD)


def read_kinds(said: Sequence[str]) -> tuple[tuple[str, tuple[Kind, ...]], ...]:
    """The kinds each word names, read together: a domain more words agree on wins.

    "lock the door" is locks, not door sensors: "door" can be either, "lock" only a lock. When
    two or more words share a domain, the words that could mean it are read as it, and an
    ambiguous word that cannot is dropped ("close the garage door": a cover, neither a lock nor
    a door sensor); words of other single domains stay ("water the garden and lock the door").
    A domain alone gives way to the same domain with a device class ("are the windows open":
    window sensors, not every binary sensor).
    """
    found = [(word, KIND_WORDS[word]) for word in dict.fromkeys(said) if word in KIND_WORDS]
    if not found:
        return ()
    votes = Counter(domain for _word, kinds in found for domain in {k[0] for k in kinds})
    most = max(votes.values())
    if most >= 2:
        top = {domain for domain, count in votes.items() if count == most}
        narrowed: list[tuple[str, tuple[Kind, ...]]] = []
        for word, kinds in found:
            agreeing = tuple(kind for kind in kinds if kind[0] in top)
            if agreeing:
                narrowed.append((word, agreeing))
            elif len({kind[0] for kind in kinds}) == 1:
                narrowed.append((word, kinds))
        found = narrowed
    classed = {kind[0] for _word, kinds in found for kind in kinds if kind[1] is not None}
    return tuple(
        (word, specific)
        for word, kinds in found
        if (specific := tuple(k for k in kinds if k[1] is not None or k[0] not in classed))
    )
