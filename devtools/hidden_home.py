"""A real home from ``devtools/homes/`` hidden among generated devices, for the large-home bench.

The home's floors, areas, devices and entities go into a generated home
(:func:`devtools.large_home.large_home`) as Home Assistant would report them. The generated
floors are renamed ("Level 1") and generated areas that share a name or alias with one of the
home's places are renamed ("Kitchen 1") or lose the alias, since a home has one "Kitchen"; the
generated devices keep names like the real ones' ("Kitchen Ceiling Light"), as a big home would.
The home's entities get last-changed times drawn as the generated ones are (up to a day ago),
so "most recently used first" favours neither.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from addon.eval.tasks import HomeSpec, load_task_file
from addon.home.context.lexicon import words
from addon.home.model.exposure import CONVERSATION
from addon.home.model.live import HomeModel
from devtools.large_home import large_home

NOW = 1_767_225_600.0
"""The generated homes' clock (2026-01-01T00:00:00Z)."""


def hidden_home(path: Path, exposed: int, *, seed: int = 0) -> tuple[HomeModel, HomeSpec]:
    """The home of the task file at ``path`` inside a generated home of ``exposed`` entities."""
    spec = load_task_file(path).home
    generated, _model = large_home(exposed, seed=seed)
    kwargs = generated.build_kwargs()
    rng = random.Random(f"{path.name}:{seed}")
    taken = {
        words(text)
        for place in (*spec.areas, *spec.floors)
        for text in (place.name, *place.aliases)
    }
    floors = [
        {**floor, "name": f"Level {i + 1}", "aliases": []}
        for i, floor in enumerate(kwargs["floors"])
    ]
    areas = []
    for area in kwargs["areas"]:
        name = area["name"]
        if words(name) in taken:
            name = f"{name} 1"
        aliases = [alias for alias in area["aliases"] if words(alias) not in taken]
        areas.append({**area, "area_id": area["area_id"], "name": name, "aliases": aliases})
    own_areas, own_floors, devices, entities, details, exposure, states = _as_ha(spec, rng)
    model = HomeModel.build(
        config={**kwargs["config"], "language": spec.language},
        areas=[*areas, *own_areas],
        floors=[*floors, *own_floors],
        devices=[*kwargs["devices"], *devices],
        entities=[*kwargs["entities"], *entities],
        entity_details={**kwargs["entity_details"], **details},
        exposure={**kwargs["exposure"], **exposure},
        states={**kwargs["states"], **states},
    )
    return model, spec


def _area_id(spec_id: str) -> str:
    return f"real_{spec_id}"


def _as_ha(spec: HomeSpec, rng: random.Random) -> tuple[list[dict[str, Any]], ...]:
    """The home's registries, exposure and states in Home Assistant's formats."""
    areas = [
        {"area_id": _area_id(a.id), "name": a.name, "aliases": a.aliases,
         "floor_id": f"real_{a.floor}" if a.floor else None, "icon": None,
         "humidity_entity_id": None, "temperature_entity_id": None, "labels": [],
         "picture": None, "created_at": NOW, "modified_at": NOW}
        for a in spec.areas
    ]  # fmt: skip
    floors = [
        {"floor_id": f"real_{f.id}", "name": f.name, "aliases": f.aliases, "level": f.level,
         "icon": None, "created_at": NOW, "modified_at": NOW}
        for f in spec.floors
    ]  # fmt: skip
    devices = [
        {"id": f"real_{d.id}", "area_id": _area_id(d.area) if d.area else None, "name": d.name,
         "name_by_user": None, "manufacturer": None, "model": None, "model_id": None,
         "config_entries": [], "config_entries_subentries": {}, "connections": [],
         "identifiers": [["real", d.id]], "labels": [], "disabled_by": None, "entry_type": None,
         "hw_version": None, "sw_version": None, "serial_number": None,
         "configuration_url": None, "via_device_id": None, "primary_config_entry": None,
         "created_at": NOW, "modified_at": NOW}
        for d in spec.devices
    ]  # fmt: skip
    entities: list[dict[str, Any]] = []
    details: dict[str, Any] = {}
    exposure: dict[str, Any] = {}
    states: dict[str, Any] = {}
    for e in spec.entities:
        listed = {
            "area_id": _area_id(e.area) if e.area else None, "categories": {},
            "config_entry_id": None, "config_subentry_id": None, "created_at": NOW,
            "modified_at": NOW, "device_id": f"real_{e.device}" if e.device else None,
            "disabled_by": None, "entity_category": None, "entity_id": e.entity_id,
            "has_entity_name": False, "hidden_by": None, "icon": None, "id": e.entity_id,
            "labels": [], "name": e.name, "options": {CONVERSATION: {"should_expose": e.exposed}},
            "original_name": e.name, "platform": "real", "translation_key": None,
            "unique_id": e.entity_id,
        }  # fmt: skip
        entities.append(listed)
        details[e.entity_id] = {
            **listed, "aliases": e.aliases, "capabilities": None, "device_class": None,
            "original_device_class": e.device_class, "original_icon": None,
        }  # fmt: skip
        if e.exposed:
            exposure[e.entity_id] = {CONVERSATION: True}
        attributes = {**e.attributes, "friendly_name": e.name or e.entity_id}
        if e.device_class:
            attributes["device_class"] = e.device_class
        if e.supported_features is not None:
            attributes["supported_features"] = e.supported_features
        states[e.entity_id] = {
            "s": e.state, "a": attributes, "c": f"{rng.getrandbits(104):026x}",
            "lc": NOW - rng.randint(0, 86_400),
        }  # fmt: skip
    return areas, floors, devices, entities, details, exposure, states  # type: ignore[return-value]
