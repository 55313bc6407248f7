"""A home on Home Assistant 2026.11 with a device for each intent that release brought.

A media player that can mute, step its volume and search (with a one-album library the virtual
executor searches), a climate entity with fan modes, a lawn mower, a vacuum that can clean an
area, a to-do list and the shopping list's to-do entity (registry platform ``shopping_list``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from addon.home.model.live import HomeModel

PLAYER = {
    "device_class": "speaker",
    # pause, volume set/mute, next/previous, play media, volume step, play, search media
    "supported_features": 1 | 4 | 8 | 16 | 32 | 512 | 1024 | 16384 | 4194304,
    "volume_level": 0.5,
    "is_volume_muted": False,
    "media_library": [
        {
            "title": "Abbey Road",
            "media_class": "album",
            "media_content_id": "album/abbey-road",
            "media_content_type": "album",
        }
    ],
}
CLIMATE = {"supported_features": 1 | 8, "fan_modes": ["auto", "low", "high"], "fan_mode": "auto"}

# entity_id: (area, name, state, attributes, platform)
Entities = dict[str, tuple[str | None, str, str, dict[str, Any], str]]


def entities_named(player: str, mower: str, robot: str, chores: str, shopping: str) -> Entities:
    return {
        "media_player.speaker": ("living_room", player, "playing", PLAYER, "demo"),
        "climate.thermostat": ("living_room", "Thermostat", "heat", CLIMATE, "demo"),
        "lawn_mower.mower": (None, mower, "docked", {"supported_features": 1 | 2 | 4}, "demo"),
        "vacuum.robot": (
            "hall",
            robot,
            "docked",
            {"supported_features": 16 | 8192 | 16384},
            "demo",
        ),
        "todo.chores": (None, chores, "1", {"supported_features": 7, "items": ["bins"]}, "local"),
        "todo.shopping_list": (
            None,
            shopping,
            "1",
            {"supported_features": 7, "items": ["milk"]},
            "shopping_list",
        ),
    }


def build(entities: Entities, areas: Mapping[str, str], language: str) -> HomeModel:
    """A home on Home Assistant 2026.11 with every entity exposed."""
    return HomeModel.build(
        config={"location_name": "Newer", "language": language, "version": "2026.11.0"},
        floors=[],
        areas=[
            {"area_id": area_id, "name": name, "aliases": [], "floor_id": None}
            for area_id, name in areas.items()
        ],
        devices=[],
        entities=[
            {"entity_id": entity_id, "area_id": area, "platform": platform, "original_name": name}
            for entity_id, (area, name, _state, _attrs, platform) in entities.items()
        ],
        # 2026.11 names an entity by its registry aliases; null is its computed name.
        entity_details={
            entity_id: {"aliases": [None], "options": {"conversation": {"should_expose": True}}}
            for entity_id in entities
        },
        exposure={},
        states={
            entity_id: {"s": state, "a": {"friendly_name": name, **attributes}}
            for entity_id, (_area, name, state, attributes, _platform) in entities.items()
        },
    )


def english_home() -> HomeModel:
    entities = entities_named("Speaker", "Mowbot", "Robbie", "Chores", "Groceries")
    return build(
        entities, {"living_room": "Living Room", "hall": "Hall", "kitchen": "Kitchen"}, "en"
    )


def german_home() -> HomeModel:
    entities = entities_named("Lautsprecher", "Mähroboter", "Robbie", "Hausarbeit", "Vorräte")
    return build(entities, {"living_room": "Wohnzimmer", "hall": "Flur", "kitchen": "Küche"}, "de")
