"""A small hand-built home in exactly the shapes Home Assistant's WebSocket API sends.

Two floors, four areas, and one or two entities of every domain the intents touch, chosen so
each rule has something to bite on: two lights called "Reading Lamp" in different areas, a
media player that cannot skip, a lock that is not exposed (locks are not exposed by default),
a speaker whose area comes from its device, an area with its own temperature sensor.
"""

from __future__ import annotations

from typing import Any

from addon.home.model.live import HomeModel

EXPOSE = {"conversation": {"should_expose": True}}

FLOORS = [
    {"floor_id": "ground", "name": "Ground Floor", "aliases": ["downstairs"], "level": 0},
    {"floor_id": "upstairs", "name": "First Floor", "aliases": [], "level": 1},
]

AREAS = [
    {
        "area_id": "kitchen",
        "name": "Kitchen",
        "aliases": [],
        "floor_id": "ground",
        "temperature_entity_id": "sensor.kitchen_temperature",
    },
    {"area_id": "living_room", "name": "Living Room", "aliases": ["lounge"], "floor_id": "ground"},
    {"area_id": "bedroom", "name": "Bedroom", "aliases": [], "floor_id": "upstairs"},
    {"area_id": "office", "name": "Office", "aliases": ["study"], "floor_id": "upstairs"},
]

DEVICES = [
    {"id": "speaker_device", "name": "Kitchen Speaker", "area_id": "kitchen"},
]

HS_LIGHT = ["color_temp", "hs"]

# entity_id: (area_id, registry extras, state, attributes)
ENTITIES: dict[str, tuple[str | None, dict[str, Any], str, dict[str, Any]]] = {
    "light.kitchen_ceiling": (
        "kitchen",
        {},
        "on",
        {
            "friendly_name": "Kitchen Ceiling",
            "supported_color_modes": HS_LIGHT,
            "color_mode": "hs",
            "brightness": 180,
            "hs_color": [345.0, 75.0],
            "rgb_color": [255, 64, 112],
            "xy_color": [0.588, 0.274],
            "color_temp_kelvin": None,
            "color_temp": None,
            "supported_features": 0,
        },
    ),
    "light.counter": (
        "kitchen",
        {},
        "off",
        {
            "friendly_name": "Counter Lights",
            "supported_color_modes": HS_LIGHT,
            "color_mode": None,
            "brightness": None,
            "hs_color": None,
            "rgb_color": None,
            "xy_color": None,
            "color_temp_kelvin": None,
            "color_temp": None,
            "supported_features": 0,
        },
    ),
    "light.living_room_lamp": (
        "living_room",
        {},
        "on",
        {
            "friendly_name": "Reading Lamp",
            "supported_color_modes": ["color_temp"],
            "color_mode": "color_temp",
            "brightness": 100,
            "color_temp_kelvin": 2700,
            "supported_features": 0,
        },
    ),
    "light.bedroom_lamp": (
        "bedroom",
        {},
        "off",
        {"friendly_name": "Reading Lamp", "supported_color_modes": ["brightness"]},
    ),
    "light.office_strip": (
        "office",
        {"aliases": ["desk light"]},
        "on",
        {
            "friendly_name": "Desk Strip",
            "supported_color_modes": ["rgbw"],
            "color_mode": "rgbw",
            "brightness": 200,
            "rgbw_color": [255, 0, 0, 255],
            "rgb_color": [255, 128, 128],
            "hs_color": [0.0, 49.804],
            "xy_color": [0.524, 0.313],
        },
    ),
    "switch.kettle": (
        "kitchen",
        {},
        "off",
        {"friendly_name": "Kettle", "device_class": "outlet"},
    ),
    "cover.living_room_blinds": (
        "living_room",
        {},
        "open",
        {
            "friendly_name": "Living Room Blinds",
            "device_class": "blind",
            "current_position": 60,
            "supported_features": 15,
        },
    ),
    "cover.garage_door": (
        None,
        {},
        "closed",
        {"friendly_name": "Garage Door", "device_class": "garage", "supported_features": 3},
    ),
    "valve.garden": (
        None,
        {"options": EXPOSE},
        "closed",
        {
            "friendly_name": "Garden Valve",
            "device_class": "water",
            "current_position": 0,
            "supported_features": 7,
        },
    ),
    "lock.front_door": (
        "living_room",
        {"options": EXPOSE},
        "locked",
        {"friendly_name": "Front Door", "supported_features": 0},
    ),
    "lock.back_door": (
        "kitchen",
        {},
        "unlocked",
        {"friendly_name": "Back Door", "supported_features": 0},
    ),
    "climate.thermostat": (
        "living_room",
        {},
        "heat",
        {
            "friendly_name": "Thermostat",
            "hvac_modes": ["heat", "off"],
            "min_temp": 7,
            "max_temp": 35,
            "current_temperature": 21.5,
            "temperature": 20.0,
            "supported_features": 385,
        },
    ),
    "climate.bedroom_ac": (
        "bedroom",
        {},
        "cool",
        {
            "friendly_name": "Bedroom AC",
            "hvac_modes": ["off", "cool", "heat_cool"],
            "min_temp": 16,
            "max_temp": 30,
            "current_temperature": 24.0,
            "temperature": 22.0,
            "supported_features": 387,
        },
    ),
    "sensor.kitchen_temperature": (
        "kitchen",
        {},
        "22.5",
        {
            "friendly_name": "Kitchen Temperature",
            "device_class": "temperature",
            "unit_of_measurement": "°C",
        },
    ),
    "media_player.tv": (
        "living_room",
        {},
        "playing",
        {
            "friendly_name": "TV",
            "device_class": "tv",
            "volume_level": 0.5,
            "media_track": 3,
            "supported_features": 1 | 4 | 16 | 32 | 128 | 256 | 16384,
        },
    ),
    "media_player.kitchen_speaker": (
        None,
        {"device_id": "speaker_device"},
        "paused",
        {
            "friendly_name": "Kitchen Speaker",
            "device_class": "speaker",
            "volume_level": 0.3,
            "supported_features": 1 | 4 | 128 | 256 | 16384,
        },
    ),
    "media_player.radio": (
        "bedroom",
        {},
        "playing",
        {"friendly_name": "Radio", "volume_level": 0.2, "supported_features": 1 | 16384},
    ),
    "fan.bedroom_fan": (
        "bedroom",
        {},
        "off",
        {"friendly_name": "Bedroom Fan", "percentage": 0, "supported_features": 49},
    ),
    "vacuum.robot": (
        None,
        {},
        "docked",
        {"friendly_name": "Robot", "supported_features": 8192 | 16 | 4 | 8},
    ),
    "todo.shopping_list": (
        None,
        {},
        "2",
        {"friendly_name": "Shopping List", "supported_features": 15},
    ),
    "weather.home": (
        None,
        {"options": EXPOSE},
        "sunny",
        {"friendly_name": "Home", "temperature": 21.6, "temperature_unit": "°C"},
    ),
    "scene.movie_night": (
        "living_room",
        {},
        "unknown",
        {"friendly_name": "Movie Night"},
    ),
    "sensor.power": (
        "kitchen",
        {},
        "120",
        {"friendly_name": "Power", "device_class": "power"},
    ),
}

UNEXPOSED = ("lock.back_door", "sensor.power")
"""Entities the default exposure rules hide from Assist in this home."""


def registry_entry(entity_id: str, area_id: str | None, extras: dict[str, Any]) -> dict[str, Any]:
    """An ``entity_registry/list`` entry with the fields our model reads."""
    return {
        "entity_id": entity_id,
        "platform": "test",
        "name": None,
        "original_name": None,
        "area_id": area_id,
        "device_id": None,
        "disabled_by": None,
        "hidden_by": None,
        "entity_category": None,
        "has_entity_name": False,
        "options": {},
        **extras,
    }


def build_home() -> HomeModel:
    """The hand-built home as a fresh HomeModel."""
    return HomeModel.build(
        config={"location_name": "Test Home", "language": "en", "time_zone": "UTC"},
        areas=AREAS,
        floors=FLOORS,
        devices=DEVICES,
        entities=[
            registry_entry(entity_id, area_id, extras)
            for entity_id, (area_id, extras, _state, _attrs) in ENTITIES.items()
        ],
        entity_details={},
        exposure={},
        states={
            entity_id: {"s": state, "a": attrs, "lc": 1_700_000_000.0}
            for entity_id, (_area, _extras, state, attrs) in ENTITIES.items()
        },
    )
