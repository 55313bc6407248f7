"""The exposed entities of one home model, indexed by the words people use for them.

Built once per home model object (the sync swaps in a new one when names, areas or exposure
change), so a request costs dictionary look-ups and set intersections, never a walk over every
entity: about a millisecond at 10,000 entities (``bench/large_home.py``). It holds only what the
prompt's overview lists (exposed, scripts and calendars apart), so nothing selected from it or
found by the search tool can be an entity the user did not expose.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from addon.home.entities import Entity
from addon.home.lexicon import FILLER, Kind, words
from addon.home.model import HomeModel
from addon.home.overview import overview_entities

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
    entity_words: Mapping[str, frozenset[str]]
    by_phrase: Mapping[Phrase, frozenset[str]]
    """A whole name or alias, as folded words → the entities with it."""
    area_phrases: Mapping[Phrase, tuple[str, ...]]
    floor_phrases: Mapping[Phrase, tuple[str, ...]]
    longest_phrase: int
    by_area: Mapping[str, tuple[str, ...]]
    by_floor: Mapping[str, tuple[str, ...]]
    """A floor → its areas, in registry order."""
    by_kind: Mapping[Kind, frozenset[str]]

    @classmethod
    def build(cls, model: HomeModel) -> ContextIndex:
        """Index ``model``'s listable exposed entities, areas and floors."""
        listed = overview_entities(model)
        by_word: dict[str, set[str]] = {}
        entity_words: dict[str, frozenset[str]] = {}
        by_phrase: dict[Phrase, set[str]] = {}
        by_area: dict[str, list[str]] = {}
        by_kind: dict[Kind, set[str]] = {}
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
                own.update(phrase)
            entity_words[entity_id] = frozenset(own - FILLER) or frozenset(own)
            for word in entity_words[entity_id]:
                by_word.setdefault(word, set()).add(entity_id)
            if entity.area_id in model.areas:
                by_area.setdefault(entity.area_id, []).append(entity_id)
            by_kind.setdefault((entity.domain, None), set()).add(entity_id)
            if entity.device_class:
                by_kind.setdefault((entity.domain, entity.device_class), set()).add(entity_id)
        return cls(
            entities=MappingProxyType({entity.entity_id: entity for entity in listed}),
            rank=MappingProxyType({entity.entity_id: i for i, entity in enumerate(listed)}),
            by_word=_freeze(by_word),
            entity_words=MappingProxyType(entity_words),
            by_phrase=MappingProxyType({key: frozenset(ids) for key, ids in by_phrase.items()}),
            area_phrases=_place_phrases(
                (area.area_id, (area.name, *area.aliases)) for area in model.areas.values()
            ),
            floor_phrases=_place_phrases(
                (floor.floor_id, (floor.name, *floor.aliases)) for floor in model.floors.values()
            ),
            longest_phrase=longest,
            by_area=MappingProxyType({key: tuple(ids) for key, ids in by_area.items()}),
            by_floor=MappingProxyType(
                {
                    floor_id: tuple(a.area_id for a in model.areas.values() if a.floor_id == floor_id)
                    for floor_id in model.floors
                }
            ),
            by_kind=MappingProxyType({key: frozenset(ids) for key, ids in by_kind.items()}),
        )

    def ordered(self, entity_ids: Iterable[str]) -> list[str]:
        """``entity_ids`` in the overview's order."""
        rank = self.rank
        return sorted(entity_ids, key=lambda entity_id: rank.get(entity_id, len(rank)))

    def named(self, name_words: Iterable[str]) -> frozenset[str]:
        """Entities whose names and aliases hold every one of ``name_words`` (a partial name).

        When no entity holds them all, the entities holding the most of the rarer ones: "the
        reading light" still finds "Reading Lamp" by "reading".
        """
        wanted = [word for word in dict.fromkeys(name_words) if word in self.by_word]
        if not wanted:
            return frozenset()
        postings = sorted((self.by_word[word] for word in wanted), key=len)
        found = postings[0]
        for posting in postings[1:]:
            found = found & posting
            if not found:
                break
        if found:
            return found
        counts: Counter[str] = Counter()
        for posting in postings:
            if len(posting) <= RARE:
                counts.update(posting)
        if not counts:
            return frozenset()
        best = max(counts.values())
        return frozenset(entity_id for entity_id, count in counts.items() if count == best)

    def coverage(self, entity_id: str, name_words: frozenset[str]) -> float:
        """The share of the entity's own words that the request said, 0 to 1."""
        own = self.entity_words.get(entity_id, frozenset())
        return len(own & name_words) / len(own) if own else 0.0

    def of_kinds(self, kinds: Iterable[Kind]) -> frozenset[str]:
        """Entities of any of ``kinds``."""
        found: frozenset[str] = frozenset()
        for kind in kinds:
            found = found | self.by_kind.get(kind, frozenset())
        return found

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
