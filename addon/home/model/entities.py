"""One entity as the agent sees it: registry entry, device, area and state folded together.

An :class:`Entity` is rebuilt whenever something it is derived from changes (its registry entry
at a rebuild, its friendly name or device class in a state diff), so lookups and target matching
read precomputed fields instead of walking registries per request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from addon.home.model.exposure import (
    CONVERSATION,
    DEFAULT_EXPOSE_NEW,
    KNOWN_ASSISTANTS,
    should_expose,
)
from addon.home.model.names import normalize_name
from addon.home.model.records import Area, Device, EntityState, RegistryEntry


@dataclass(frozen=True, slots=True)
class Entity:
    """An entity with everything resolved that Assist's target matching asks about.

    ``name`` is Home Assistant's ``State.name`` (the friendly name, which already reflects a
    registry rename and, for ``has_entity_name`` entities, the device name): it is the name
    Home Assistant's own LLM prompt lists. Without a state it falls back to the registry name,
    the integration's name, the device name, then the object id. ``area_id`` is the entity's own
    area, else its device's; ``floor_id`` is that area's floor.
    """

    entity_id: str
    name: str
    aliases: tuple[str, ...]
    area_id: str | None
    floor_id: str | None
    device_id: str | None
    device_class: str | None
    entry: RegistryEntry | None
    has_state: bool
    exposed_to: frozenset[str]
    name_keys: frozenset[str]
    """Normalized names Home Assistant matches: ``State.name``, registry name, aliases."""
    match_device_classes: frozenset[str]
    """The registry's device class and the state's, either of which Home Assistant accepts."""

    @property
    def domain(self) -> str:
        """The part of the entity id before the dot."""
        return self.entity_id.partition(".")[0]

    @property
    def names(self) -> tuple[str, ...]:
        """The name and every alias, in the order Home Assistant's prompt lists them."""
        return (self.name, *self.aliases)

    def is_exposed(self, assistant: str = CONVERSATION) -> bool:
        """Whether ``assistant`` may see this entity."""
        return assistant in self.exposed_to


def make_entity(
    entity_id: str,
    *,
    entry: RegistryEntry | None,
    state: EntityState | None,
    devices: Mapping[str, Device],
    areas: Mapping[str, Area],
    listed: Mapping[str, Any] | None,
    expose_new: Mapping[str, bool] = DEFAULT_EXPOSE_NEW,
) -> Entity:
    """Fold the registries and the state into one :class:`Entity`."""
    device = devices.get(entry.device_id) if entry and entry.device_id else None
    # helpers/intent.py _add_areas: the entity's area first, else its device's.
    area_id: str | None = None
    if entry is not None and entry.area_id:
        area_id = entry.area_id
    elif device is not None and device.area_id:
        area_id = device.area_id
    area = areas.get(area_id) if area_id else None

    keys: set[str] = set()
    if state is not None:
        keys.add(normalize_name(state.name))
    if entry is not None:
        if entry.name:
            keys.add(normalize_name(entry.name))
        keys.update(normalize_name(alias) for alias in entry.aliases)

    state_class = state.attributes.get("device_class") if state is not None else None
    registry_class = entry.device_class if entry is not None else None
    if state is not None:
        device_class = state_class
    elif entry is not None:
        device_class = entry.device_class or entry.original_device_class
    else:
        device_class = None

    return Entity(
        entity_id=entity_id,
        name=_display_name(entity_id, entry, state, device),
        aliases=entry.aliases if entry is not None else (),
        area_id=area.area_id if area is not None else None,
        floor_id=area.floor_id if area is not None else None,
        device_id=device.device_id if device is not None else None,
        device_class=str(device_class) if device_class else None,
        entry=entry,
        has_state=state is not None,
        exposed_to=frozenset(
            assistant
            for assistant in KNOWN_ASSISTANTS
            if should_expose(
                assistant,
                entity_id,
                entry=entry,
                state=state,
                listed=listed,
                expose_new=expose_new,
            )
        ),
        name_keys=frozenset(keys),
        match_device_classes=frozenset(
            str(value) for value in (registry_class, state_class) if value
        ),
    )


def _display_name(
    entity_id: str, entry: RegistryEntry | None, state: EntityState | None, device: Device | None
) -> str:
    """The name Home Assistant shows, with fallbacks for an entity that has no state."""
    if state is not None:
        return state.name
    if entry is not None:
        if entry.name:
            return entry.name
        if entry.original_name:
            if entry.has_entity_name and device is not None and device.name:
                return f"{device.name} {entry.original_name}"
            return entry.original_name
        if entry.has_entity_name and device is not None and device.name:
            return device.name
    return entity_id.partition(".")[2].replace("_", " ")
