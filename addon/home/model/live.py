"""The live model of one Home Assistant home, fed by the WebSocket API.

:meth:`HomeModel.build` takes exactly what Home Assistant 2025.4's commands return (``get_config``,
the area/floor/device/entity registry lists, ``get_entries``, ``expose_entity/list``, the ``script``
domain of ``get_services`` and the first ``subscribe_entities`` event) and
:meth:`HomeModel.apply_entity_diff` applies each later ``subscribe_entities`` event in place,
touching only the entities it names. Registry changes are rare: the caller rebuilds for those (a
1,000-entity home builds in about 30 ms; ``bench/home_model.py``), except that one entity's registry
entry is swapped in by :meth:`with_entries`, a cheap copy.

The sync task is the live model's only writer. :meth:`copy` gives a virtual executor (a dry run)
its own model to change, sharing every immutable record with the live one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import replace
from types import MappingProxyType

from addon.home.model.entities import Entity, make_entity
from addon.home.model.exposure import (
    CONVERSATION,
    DEFAULT_EXPOSE_NEW,
    KNOWN_ASSISTANTS,
    should_expose,
)
from addon.home.model.index import HomeIndex, LoosePlaces
from addon.home.model.places import Places
from addon.home.model.records import (
    Area,
    Device,
    EntityState,
    Floor,
    RegistryEntry,
    ScriptService,
    apply_state_diff,
    frozen_mapping,
    json_keys,
    json_object,
    merge_context,
)
from addon.home.model.release import BASELINE, Release
from addon.home.model.routines import Routines
from addon.text import JsonValue

_LOGGER = logging.getLogger(__name__)

_SCRIPT_INTEGRATION_SERVICES = frozenset({"reload", "turn_on", "turn_off", "toggle"})
"""The ``script`` integration's own services, listed with the scripts; no script key is one."""

_DERIVED_ATTRIBUTES = frozenset({"friendly_name", "device_class"})
"""State attributes an :class:`Entity` is derived from; a diff touching them re-derives it."""


class HomeModel:
    """Registries, exposure and states of one home, indexed for Assist's target matching.

    ``index`` (entities by domain, name, area, device class), ``places`` (areas and floors by
    name) and ``loose_places`` (the same by loose name) are the tables
    :mod:`addon.home.targeting.matching` reads; only this class changes them.
    """

    __slots__ = (
        "_config",
        "_devices",
        "_entities",
        "_entries",
        "_expose_new",
        "_exposure",
        "_hidden",
        "_scripts",
        "_services",
        "_states",
        "index",
        "loose_places",
        "places",
        "release",
        "revision",
        "routines",
    )

    def __init__(self) -> None:
        """An empty home; use :meth:`build`."""
        self._config: Mapping[str, JsonValue] = MappingProxyType({})
        self._devices: Mapping[str, Device] = MappingProxyType({})
        self._entries: Mapping[str, RegistryEntry] = MappingProxyType({})
        self._exposure: Mapping[str, Mapping[str, JsonValue]] = MappingProxyType({})
        self._expose_new: Mapping[str, bool] = DEFAULT_EXPOSE_NEW
        self._scripts: Mapping[str, ScriptService] = MappingProxyType({})
        self._services: Mapping[str, tuple[str, ...]] = MappingProxyType({})
        self._states: dict[str, EntityState] = {}
        self._entities: dict[str, Entity] = {}
        self._hidden: frozenset[str] = frozenset()
        self.index: HomeIndex = HomeIndex.build(())
        self.places: Places = Places.build((), ())
        self.loose_places: LoosePlaces = LoosePlaces.build((), ())
        self.release: Release = BASELINE
        """The Home Assistant release the home runs (``get_config``'s ``version``): where
        releases differ, matching and the intent handlers behave as this one does."""
        self.routines: Routines | None = None
        """Scenes', scripts' and automations' configurations as read at the snapshot; None when
        nothing was read (a home built from a fixture), so actions are judged by name alone."""
        self.revision = 0
        """Counts in-place changes to what is derived from names (an entity added, removed or
        renamed by a state change); caches kept per model object compare it too."""

    @classmethod
    def build(
        cls,
        *,
        config: Mapping[str, JsonValue],
        areas: Iterable[Mapping[str, JsonValue]],
        floors: Iterable[Mapping[str, JsonValue]],
        devices: Iterable[Mapping[str, JsonValue]],
        entities: Iterable[Mapping[str, JsonValue]],
        entity_details: Mapping[str, Mapping[str, JsonValue] | None],
        exposure: Mapping[str, Mapping[str, JsonValue]],
        states: Mapping[str, Mapping[str, JsonValue]],
        expose_new: Mapping[str, bool] | None = None,
        scripts: Mapping[str, Mapping[str, JsonValue]] | None = None,
        routines: Routines | None = None,
        services: Mapping[str, Iterable[str]] | None = None,
    ) -> HomeModel:
        """Build from Home Assistant's WebSocket results (see the module docstring).

        ``exposure`` is ``expose_entity/list``'s ``exposed_entities``; ``states`` is the ``a``
        map of the first ``subscribe_entities`` event. ``expose_new`` is what
        ``expose_new_entities/get`` says per assistant (by default only Assist exposes new
        entities, as in a fresh Home Assistant). ``scripts`` is ``get_services``' ``script``
        domain; without it scripts are still known, only their fields and descriptions are not.
        ``routines`` is what the scenes, scripts and automations are made of (None: not read).
        ``services`` is each domain's service names from ``get_services`` (None: not read).
        """
        model = cls()
        model.routines = routines
        model._config = frozen_mapping(config)
        model.release = Release.parse(config.get("version"))
        area_list = [Area.from_ha(raw) for raw in areas]
        floor_list = [Floor.from_ha(raw) for raw in floors]
        model.places = Places.build(area_list, floor_list)
        model.loose_places = LoosePlaces.build(area_list, floor_list)
        model._devices = MappingProxyType(
            {device.device_id: device for device in (Device.from_ha(raw) for raw in devices)}
        )
        model._entries = MappingProxyType(
            {
                entry.entity_id: entry
                for entry in (
                    RegistryEntry.from_ha(raw, entity_details.get(str(raw["entity_id"])))
                    for raw in entities
                )
            }
        )
        model._exposure = MappingProxyType(dict(exposure))
        model._expose_new = MappingProxyType(
            dict(DEFAULT_EXPOSE_NEW if expose_new is None else expose_new)
        )
        model._scripts = MappingProxyType(
            {
                str(service): ScriptService.from_ha(service, raw)
                for service, raw in (scripts or {}).items()
                if isinstance(raw, Mapping) and service not in _SCRIPT_INTEGRATION_SERVICES
            }
        )
        model._services = MappingProxyType(
            {domain: tuple(sorted(names)) for domain, names in (services or {}).items()}
        )
        model._states = {
            entity_id: EntityState.from_compressed(entity_id, raw)
            for entity_id, raw in states.items()
        }
        for entity_id in model._states:
            model._entities[entity_id] = model._derive(entity_id)
        for entity_id in model._entries:
            if entity_id not in model._entities:
                model._entities[entity_id] = model._derive(entity_id)
        model.index = HomeIndex.build(model._entities[entity_id] for entity_id in model._states)
        return model

    def copy(self) -> HomeModel:
        """An independent model: changing its states never touches this one.

        Registries and records are immutable and shared; the state and entity tables and the
        indexes are copied (their values are immutable too), so this is cheap.
        """
        clone = HomeModel.__new__(HomeModel)
        clone._config = self._config
        clone._devices = self._devices
        clone._entries = self._entries
        clone._exposure = self._exposure
        clone._expose_new = self._expose_new
        clone._scripts = self._scripts
        clone._services = self._services
        clone.places = self.places
        clone.loose_places = self.loose_places
        clone._states = dict(self._states)
        clone._entities = dict(self._entities)
        clone._hidden = self._hidden
        clone.index = self.index.copy()
        clone.release = self.release
        clone.routines = self.routines
        clone.revision = self.revision
        return clone

    def with_entries(self, entries: Mapping[str, RegistryEntry | None]) -> HomeModel:
        """A copy with these entity registry entries replaced (None: removed); self if none differ.

        For a registry update that names one entity (a rename, an area move, new aliases, an
        exposure setting), in place of a whole snapshot. A new object, not a change in place:
        what is derived from names, areas and exposure (the overview, the slot lists) is cached
        per model object, and readers holding this one keep a consistent home.
        """
        changed = {
            entity_id: entry
            for entity_id, entry in entries.items()
            if self._entries.get(entity_id) != entry
        }
        if not changed:
            return self
        clone = self.copy()
        merged = dict(self._entries)
        for entity_id, entry in changed.items():
            if entry is None:
                merged.pop(entity_id, None)
            else:
                merged[entity_id] = entry
        clone._entries = MappingProxyType(merged)
        for entity_id in changed:
            old = clone._entities.get(entity_id)
            if old is not None and old.has_state:
                clone.index.remove(old, state_removed=False)
            if entity_id in clone._states or entity_id in merged:
                entity = clone._derive(entity_id)
                clone._entities[entity_id] = entity
                if entity.has_state:
                    clone.index.add(entity, new_state=False)
            else:
                clone._entities.pop(entity_id, None)
        return clone

    def hiding(self, hidden: frozenset[str]) -> HomeModel:
        """The home as one turn's actor may read it: ``hidden`` counts as not exposed.

        What the gate decides a person or satellite may not read (a rule's ``none``,
        :meth:`addon.home.actions.permissions.Access.unreadable`) is then, for every path that
        reads the turn's home (matching, the slot lists, the overview, the tools), what Home
        Assistant calls an unexposed entity. A view, not a copy: the states, entities and
        indexes are this model's own objects, so the sync task's changes show through; only
        the sync task writes them, through this model. Self when nothing is hidden.
        """
        if not hidden:
            return self
        view = HomeModel.__new__(HomeModel)
        for name in HomeModel.__slots__:
            object.__setattr__(view, name, getattr(self, name))
        view._hidden = self._hidden | hidden
        return view

    # Lookups ------------------------------------------------------------------------------

    @property
    def config(self) -> Mapping[str, JsonValue]:
        """``get_config``'s result (location name, language, unit system, time zone, …)."""
        return self._config

    @property
    def ha_version(self) -> str | None:
        """The Home Assistant release this home was read from (``get_config``'s ``version``).

        None for a home no Home Assistant sent (an evaluation suite's, a test's).
        """
        version = self._config.get("version")
        return str(version) if version else None

    @property
    def areas(self) -> Mapping[str, Area]:
        """Areas by id, in registry order."""
        return self.places.areas

    @property
    def floors(self) -> Mapping[str, Floor]:
        """Floors by id, in registry order."""
        return self.places.floors

    @property
    def devices(self) -> Mapping[str, Device]:
        """Devices by id."""
        return self._devices

    @property
    def services(self) -> Mapping[str, tuple[str, ...]]:
        """Each domain's service names as Home Assistant described them at the snapshot.

        Empty when it did not (``get_services`` refused, a home built from a fixture). Only a
        snapshot reads them again: a new integration's services arrive with the next one.
        """
        return self._services

    @property
    def scripts(self) -> Mapping[str, ScriptService]:
        """The scripts' service descriptions, by service name (``script.<name>``)."""
        return self._scripts

    def script_service_name(self, entity_id: str) -> str:
        """The service that runs the script ``entity_id``, as Home Assistant's ScriptTool names it.

        A script registers ``script.<key>`` and its registry ``unique_id`` is that key; the entity
        id only matches it until someone renames the entity, so the ``unique_id`` wins.
        """
        entry = self._entries.get(entity_id)
        if entry is not None and entry.unique_id:
            return entry.unique_id
        return entity_id.partition(".")[2]

    def script_service(self, entity_id: str) -> ScriptService | None:
        """The description and fields of the script ``entity_id``, when Home Assistant gave them."""
        return self._scripts.get(self.script_service_name(entity_id))

    def has_script_service(self, service: str) -> bool:
        """Whether ``script.<service>`` runs one of this home's scripts."""
        if service in self._scripts:
            return True
        return any(
            self.script_service_name(entity_id) == service
            for entity_id in self.index.by_domain.get("script", ())
        )

    def entity(self, entity_id: str) -> Entity | None:
        """Any known entity, exposed or not: check :meth:`Entity.is_exposed` before acting."""
        return self._entities.get(entity_id)

    def state(self, entity_id: str) -> EntityState | None:
        """The entity's current state, or None when Home Assistant has none."""
        return self._states.get(entity_id)

    def entity_ids(self) -> list[str]:
        """Every entity with a state, in Home Assistant's state machine order."""
        return list(self.index.order)

    def exposed_entities(self, assistant: str = CONVERSATION) -> list[Entity]:
        """Entities with a state that ``assistant`` may see, in state machine order.

        This is the set Home Assistant's LLM API lists in its prompt (``_get_exposed_entities``).
        """
        candidates = (self._entities[entity_id] for entity_id in self.index.order)
        return [entity for entity in candidates if self.is_exposed(entity, assistant)]

    def lists_exposure(self, listed: Mapping[str, Mapping[str, JsonValue]]) -> bool:
        """Whether ``listed`` (``expose_entity/list``'s ``exposed_entities``) is what we read.

        Exposing an entity without a registry entry fires no event, so a turn that found a
        target not exposed asks Home Assistant's list again and compares (:mod:`addon.ha`).
        """
        return dict(self._exposure) == dict(listed)

    def is_exposed(self, entity: Entity | str, assistant: str = CONVERSATION) -> bool:
        """Whether ``assistant`` may see the entity (False for an unknown entity id)."""
        if isinstance(entity, str):
            found = self._entities.get(entity)
            if found is None:
                return False
            entity = found
        if self._hidden and entity.entity_id in self._hidden:
            return False
        if assistant in KNOWN_ASSISTANTS:
            return entity.is_exposed(assistant)
        return should_expose(
            assistant,
            entity.entity_id,
            entry=entity.entry,
            state=self._states.get(entity.entity_id),
            listed=self._exposure.get(entity.entity_id),
            expose_new=self._expose_new,
            release=self.release,
        )

    def find_areas(self, name: str, *, loose: bool = False) -> list[Area]:
        """Home Assistant's ``find_areas``: areas whose id, name or alias is ``name``.

        With ``loose``, and only when that finds none (so an exact match is never widened):
        the areas whose name or alias is ``name`` up to case, spacing and punctuation.
        """
        return self.places.find_areas(name) or (self.loose_places.find_areas(name) if loose else [])

    def find_floors(self, name: str, *, loose: bool = False) -> list[Floor]:
        """Home Assistant's ``find_floors``, with the same ``loose`` fallback as ``find_areas``."""
        return self.places.find_floors(name) or (
            self.loose_places.find_floors(name) if loose else []
        )

    # Changes ------------------------------------------------------------------------------

    def apply_entity_diff(self, event: Mapping[str, JsonValue]) -> list[str]:
        """Apply one ``subscribe_entities`` event; return the entity ids it changed.

        ``a`` adds (or replaces) compressed states, ``c`` changes them (``+`` sets ``s``,
        ``lc``/``lu``, ``c`` and merges ``a``; ``-`` removes attribute keys), ``r`` removes.
        A change for an entity we hold no state for is skipped: Home Assistant always sends the
        add first, so it can only be a stale event from before a resubscribe.
        """
        changed: list[str] = []
        for entity_id, raw in json_object(event.get("a")).items():
            if not isinstance(raw, dict):
                raise TypeError(f"not a compressed state for {entity_id}: {raw!r}")
            self._put_state(EntityState.from_compressed(entity_id, raw), rederive=True)
            changed.append(entity_id)
        for entity_id, diff in json_object(event.get("c")).items():
            old = self._states.get(entity_id)
            if old is None:
                _LOGGER.debug("state change for unknown entity %s skipped", entity_id)
                continue
            if not isinstance(diff, dict):
                raise TypeError(f"not a state change for {entity_id}: {diff!r}")
            new, touched = apply_state_diff(old, diff)
            self._put_state(new, rederive=bool(touched & _DERIVED_ATTRIBUTES))
            changed.append(entity_id)
        for entity_id in json_keys(event.get("r")):
            if self._remove_state(entity_id):
                changed.append(entity_id)
        return changed

    def set_state(
        self,
        entity_id: str,
        state: str,
        attributes: Mapping[str, JsonValue] | None = None,
        *,
        when: float | None = None,
    ) -> EntityState:
        """Set a state as Home Assistant's ``async_set`` would; for virtual executors.

        ``attributes`` None keeps the current ones. ``last_changed`` moves only when the state
        changes, ``last_updated`` when the state or attributes change.
        """
        now = time.time() if when is None else when
        old = self._states.get(entity_id)
        new_attributes = frozen_mapping(
            attributes if attributes is not None else (old.attributes if old else None)
        )
        if old is None:
            new = EntityState(entity_id, state, new_attributes, now, now, merge_context({}, None))
            self._put_state(new, rederive=True)
            return new
        state_changed = old.state != state
        attributes_changed = dict(old.attributes) != dict(new_attributes)
        new = replace(
            old,
            state=state,
            attributes=new_attributes,
            last_changed=now if state_changed else old.last_changed,
            last_updated=now if state_changed or attributes_changed else old.last_updated,
        )
        rederive = any(
            old.attributes.get(key) != new_attributes.get(key) for key in _DERIVED_ATTRIBUTES
        )
        self._put_state(new, rederive=rederive)
        return new

    # Internals ----------------------------------------------------------------------------

    def _derive(self, entity_id: str) -> Entity:
        return make_entity(
            entity_id,
            entry=self._entries.get(entity_id),
            state=self._states.get(entity_id),
            devices=self._devices,
            areas=self.places.areas,
            listed=self._exposure.get(entity_id),
            expose_new=self._expose_new,
            release=self.release,
        )

    def _put_state(self, new: EntityState, *, rederive: bool) -> None:
        entity_id = new.entity_id
        is_new = entity_id not in self._states
        self._states[entity_id] = new
        if not (is_new or rederive):
            return
        old_entity = self._entities.get(entity_id)
        if old_entity is not None and old_entity.has_state:
            self.index.remove(old_entity, state_removed=False)
        entity = self._derive(entity_id)
        self._entities[entity_id] = entity
        self.index.add(entity, new_state=is_new)
        self.revision += 1

    def _remove_state(self, entity_id: str) -> bool:
        if self._states.pop(entity_id, None) is None:
            return False
        self.revision += 1
        old_entity = self._entities.get(entity_id)
        if old_entity is not None:
            self.index.remove(old_entity, state_removed=True)
        if entity_id in self._entries:
            self._entities[entity_id] = self._derive(entity_id)
        else:
            self._entities.pop(entity_id, None)
        return True
