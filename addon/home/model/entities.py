"""One entity as the agent sees it: registry entry, device, area and state folded together.

An :class:`Entity` is rebuilt whenever something it is derived from changes (its registry entry
at a rebuild, its friendly name or device class in a state diff), so lookups and target matching
read precomputed fields instead of walking registries per request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from addon.home.model.exposure import (
    CONVERSATION,
    DEFAULT_EXPOSE_NEW,
    KNOWN_ASSISTANTS,
    should_expose,
)
from addon.home.model.names import normalize_name
from addon.home.model.records import Area, Device, EntityIdParts, EntityState, RegistryEntry
from addon.home.model.release import BASELINE, Release
from addon.text import JsonValue


@dataclass(frozen=True, slots=True)
class Entity(EntityIdParts):
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
    """Normalized :attr:`match_names`."""
    match_names: tuple[str, ...]
    """The names Home Assistant's ``_filter_by_name`` matches (besides the entity id), as the
    home's release has them: in 2025.4 ``State.name``, the registry name and every alias; in
    2026.11 the registry's aliases with the computed name resolved (``async_get_entity_aliases``),
    or ``State.name`` for an entity without a registry entry."""
    match_device_classes: frozenset[str]
    """The registry's device class and the state's, either of which Home Assistant accepts."""

    @property
    def names(self) -> tuple[str, ...]:
        """The name and every alias, in the order Home Assistant's prompt lists them.

        From 2026.11 the name (what Home Assistant shows) is not always one it matches:
        :attr:`match_names` says which are.
        """
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
    listed: Mapping[str, JsonValue] | None,
    expose_new: Mapping[str, bool] = DEFAULT_EXPOSE_NEW,
    release: Release = BASELINE,
) -> Entity:
    """Fold the registries and the state into one :class:`Entity`, as ``release`` sees it."""
    device = devices.get(entry.device_id) if entry and entry.device_id else None
    # helpers/intent.py _add_areas: the entity's area first, else its device's.
    area_id: str | None = None
    if entry is not None and entry.area_id:
        area_id = entry.area_id
    elif device is not None and device.area_id:
        area_id = device.area_id
    area = areas.get(area_id) if area_id else None

    match_names = _match_names(entry, state, device, release)
    name = _display_name(entity_id, entry, state, device)
    if release.names_are_registry_aliases:
        aliases = tuple(dict.fromkeys(text for text in match_names if text != name))
    else:
        aliases = entry.aliases if entry is not None else ()

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
        name=name,
        aliases=aliases,
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
                release=release,
            )
        ),
        name_keys=frozenset(normalize_name(text) for text in match_names),
        match_names=match_names,
        match_device_classes=frozenset(
            str(value) for value in (registry_class, state_class) if value
        ),
    )


def _match_names(
    entry: RegistryEntry | None,
    state: EntityState | None,
    device: Device | None,
    release: Release,
) -> tuple[str, ...]:
    """:attr:`Entity.match_names` for ``release`` (``helpers/intent.py`` ``_filter_by_name``)."""
    if not release.names_are_registry_aliases:
        texts = [state.name] if state is not None else []
        if entry is not None:
            if entry.name:
                texts.append(entry.name)
            texts.extend(entry.aliases)
        return tuple(texts)
    if entry is None:
        return (state.name.strip(),) if state is not None else ()
    computed = (computed_name(entry, device),) if entry.computed_name_alias else ()
    return tuple(text.strip() for text in (*computed, *entry.aliases))


def computed_name(entry: RegistryEntry, device: Device | None) -> str:
    """2026.11's computed entity name (``entity_registry.async_get_full_entity_name``).

    The entity's own name (the registry name, else the integration's, which the WebSocket API
    already sends without a device prefix), after its device's name when the device is the next
    name part: the entity has a device and no area of its own (``next_name_part``). Child
    devices' parent names are not modelled: the device list we read has no parents.
    """
    own = entry.name if entry.name is not None else entry.original_name
    device_name = device.name if device is not None and entry.area_id is None else None
    return " ".join(part for part in (device_name, own) if part)


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
