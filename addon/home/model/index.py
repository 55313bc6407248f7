"""Lookup tables over the entities that have a state (the ones Assist can target) and places.

Home Assistant's ``async_match_targets`` walks every state for every request; we answer the same
questions from tables built once: entity ids by domain, by normalized name or alias, by loose
name or alias (the fallback when the normalized one matches nothing), by area and by device
class, plus each entity's position in the state machine (results keep Home Assistant's order).
Tables are copy-on-write (frozenset values replaced on change) so a model copy is a few shallow
dict copies, and a state diff touches only the entries of the entities it changes.

:class:`LoosePlaces` is the same fallback for area and floor names; registries only change by a
rebuild, so it is immutable.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from addon.home.model.entities import Entity
from addon.home.model.names import loose_name
from addon.home.model.records import Area, Floor
from addon.home.model.suggest import FuzzyIndex

_NONE: frozenset[str] = frozenset()


def _put(table: dict[str, frozenset[str]], key: str, entity_id: str) -> None:
    table[key] = table.get(key, _NONE) | {entity_id}


def _drop(table: dict[str, frozenset[str]], key: str, entity_id: str) -> None:
    left = table.get(key, _NONE) - {entity_id}
    if left:
        table[key] = left
    else:
        table.pop(key, None)


def _freeze(table: dict[str, set[str]]) -> dict[str, frozenset[str]]:
    return {key: frozenset(value) for key, value in table.items()}


def loose_keys(entity: Entity) -> frozenset[str]:
    """Loose keys of the names Home Assistant matches for an entity with a state (``name_keys``).

    Taken from the original texts, not from ``name_keys``: loosening an already case-folded
    name can differ from loosening the name itself for a few Greek letters.
    """
    return frozenset(key for text in entity.match_names if (key := loose_name(text)))


class HomeIndex:
    """The tables :mod:`addon.home.targeting.matching` reads; only :class:`HomeModel` writes."""

    __slots__ = (
        "_next",
        "by_area",
        "by_device_class",
        "by_domain",
        "by_loose_name",
        "by_name",
        "fuzzy",
        "order",
    )

    def __init__(
        self,
        *,
        by_domain: dict[str, frozenset[str]],
        by_name: dict[str, frozenset[str]],
        by_loose_name: dict[str, frozenset[str]],
        by_area: dict[str, frozenset[str]],
        by_device_class: dict[str, frozenset[str]],
        order: dict[str, int],
        fuzzy: FuzzyIndex,
        next_position: int,
    ) -> None:
        self.by_domain = by_domain
        self.by_name = by_name
        self.by_loose_name = by_loose_name
        self.by_area = by_area
        self.by_device_class = by_device_class
        self.order = order
        self.fuzzy = fuzzy
        self._next = next_position

    @classmethod
    def build(cls, entities: Iterable[Entity]) -> HomeIndex:
        """Index entities with a state, in the order given (the state machine's order)."""
        by_domain: dict[str, set[str]] = {}
        by_name: dict[str, set[str]] = {}
        by_loose_name: dict[str, set[str]] = {}
        by_area: dict[str, set[str]] = {}
        by_device_class: dict[str, set[str]] = {}
        order: dict[str, int] = {}
        names: list[tuple[str, str]] = []
        for entity in entities:
            if not entity.has_state:
                continue
            entity_id = entity.entity_id
            order[entity_id] = len(order)
            by_domain.setdefault(entity.domain, set()).add(entity_id)
            for key in entity.name_keys:
                by_name.setdefault(key, set()).add(entity_id)
            for key in loose_keys(entity):
                by_loose_name.setdefault(key, set()).add(entity_id)
            if entity.area_id:
                by_area.setdefault(entity.area_id, set()).add(entity_id)
            for device_class in entity.match_device_classes:
                by_device_class.setdefault(device_class, set()).add(entity_id)
            names.extend((entity_id, name) for name in entity.names)
        return cls(
            by_domain=_freeze(by_domain),
            by_name=_freeze(by_name),
            by_loose_name=_freeze(by_loose_name),
            by_area=_freeze(by_area),
            by_device_class=_freeze(by_device_class),
            order=order,
            fuzzy=FuzzyIndex.build(names),
            next_position=len(order),
        )

    def copy(self) -> HomeIndex:
        """An independent index; the frozenset values are shared until either side changes."""
        return HomeIndex(
            by_domain=dict(self.by_domain),
            by_name=dict(self.by_name),
            by_loose_name=dict(self.by_loose_name),
            by_area=dict(self.by_area),
            by_device_class=dict(self.by_device_class),
            order=dict(self.order),
            fuzzy=self.fuzzy.copy(),
            next_position=self._next,
        )

    def add(self, entity: Entity, *, new_state: bool) -> None:
        """Index ``entity``; a new state goes last, as Home Assistant appends new states."""
        entity_id = entity.entity_id
        if new_state or entity_id not in self.order:
            self.order[entity_id] = self._next
            self._next += 1
        for table, key in self._filed(entity):
            _put(table, key, entity_id)
        for name in entity.names:
            self.fuzzy.add(entity_id, name)

    def remove(self, entity: Entity, *, state_removed: bool) -> None:
        """Unindex ``entity`` (before re-adding it changed, or because its state went)."""
        entity_id = entity.entity_id
        if state_removed:
            self.order.pop(entity_id, None)
        for table, key in self._filed(entity):
            _drop(table, key, entity_id)
        for name in entity.names:
            self.fuzzy.remove(entity_id, name)

    def _filed(self, entity: Entity) -> Iterator[tuple[dict[str, frozenset[str]], str]]:
        """Each table ``entity`` is filed in, with its key there (added and removed alike)."""
        yield self.by_domain, entity.domain
        for key in entity.name_keys:
            yield self.by_name, key
        for key in loose_keys(entity):
            yield self.by_loose_name, key
        if entity.area_id:
            yield self.by_area, entity.area_id
        for device_class in entity.match_device_classes:
            yield self.by_device_class, device_class

    def ordered(self, entity_ids: Iterable[str]) -> list[str]:
        """``entity_ids`` in state machine order."""
        order = self.order
        return sorted(entity_ids, key=lambda entity_id: order.get(entity_id, -1))


def _by_loose_name[T](named: Iterable[tuple[T, tuple[str, ...]]]) -> Mapping[str, tuple[T, ...]]:
    """Loose name or alias → the places that have it, in registry order."""
    table: dict[str, list[T]] = {}
    for place, texts in named:
        for key in {loose_name(text) for text in texts} - {""}:
            table.setdefault(key, []).append(place)
    return MappingProxyType({key: tuple(found) for key, found in table.items()})


@dataclass(frozen=True, slots=True)
class LoosePlaces:
    """Areas and floors by loose name or alias: the fallback for ``find_areas``/``find_floors``.

    Ids are not indexed: Home Assistant matches an id only exactly, and an id that loosens to a
    name ("living_room") finds that place by its name anyway.
    """

    areas: Mapping[str, tuple[Area, ...]]
    floors: Mapping[str, tuple[Floor, ...]]

    @classmethod
    def build(cls, areas: Iterable[Area], floors: Iterable[Floor]) -> LoosePlaces:
        """Index areas and floors, in registry order."""
        return cls(
            areas=_by_loose_name((area, (area.name, *area.aliases)) for area in areas),
            floors=_by_loose_name((floor, (floor.name, *floor.aliases)) for floor in floors),
        )

    def find_areas(self, name: str) -> list[Area]:
        """Areas whose name or alias is ``name`` up to case, spacing and punctuation."""
        return list(self.areas.get(loose_name(name), ()))

    def find_floors(self, name: str) -> list[Floor]:
        """Floors whose name or alias is ``name`` up to case, spacing and punctuation."""
        return list(self.floors.get(loose_name(name), ()))
