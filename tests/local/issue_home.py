"""Homes with the names issue 13 found failing on the local path, in English and German.

Home Assistant 2025.4.4's agent carried these sentences out; each entity's name avoids the
words of the sentence where the issue's sentence works by area or device class, so that a
match by name cannot stand in for the form under test.
"""

from __future__ import annotations

from typing import Any

from addon.home.model.live import HomeModel

LIGHT = {"supported_color_modes": ["brightness"], "color_mode": "brightness", "brightness": 0}
COVER = {"supported_features": 15, "current_position": 0}

# entity_id: (area, friendly name, state, attributes)
Entities = dict[str, tuple[str | None, str, str, dict[str, Any]]]

ENGLISH_AREAS = {
    "kitchen": "Kitchen",
    "living_room": "Living Room",
    "bedroom": "Bedroom",
    "bedroom_1": "Bedroom 1",
    "entry": "Entry",
    "garage": "Garage",
    "garden": "Garden",
}
ENGLISH: Entities = {
    "light.kitchen": ("kitchen", "Kitchen Light", "off", LIGHT),
    "light.living_room": ("living_room", "Living Room Light", "off", LIGHT),
    "light.hall": ("entry", "Hall Light", "off", LIGHT),
    "lock.entry": ("entry", "Front Door", "unlocked", {"supported_features": 0}),
    "lock.garden_gate": ("garden", "Garden Gate", "unlocked", {"supported_features": 0}),
    "cover.garage": ("garage", "Main Door", "closed", {"device_class": "garage", **COVER}),
    "cover.garage_side": ("garage", "Side Door", "closed", {"device_class": "door", **COVER}),
    "cover.curtain": ("bedroom", "Smart Curtain", "closed", {"device_class": "curtain", **COVER}),
    "media_player.outdoor": (
        "garden",
        "Outdoor Speakers",
        "playing",
        {"device_class": "speaker", "supported_features": 152511, "volume_level": 0.5},
    ),
    "fan.bedroom_1": (
        "bedroom_1",
        "Ceiling Fan",
        "off",
        {"supported_features": 49, "percentage": 0},
    ),
    "todo.trader_joe_s": ("kitchen", "Trader Joe's", "0", {"supported_features": 1}),
    "sensor.living_room_temperature": (
        "living_room",
        "Living Room Temperature",
        "21.5",
        {"device_class": "temperature", "unit_of_measurement": "°C"},
    ),
    "climate.living_room": (
        "living_room",
        "Thermostat",
        "heat",
        {"current_temperature": 21.5, "temperature": 22, "supported_features": 1},
    ),
    "light.reading_1": ("bedroom", "Reading Lamp", "off", LIGHT),
    "light.reading_2": ("living_room", "Reading Lamp", "off", LIGHT),
}

GERMAN_AREAS = {
    "kueche": "Küche",
    "wohnzimmer": "Wohnzimmer",
    "schlafzimmer": "Schlafzimmer",
    "flur": "Flur",
    "garage": "Garage",
    "garten": "Garten",
}
GERMAN: Entities = {
    "light.kueche": ("kueche", "Küchenlicht", "off", LIGHT),
    "light.wohnzimmer": ("wohnzimmer", "Wohnzimmerlampe", "off", LIGHT),
    "lock.flur": ("flur", "Haustür", "unlocked", {"supported_features": 0}),
    "cover.garage": ("garage", "Tor", "closed", {"device_class": "garage", **COVER}),
    "cover.vorhang": ("schlafzimmer", "Vorhang", "closed", {"device_class": "curtain", **COVER}),
    "media_player.garten": (
        "garten",
        "Gartenlautsprecher",
        "playing",
        {"device_class": "speaker", "supported_features": 152511, "volume_level": 0.5},
    ),
    "fan.schlafzimmer": (
        "schlafzimmer",
        "Deckenventilator",
        "off",
        {"supported_features": 49, "percentage": 0},
    ),
    "todo.einkauf": ("kueche", "Einkaufsliste", "0", {"supported_features": 1}),
    "climate.wohnzimmer": (
        "wohnzimmer",
        "Thermostat",
        "heat",
        {"current_temperature": 21.5, "temperature": 22, "supported_features": 1},
    ),
    "sensor.wohnzimmer_temperatur": (
        "wohnzimmer",
        "Wohnzimmer Temperatur",
        "21.5",
        {"device_class": "temperature", "unit_of_measurement": "°C"},
    ),
}


def build(
    entities: Entities,
    areas: dict[str, str],
    language: str = "en",
    hidden: frozenset[str] = frozenset(),
) -> HomeModel:
    """A home of ``entities`` in ``areas``, every entity but the ``hidden`` exposed to Assist."""
    return HomeModel.build(
        config={"location_name": "Issue 13", "language": language},
        floors=[],
        areas=[
            {"area_id": area_id, "name": name, "aliases": [], "floor_id": None}
            for area_id, name in areas.items()
        ],
        devices=[],
        entities=[
            {"entity_id": entity_id, "area_id": area, "platform": "demo"}
            for entity_id, (area, *_rest) in entities.items()
        ],
        entity_details={
            entity_id: {
                "aliases": [],
                "options": {"conversation": {"should_expose": entity_id not in hidden}},
            }
            for entity_id in entities
        },
        exposure={},
        states={
            entity_id: {"s": state, "a": {"friendly_name": name, **attributes}}
            for entity_id, (_area, name, state, attributes) in entities.items()
        },
    )


def english_home() -> HomeModel:
    """The English home."""
    return build(ENGLISH, ENGLISH_AREAS)


def german_home() -> HomeModel:
    """The German home."""
    return build(GERMAN, GERMAN_AREAS, "de")
