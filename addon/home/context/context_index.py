"""The exposed entities of one home model, indexed by the words people use for them.

Built once per home model object (the sync swaps in a new one when names, areas or exposure
change), so a request costs dictionary look-ups and set intersections, never a walk over every
entity: about a millisecond at 10,000 entities (``bench/large_home.py``). It holds only what the
prompt's overview lists (exposed, scripts and calendars apart), so nothing selected from it or
found by the search tool can be an entity the user did not expose.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from addon.home.context.lexicon import FILLER, Kind, is_outdoor, words
from addon.home.context.overview import overview_entities
from addon.home.model.entities import Entity
from addon.home.model.live import HomeModel

Phrase = tuple[str, ...]

RARE = 400
"""A word on more entities than this does not rank names home-wide on its own ("light")."""


def _freeze(table: Mapping[str, set[str]]) -> Mapping[str, frozenset[str]]:
    return MappingProxyType({key: frozenset(value) for key, value in table.items()})


@dataclass(frozen=True, slots=True)
class ContextIndex:
    """Look-up tables over the listable exposed entities of one model; immutable."""

    entities: Mapping[str, Entity]
    """Exposed entities the overview lists, in its order (by name)."""
    rank: Mapping[str, int]
    """Each entity's position in that order, to list results stably."""
    by_word: Mapping[str, frozenset[str]]
    """A folded word of a name or alias → the entities that have it."""
    listing: Mapping[str, tuple[str, ...]]
    """The same entities in :meth:`shortest` order, so the best few are the first few."""
    entity_words: Mapping[str, frozenset[str]]
    entity_kinds: Mapping[str, tuple[Kind, ...]]
    """Each entity's domain, and its domain with its device class."""
    by_phrase: Mapping[Phrase, tuple[str, ...]]
    """A whole name or alias, as folded words → the entities with it, in :meth:`shortest` order."""
    by_pair: Mapping[Phrase, tuple[str, ...]]
    """Two adjacent words of a name or alias of three words or more → the entities with them in
    that order, shortest first: "the light strip" is "Desk light strip", not "Strip Light"."""
    area_phrases: Mapping[Phrase, tuple[str, ...]]
    floor_phrases: Mapping[Phrase, tuple[str, ...]]
    longest_phrase: int
    name_reach: Mapping[str, int]
    """A word → the most words of a name or alias (a key of :attr:`by_phrase`) starting with it.

    A request's words are tried as the start of every name up to this long: a word that starts
    none (most of what people say) costs one look-up instead of one per length up to
    :attr:`longest_phrase`."""
    place_reach: Mapping[str, int]
    """The same for the areas' and floors' names and aliases."""
    by_area: Mapping[str, tuple[str, ...]]
    area_names: Mapping[str, str]
    """Each area's name and aliases, as the overview writes them."""
    by_floor: Mapping[str, tuple[str, ...]]
    """A floor → its areas, in registry order."""
    by_kind: Mapping[Kind, frozenset[str]]
    outdoor: Mapping[str, int]
    """Entities outdoors: 0 when a name says so ("Outdoor temperature", "Außentemperatur"),
    1 when only the area does ("Patio", "Garten"); the rest are not in it."""

    @classmethod
    def build(cls, model: HomeModel) -> ContextIndex:
        """Index ``model``'s listable exposed entities, areas and floors."""
        listed = overview_entities(model)
        by_word: dict[str, set[str]] = {}
        entity_words: dict[str, frozenset[str]] = {}
        by_phrase: dict[Phrase, set[str]] = {}
        by_pair: dict[Phrase, set[str]] = {}
        by_area: dict[str, list[str]] = {}
        by_kind: dict[Kind, set[str]] = {}
        entity_kinds: dict[str, tuple[Kind, ...]] = {}
        longest = 1
        for entity in listed:
            entity_id = entity.entity_id
            own: set[str] = set()
            for name in entity.names:
                phrase = words(name)
                if not phrase:
                    continue
                longest = max(longest, len(phrase))
                by_phrase.setdefault(phrase, set()).add(entity_id)
                if len(phrase) > 2:
                    for pair in itertools.pairwise(phrase):
                        by_pair.setdefault(pair, set()).add(entity_id)
                own.update(phrase)
            entity_words[entity_id] = frozenset(own - FILLER) or frozenset(own)
            for word in entity_words[entity_id]:
                by_word.setdefault(word, set()).add(entity_id)
            if entity.area_id is not None and entity.area_id in model.areas:
                by_area.setdefault(entity.area_id, []).append(entity_id)
            kinds: tuple[Kind, ...] = ((entity.domain, None),)
            if entity.device_class:
                kinds = (*kinds, (entity.domain, entity.device_class))
            entity_kinds[entity_id] = kinds
            for kind in kinds:
                by_kind.setdefault(kind, set()).add(entity_id)
        rank = {entity.entity_id: i for i, entity in enumerate(listed)}
        outdoor_words = {word for word in by_word if is_outdoor(word)}
        outdoor_areas = {
            area.area_id
            for area in model.areas.values()
            if any(is_outdoor(word) for text in (area.name, *area.aliases) for word in words(text))
        }
        outdoor: dict[str, int] = {}
        for entity in listed:
            if entity_words[entity.entity_id] & outdoor_words:
                outdoor[entity.entity_id] = 0
            elif entity.area_id in outdoor_areas:
                outdoor[entity.entity_id] = 1

        def shortest(ids: set[str]) -> tuple[str, ...]:
            return tuple(sorted(ids, key=lambda e: (len(entity_words[e]), rank[e])))

        area_phrases = _place_phrases(
            (area.area_id, (area.name, *area.aliases)) for area in model.areas.values()
        )
        floor_phrases = _place_phrases(
            (floor.floor_id, (floor.name, *floor.aliases)) for floor in model.floors.values()
        )
        return cls(
            entities=MappingProxyType({entity.entity_id: entity for entity in listed}),
            rank=MappingProxyType(rank),
            by_word=_freeze(by_word),
            listing=MappingProxyType({word: shortest(ids) for word, ids in by_word.items()}),
            entity_words=MappingProxyType(entity_words),
            entity_kinds=MappingProxyType(entity_kinds),
            by_phrase=MappingProxyType({key: shortest(ids) for key, ids in by_phrase.items()}),
            by_pair=MappingProxyType({key: shortest(ids) for key, ids in by_pair.items()}),
            area_phrases=area_phrases,
            floor_phrases=floor_phrases,
            longest_phrase=longest,
            name_reach=_reach(by_phrase),
            place_reach=_reach([*area_phrases, *floor_phrases]),
            by_area=MappingProxyType({key: tuple(ids) for key, ids in by_area.items()}),
            area_names=MappingProxyType(
                {a.area_id: ", ".join((a.name, *a.aliases)) for a in model.areas.values()}
            ),
            by_floor=MappingProxyType(
                {
                    floor_id: tuple(
                        a.area_id for a in model.areas.values() if a.floor_id == floor_id
                    )
                    for floor_id in model.floors
                }
            ),
            by_kind=MappingProxyType({key: frozenset(ids) for key, ids in by_kind.items()}),
            outdoor=MappingProxyType(outdoor),
        )

    def ordered(self, entity_ids: Iterable[str]) -> list[str]:
        """``entity_ids`` in the overview's order."""
        rank = self.rank
        return sorted(entity_ids, key=lambda entity_id: rank.get(entity_id, len(rank)))

    def named(self, name_words: Iterable[str], limit: int) -> tuple[str, ...]:
        """Entities whose names and aliases hold every one of ``name_words`` (a partial name).

        At most ``limit + 1``, those with the fewest other words first, so a caller can tell
        "these few" from "more than ``limit``" without the cost of finding them all. When no
        entity holds them all, the entities holding the most of the rarer ones: "the reading
        light" still finds "Reading Lamp" by "reading".
        """
        wanted = sorted(
            (word for word in set(name_words) if word in self.by_word),
            key=lambda word: len(self.by_word[word]),
        )
        if not wanted:
            return ()
        others = [self.by_word[word] for word in wanted[1:]]
        found: list[str] = []
        for entity_id in self.listing[wanted[0]]:
            if all(entity_id in posting for posting in others):
                found.append(entity_id)
                if len(found) > limit:
                    return tuple(found)
        if found:
            return tuple(found)
        counts: Counter[str] = Counter()
        for word in wanted:
            if len(self.by_word[word]) <= RARE:
                counts.update(self.by_word[word])
        if not counts:
            return ()
        best = max(counts.values())
        ties = [entity_id for entity_id, count in counts.items() if count == best]
        ordered = sorted(ties, key=lambda e: (len(self.entity_words[e]), self.rank[e]))
        return tuple(ordered[: limit + 1])

    def coverage(self, entity_id: str, name_words: frozenset[str]) -> float:
        """The share of the entity's own words that the request said, 0 to 1."""
        own = self.entity_words.get(entity_id, frozenset())
        return len(own & name_words) / len(own) if own else 0.0

    def is_kind(self, entity_id: str, kinds: frozenset[Kind]) -> bool:
        """Whether the entity is of one of ``kinds``."""
        return any(kind in kinds for kind in self.entity_kinds.get(entity_id, ()))

    def of_kinds(self, kinds: Iterable[Kind]) -> frozenset[str]:
        """The entities of any of ``kinds``."""
        return frozenset().union(*(self.by_kind.get(kind, frozenset()) for kind in kinds))

    def in_areas(self, area_ids: Iterable[str]) -> list[str]:
        """The entities of the areas, area by area."""
        return [entity_id for area_id in area_ids for entity_id in self.by_area.get(area_id, ())]


def _place_phrases(
    places: Iterable[tuple[str, tuple[str, ...]]],
) -> Mapping[Phrase, tuple[str, ...]]:
    table: dict[Phrase, list[str]] = {}
    for place_id, names in places:
        for name in names:
            phrase = words(name)
            if phrase and place_id not in table.setdefault(phrase, []):
                table[phrase].append(place_id)
    return MappingProxyType({key: tuple(ids) for key, ids in table.items()})


def _reach(phrases: Iterable[Phrase]) -> Mapping[str, int]:
    """Each first word of ``phrases`` → the length of the longest phrase starting with it."""
    reach: dict[str, int] = {}
    for phrase in phrases:
        if phrase and len(phrase) > reach.get(phrase[0], 0):
            reach[phrase[0]] = len(phrase)
    return MappingProxyType(reach)
