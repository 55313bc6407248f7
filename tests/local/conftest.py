"""A small home in Home Assistant's WebSocket shapes, with aliases, areas and floors."""

from __future__ import annotations

from typing import Any

import pytest

from addon.home.model.live import HomeModel
from addon.local.library import SentenceLibrary
from addon.local.matcher import LocalMatcher

FLOORS = [
    {"floor_id": "ground", "name": "Ground Floor", "aliases": ["downstairs"], "level": 0},
    {"floor_id": "upstairs", "name": "Upstairs", "aliases": ["first floor"], "level": 1},
]
AREAS = [
    {"area_id": "kitchen", "name": "Kitchen", "aliases": [], "floor_id": "ground"},
    {"area_id": "living_room", "name": "Living Room", "aliases": ["lounge"], "floor_id": "ground"},
    {"area_id": "office", "name": "Office", "aliases": ["study"], "floor_id": "ground"},
    {"area_id": "bedroom", "name": "Bedroom", "aliases": [], "floor_id": "upstairs"},
]
# entity_id: (area, friendly name, aliases, state, extra attributes)
ENTITIES: dict[str, tuple[str, str, list[str], str, dict[str, Any]]] = {
    "light.kitchen_lights": ("kitchen", "Kitchen Lights", ["cooking light"], "off", {}),
    "light.living_room_lamp": ("living_room", "Living Room Lamp", [], "on", {}),
    "light.sofa_light": ("living_room", "Sofa Light", [], "off", {}),
    "light.bedroom_ceiling": ("bedroom", "Bedroom Ceiling", [], "off", {}),
    "light.bedside_lamp": ("bedroom", "Bedside Lamp", [], "on", {}),
    "climate.office": (
        "office",
        "Office Thermostat",
        [],
        "heat",
        {"current_temperature": 21.5, "temperature": 22, "supported_features": 1},
    ),
    "switch.coffee_maker": ("kitchen", "Coffee Maker", [], "off", {}),
    "light.reading_lamp": ("office", "Reading Lamp", [], "off", {}),
    "light.reading_lamp_2": ("bedroom", "Reading Lamp", [], "off", {}),
    "todo.shopping_list": ("kitchen", "Shopping List", [], "0", {"supported_features": 1}),
}
LIGHT_ATTRIBUTES = {"supported_color_modes": ["brightness"], "color_mode": "brightness"}


def home_dicts(extra: dict[str, tuple[str, str, list[str], str, dict[str, Any]]] | None = None):
    """Keyword arguments for ``HomeModel.build``: every entity exposed to Assist."""
    entities = {**ENTITIES, **(extra or {})}
    states = {}
    for entity_id, (_area, name, _aliases, state, attributes) in entities.items():
        base = LIGHT_ATTRIBUTES if entity_id.startswith("light.") else {}
        states[entity_id] = {"s": state, "a": {**base, "friendly_name": name, **attributes}}
    return {
        "config": {"location_name": "Test Home", "language": "en"},
        "floors": FLOORS,
        "areas": AREAS,
        "devices": [],
        "entities": [
            {"entity_id": entity_id, "area_id": area, "platform": "demo"}
            for entity_id, (area, *_rest) in entities.items()
        ],
        "entity_details": {
            entity_id: {"aliases": aliases, "options": {"conversation": {"should_expose": True}}}
            for entity_id, (_area, _name, aliases, *_rest) in entities.items()
        },
        "exposure": {},
        "states": states,
    }


@pytest.fixture(scope="session")
def matcher(sentence_library: SentenceLibrary) -> LocalMatcher:
    """One English matcher for the session: parsing the templates is the slow part."""
    return LocalMatcher("en", library=sentence_library)


@pytest.fixture
def home() -> HomeModel:
    """A fresh model of the test home."""
    return HomeModel.build(**home_dicts())
