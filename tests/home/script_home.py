"""A small home with scripts, their fields given as Home Assistant 2025.4.4's ``get_services`` does.

``DIM_LIGHT`` is what the real Home Assistant answered for the script ``tests/ha`` configures
(selectors come back validated, numbers as floats, with ``advanced`` and ``response``).
"""

from __future__ import annotations

from typing import Any

from addon.home.model.live import HomeModel
from tests.home.homes import HomeData

DIM_LIGHT: dict[str, Any] = {
    "name": "Dim a light",
    "description": "Sets a light to a brightness",
    "fields": {
        "light": {
            "name": "Light",
            "required": True,
            "selector": {"entity": {"domain": ["light"], "multiple": False}},
            "advanced": False,
        },
        "level": {
            "name": "Level",
            "description": "Brightness in percent",
            "required": True,
            "selector": {"number": {"min": 1.0, "max": 100.0, "step": 1.0, "mode": "slider"}},
            "advanced": False,
        },
        "room": {"selector": {"area": {"multiple": False}}, "advanced": False, "required": False},
    },
    "response": {"optional": True},
}
# The tool parameters Home Assistant's ScriptTool makes of DIM_LIGHT's fields.
DIM_LIGHT_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "light": {"type": "string", "format": "entity_id", "description": "Light"},
        "level": {
            "type": "number",
            "minimum": 1.0,
            "maximum": 100.0,
            "description": "Brightness in percent",
        },
        "room": {"type": "string"},
    },
    "required": ["light", "level"],
}
BEDTIME: dict[str, Any] = {
    "name": "Good Night",
    "description": "",
    "fields": {},
    "response": {"optional": True},
}
# The script integration's own services, which get_services lists beside the scripts.
TURN_ON: dict[str, Any] = {
    "name": "Turn on",
    "description": "Runs the sequence of actions defined in a script.",
    "fields": {},
    "target": {"entity": [{"domain": ["script"]}]},
}


def script_home_data() -> HomeData:
    """A bedroom light, an exposed script with fields, one renamed, one not exposed."""
    home = HomeData()
    home.area("bedroom", "Bedroom", "Sleeping Room")
    home.entity("light.bed_light", friendly_name="Bed Light", area_id="bedroom", expose=True)
    home.entity(
        "script.dim_light",
        state="off",
        friendly_name="Dim a light",
        aliases=("dimmer",),
        expose=True,
        unique_id="dim_light",
    )
    # Renamed in the UI: the entity id no longer names the service.
    home.entity(
        "script.good_night",
        state="off",
        friendly_name="Good Night",
        expose=True,
        unique_id="bedtime",
    )
    home.entity("script.party", state="off", friendly_name="Party", unique_id="party")
    return home


def script_home(*, with_services: bool = True) -> HomeModel:
    """The home built, with or without what ``get_services`` said about its scripts."""
    scripts = {"dim_light": DIM_LIGHT, "bedtime": BEDTIME, "party": BEDTIME, "turn_on": TURN_ON}
    return script_home_data().build(scripts=scripts if with_services else None)
