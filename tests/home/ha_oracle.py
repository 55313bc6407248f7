"""Home Assistant's own target matching, run on a home given as WebSocket-shaped JSON.

Run with the Python of the Home Assistant release under test
(``devtools.home_assistant.python_command``), not ours: it imports that release's
``homeassistant`` and calls the real ``helpers.intent.async_match_targets`` and the real
``ExposedEntities.async_should_expose``, with the real ``StateMachine``. Only the four registries
are stand-ins, holding real ``RegistryEntry``/``DeviceEntry``/``AreaEntry``/``FloorEntry``
objects built from the same dicts our model reads. Reads ``{"home": …, "queries": […]}`` on
stdin, writes one result per query as JSON on stdout.

The home is given as the release's own WebSocket API reports it. The one shape that differs
between the releases run (2025.4.4, 2026.11.0) is an entity's ``aliases``: a set of strings in
2025.4; in 2026.11 an ordered list in which ``None`` stands for the computed name
(``entity_registry.COMPUTED_NAME``). The entry classes also gained required fields matching
never reads (config entries, timestamps): :func:`_make` gives them None.
"""
# ruff: noqa: T201

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
import tempfile
from typing import Any

import attr
from homeassistant.components.homeassistant import exposed_entities as ee
from homeassistant.components.homeassistant.const import DATA_EXPOSED_ENTITIES
from homeassistant.const import EntityCategory
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr
from homeassistant.helpers import intent

COMPUTED_NAME = getattr(er, "COMPUTED_NAME", None)
"""2026.11's stand-in for the computed name in an entity's aliases; None where there is none."""


def _make(cls: Any, **given: Any) -> Any:
    """``cls(**given)``, as far as this release's ``cls`` has those fields.

    Every other field it requires gets None: those are what matching never reads (a config
    entry, timestamps).
    """
    if attr.has(cls):
        fields = {
            f.alias or f.name.lstrip("_"): f.default is attr.NOTHING
            for f in attr.fields(cls)
            if f.init
        }
    else:
        fields = {
            f.name: f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            for f in dataclasses.fields(cls)
            if f.init
        }
    kwargs = {name: None for name, required in fields.items() if required}
    kwargs.update((name, value) for name, value in given.items() if name in fields)
    return cls(**kwargs)


def _aliases(raw: Any) -> Any:
    """An entity's aliases in this release's shape (see the module docstring)."""
    if COMPUTED_NAME is None:
        return {alias for alias in raw or () if alias is not None}
    return [COMPUTED_NAME if alias is None else alias for alias in raw or ()]


class Registries:
    """Just the lookups ``async_match_targets`` and ``async_should_expose`` make."""

    def __init__(self, hass: HomeAssistant, home: dict[str, Any]) -> None:
        self.hass = hass
        self.floors = [
            fr.FloorEntry(
                floor_id=f["floor_id"], name=f["name"], aliases=set(f["aliases"]), level=f["level"]
            )
            for f in home["floors"]
        ]
        self.areas = {
            a["area_id"]: _make(
                ar.AreaEntry,
                id=a["area_id"],
                name=a["name"],
                aliases=set(a["aliases"]),
                floor_id=a["floor_id"],
                humidity_entity_id=None,
                icon=None,
                picture=None,
                temperature_entity_id=a.get("temperature_entity_id"),
            )
            for a in home["areas"]
        }
        self.devices = {
            d["id"]: _make(
                dr.DeviceEntry,
                id=d["id"],
                area_id=d["area_id"],
                name=d["name"],
                name_by_user=d["name_by_user"],
            )
            for d in home["devices"]
        }
        self.entities = {}
        for listed in home["entities"]:
            raw = {**listed, **(home["entity_details"].get(listed["entity_id"]) or {})}
            state = home["states"].get(raw["entity_id"])
            self.entities[raw["entity_id"]] = _make(
                er.RegistryEntry,
                entity_id=raw["entity_id"],
                unique_id=raw["unique_id"],
                platform=raw["platform"],
                aliases=_aliases(raw.get("aliases")),
                area_id=raw["area_id"],
                device_id=raw["device_id"],
                device_class=raw.get("device_class"),
                original_device_class=raw.get("original_device_class"),
                disabled_by=er.RegistryEntryDisabler(raw["disabled_by"])
                if raw["disabled_by"]
                else None,
                hidden_by=er.RegistryEntryHider(raw["hidden_by"]) if raw["hidden_by"] else None,
                entity_category=EntityCategory(raw["entity_category"])
                if raw["entity_category"]
                else None,
                has_entity_name=raw["has_entity_name"],
                name=raw["name"],
                original_name=raw["original_name"],
                options=raw["options"],
                supported_features=(state or {}).get("a", {}).get("supported_features") or 0,
            )

    # entity and device registries (2026.11's device lookup takes keyword options)
    def async_get(self, key: str, **_options: Any) -> Any:
        return self.entities.get(key) or self.devices.get(key)

    def async_update_entity_options(self, *_args: Any) -> None:
        """Home Assistant stores the computed default; the answer is what matters here."""

    # area and floor registries
    def async_get_area(self, area_id: str) -> ar.AreaEntry | None:
        return self.areas.get(area_id)

    def async_list_areas(self) -> list[ar.AreaEntry]:
        return list(self.areas.values())

    def async_list_floors(self) -> list[fr.FloorEntry]:
        return self.floors


def _install(hass: HomeAssistant, home: dict[str, Any]) -> None:
    registries = Registries(hass, home)
    for module in (ar, dr, er, fr):
        module.async_get = lambda _hass: registries  # type: ignore[assignment]
    exposed = ee.ExposedEntities(hass)
    exposed._assistants = {}
    # Entities without a registry entry: Home Assistant's store holds what the list reported.
    exposed.entities = {
        entity_id: ee.ExposedEntity(
            {"conversation": {"should_expose": bool(home["exposure"].get(entity_id))}}
        )
        for entity_id in home["states"]
        if entity_id not in registries.entities
    }
    hass.data[DATA_EXPOSED_ENTITIES] = exposed
    for entity_id, state in home["states"].items():
        hass.states.async_set(entity_id, state["s"], state["a"])


def _answer(result: intent.MatchTargetsResult) -> dict[str, Any]:
    return {
        "is_match": result.is_match,
        "reason": result.no_match_reason.name if result.no_match_reason else None,
        "entity_ids": [state.entity_id for state in result.states],
        "no_match_name": result.no_match_name,
        "areas": [area.id for area in result.areas],
        "floors": [floor.floor_id for floor in result.floors],
    }


async def main() -> None:
    request = json.load(sys.stdin)
    with tempfile.TemporaryDirectory() as config_dir:
        hass = HomeAssistant(config_dir)
        _install(hass, request["home"])
        answers = []
        for query in request["queries"]:
            constraints = intent.MatchTargetsConstraints(**query["constraints"])
            preferences = intent.MatchTargetsPreferences(**query["preferences"])
            answers.append(_answer(intent.async_match_targets(hass, constraints, preferences)))
    print(json.dumps(answers))


if __name__ == "__main__":
    asyncio.run(main())
