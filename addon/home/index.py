"""Lookup tables over the entities that have a state: the ones Assist can target.

Home Assistant's ``async_match_targets`` walks every state for every request; we answer the same
questions from tables built once: entity ids by domain, by normalized name or alias, by area and
by device class, plus each entity's position in the state machine (results keep Home Assistant's
order). Tables are copy-on-write (frozenset values replaced on change) so a model copy is a few
shallow dict copies, and a state diff touches only the entries of the entities it changes.
"""

from __future__ import annotations

from collections.abc import Iterable

from addon.home.entities import Entity
from addon.home.suggest import FuzzyIndex

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


class HomeIndex:
    """The tables :mod:`addon.home.matching` reads; only :class:`HomeModel` writes them."""

    __slots__ = ("_next", "by_area", "by_device_class", "by_domain", "by_name", "fuzzy", "order")

    def __init__(
        self,
        *,
        by_domain: dict[str, frozenset[str]],
        by_name: dict[str, frozenset[str]],
        by_area: dict[str, frozenset[str]],
        by_device_class: dict[str, frozenset[str]],
        order: dict[str, int],
        fuzzy: FuzzyIndex,
        next_position: int,
    ) -> None:
        self.by_domain = by_domain
        self.by_name = by_name
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
            if entity.area_id:
                by_area.setdefault(entity.area_id, set()).add(entity_id)
            for device_class in entity.match_device_classes:
                by_device_class.setdefault(device_class, set()).add(entity_id)
            names.extend((entity_id, name) for name in entity.names)
        return cls(
            by_domain=_freeze(by_domain),
            by_name=_freeze(by_name),
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
        _put(self.by_domain, entity.domain, entity_id)
        for key in entity.name_keys:
            _put(self.by_name, key, entity_id)
        if entity.area_id:
            _put(self.by_area, entity.area_id, entity_id)
        for device_class in entity.match_device_classes:
            _put(self.by_device_class, device_class, entity_id)
        for name in entity.names:
            self.fuzzy.add(entity_id, name)

    def remove(self, entity: Entity, *, state_removed: bool) -> None:
        """Unindex ``entity`` (before re-adding it changed, or because its state went)."""
        entity_id = entity.entity_id
        if state_removed:
            self.order.pop(entity_id, None)
        _drop(self.by_domain, entity.domain, entity_id)
        for key in entity.name_keys:
            _drop(self.by_name, key, entity_id)
        if entity.area_id:
            _drop(self.by_area, entity.area_id, entity_id)
        for device_class in entity.match_device_classes:
            _drop(self.by_device_class, device_class, entity_id)
        for name in entity.names:
            self.fuzzy.remove(entity_id, name)

    def ordered(self, entity_ids: Iterable[str]) -> list[str]:
        """``entity_ids`` in state machine order."""
        order = self.order
        return sorted(entity_ids, key=lambda entity_id: order.get(entity_id, -1))
