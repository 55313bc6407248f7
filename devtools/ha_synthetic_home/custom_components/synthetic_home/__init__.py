"""A synthetic home for Home Assistant, built from a YAML fixture (devtools only).

``configuration.yaml`` names the fixture::

    synthetic_home:
      home: /path/to/home.yaml      # the ``home`` mapping of a task file (docs: TASK_FORMAT)

Setting up replaces the floors and areas onboarding made with the fixture's, registers its devices,
adds one entity per fixture entity with real behaviour for its domain, sets each entity's area,
aliases and exposure to Assist, and offers two services so a harness can run many sentences on one
boot: ``synthetic_home.reset`` (every entity back to its fixture state, then optional ``states``
on top) and ``synthetic_home.set_state`` (one entity).

Reloading the config entry reads the fixture again: an entity added to the file appears, as a
device added to a real home does (areas and floors are kept by name, not made anew).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import voluptuous as vol
import yaml
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import SOURCE_IMPORT, ConfigEntry
from homeassistant.core import HomeAssistant, ServiceCall, callback
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr
from homeassistant.helpers.typing import ConfigType

from .const import DATA_ENTITIES, DATA_HOME, DATA_PATH, DOMAIN, PLATFORMS

CONFIG_SCHEMA = vol.Schema(
    {DOMAIN: vol.Schema({vol.Required("home"): cv.string})}, extra=vol.ALLOW_EXTRA
)
STATE_SCHEMA = vol.Schema({vol.Optional("state"): cv.string, vol.Optional("attributes"): dict})
RESET_SCHEMA = vol.Schema({vol.Optional("states", default=dict): {cv.entity_id: STATE_SCHEMA}})
SET_STATE_SCHEMA = STATE_SCHEMA.extend({vol.Required("entity_id"): cv.entity_id})
ASSISTANT = "conversation"


def _load_home(path: str) -> dict[str, Any]:
    data = yaml.safe_load(Path(path).read_text("utf-8"))
    if isinstance(data, dict) and isinstance(data.get("home"), dict):
        data = data["home"]
    if not isinstance(data, dict) or not isinstance(data.get("entities"), list):
        raise HomeAssistantError(f"{path}: not a home fixture (no 'entities' list)")
    return data


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool:
    """Read the fixture and import the single config entry that carries the home."""
    if DOMAIN not in config:
        return True
    path = config[DOMAIN]["home"]
    home = await hass.async_add_executor_job(_load_home, path)
    hass.data[DOMAIN] = {DATA_PATH: path, DATA_HOME: home, DATA_ENTITIES: {}}
    hass.async_create_task(
        hass.config_entries.flow.async_init(DOMAIN, context={"source": SOURCE_IMPORT}, data={})
    )
    return True


async def async_setup_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """Registries first (entities need their devices), then platforms, then area and exposure."""
    data = hass.data[DOMAIN]
    home: dict[str, Any] = await hass.async_add_executor_job(_load_home, data[DATA_PATH])
    data[DATA_HOME] = home
    data[DATA_ENTITIES].clear()
    areas = _build_places(hass, home)
    _build_devices(hass, entry, home, areas)
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    _place_entities(hass, home, areas)
    _register_services(hass)
    return True


async def async_unload_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """Unload the platforms, so a reload reads the fixture again."""
    return await hass.config_entries.async_unload_platforms(entry, PLATFORMS)


def _build_places(hass: HomeAssistant, home: dict[str, Any]) -> dict[str, str]:
    """Floors and areas exactly as the fixture lists them; fixture area id -> registry area id.

    Places the fixture does not name go; those it names are kept (by name) and updated, so a
    reload leaves the area ids entities and devices point to as they were.
    """
    floor_registry = fr.async_get(hass)
    area_registry = ar.async_get(hass)
    floor_names = {floor["name"] for floor in home.get("floors") or []}
    area_names = {area["name"] for area in home.get("areas") or []}
    for old_area in list(area_registry.async_list_areas()):
        if old_area.name not in area_names:
            area_registry.async_delete(old_area.id)
    for old_floor in list(floor_registry.async_list_floors()):
        if old_floor.name not in floor_names:
            floor_registry.async_delete(old_floor.floor_id)
    floors: dict[str, str] = {}
    for floor in home.get("floors") or []:
        aliases = set(floor.get("aliases") or [])
        if found := floor_registry.async_get_floor_by_name(floor["name"]):
            floor_id = floor_registry.async_update(
                found.floor_id, aliases=aliases, level=floor.get("level")
            ).floor_id
        else:
            floor_id = floor_registry.async_create(
                floor["name"], aliases=aliases, level=floor.get("level")
            ).floor_id
        floors[floor.get("id", floor["name"])] = floor_id
    areas: dict[str, str] = {}
    for area in home.get("areas") or []:
        aliases = set(area.get("aliases") or [])
        floor_id = floors.get(area["floor"]) if area.get("floor") else None
        if found_area := area_registry.async_get_area_by_name(area["name"]):
            area_id = area_registry.async_update(
                found_area.id, aliases=aliases, floor_id=floor_id
            ).id
        else:
            area_id = area_registry.async_create(
                area["name"], aliases=aliases, floor_id=floor_id
            ).id
        areas[area.get("id", area["name"])] = area_id
    return areas


def _build_devices(
    hass: HomeAssistant, entry: ConfigEntry, home: dict[str, Any], areas: dict[str, str]
) -> None:
    registry = dr.async_get(hass)
    for device in home.get("devices") or []:
        created = registry.async_get_or_create(
            config_entry_id=entry.entry_id,
            identifiers={(DOMAIN, device["id"])},
            name=device.get("name", device["id"]),
            manufacturer="Home Agent devtools",
        )
        area_id = areas.get(device["area"]) if device.get("area") else None
        registry.async_update_device(created.id, area_id=area_id)


def _place_entities(hass: HomeAssistant, home: dict[str, Any], areas: dict[str, str]) -> None:
    registry = er.async_get(hass)
    for spec in home["entities"]:
        entity_id = spec["entity_id"]
        if registry.async_get(entity_id) is None:
            raise HomeAssistantError(f"{entity_id} was not registered (taken or invalid id?)")
        registry.async_update_entity(
            entity_id,
            area_id=areas.get(spec["area"]) if spec.get("area") else None,
            aliases=_aliases(spec.get("aliases") or []),
        )
        async_expose_entity(hass, ASSISTANT, entity_id, bool(spec.get("exposed", True)))


def _aliases(extra: list[str]) -> Any:
    """The registry's aliases for an entity called by its name and ``extra``.

    Home Assistant 2026.x keeps aliases as an ordered list in which ``COMPUTED_NAME`` stands for
    the entity's own name, and Assist matches only what the list holds: a list without it would
    hide the name from Home Assistant's own agent. Older releases keep a set of extra names.
    """
    computed = getattr(er, "COMPUTED_NAME", None)
    if computed is None:
        return set(extra)
    return [computed, *extra]


def _register_services(hass: HomeAssistant) -> None:
    entities: dict[str, Any] = hass.data[DOMAIN][DATA_ENTITIES]

    def entity(entity_id: str) -> Any:
        try:
            return entities[entity_id]
        except KeyError:
            raise HomeAssistantError(
                f"{entity_id} is not an entity of the synthetic home"
            ) from None

    @callback
    def reset(call: ServiceCall) -> None:
        overrides: dict[str, dict[str, Any]] = call.data["states"]
        for entity_id in overrides:
            entity(entity_id)
        for entity_id, item in entities.items():
            state, attributes = item.initial
            override = overrides.get(entity_id, {})
            item.restore(
                override.get("state", state), {**attributes, **override.get("attributes", {})}
            )

    @callback
    def set_state(call: ServiceCall) -> None:
        item = entity(call.data["entity_id"])
        state, attributes = item.loaded
        item.restore(
            call.data.get("state", state), {**attributes, **call.data.get("attributes", {})}
        )

    hass.services.async_register(DOMAIN, "reset", reset, schema=RESET_SCHEMA)
    hass.services.async_register(DOMAIN, "set_state", set_state, schema=SET_STATE_SCHEMA)
