"""The intent specs: the tool schemas Home Assistant's Assist API gives a model."""

from __future__ import annotations

from addon.home.actions.intents import (
    INTENTS,
    ON_OFF_DEVICE_CLASSES,
    parameters_schema,
)
from addon.home.actions.slots import validate_slots
from addon.home.model.live import HomeModel
from addon.tools.home_tools import home_tools
from tests.local.newer_home import english_home

REQUIRED_INTENTS = {
    "HassTurnOn",
    "HassTurnOff",
    "HassToggle",
    "HassLightSet",
    "HassSetPosition",
    "HassGetState",
    "HassClimateSetTemperature",
    "HassClimateGetTemperature",
    "HassMediaPause",
    "HassMediaUnpause",
    "HassMediaNext",
    "HassMediaPrevious",
    "HassSetVolume",
    "HassFanSetSpeed",
    "HassVacuumStart",
    "HassVacuumReturnToBase",
    "HassListAddItem",
    "HassGetWeather",
    "HassGetCurrentTime",
    "HassGetCurrentDate",
}


def test_every_required_intent_has_a_spec() -> None:
    """All twenty intents the agent must offer are specified."""
    assert set(INTENTS) >= REQUIRED_INTENTS


def test_turn_on_takes_domain_and_device_class_as_arrays() -> None:
    """HassTurnOn's domain and device_class are string arrays, nothing is required."""
    schema = parameters_schema(INTENTS["HassTurnOn"])
    assert schema["properties"]["domain"] == {"type": "array", "items": {"type": "string"}}
    assert schema["properties"]["device_class"] == {
        "type": "array",
        "items": {"type": "string", "enum": list(ON_OFF_DEVICE_CLASSES)},
    }
    assert schema["required"] == []


def test_light_set_has_a_domain_slot_but_no_device_class() -> None:
    """HassLightSet keeps HA 2025.4's plain domain slot and has no device_class."""
    properties = parameters_schema(INTENTS["HassLightSet"])["properties"]
    assert properties["domain"] == {"type": "array", "items": {"type": "string"}}
    assert "device_class" not in properties
    assert properties["brightness"]["maximum"] == 100


def test_set_position_requires_position() -> None:
    """HassSetPosition lists position (0-100) as required."""
    schema = parameters_schema(INTENTS["HassSetPosition"])
    assert schema["required"] == ["position"]
    assert schema["properties"]["position"] == {"type": "integer", "minimum": 0, "maximum": 100}


def test_media_intents_limit_domain_to_media_player() -> None:
    """Media intents only accept the media_player domain, as their handlers require it."""
    domain = parameters_schema(INTENTS["HassMediaPause"])["properties"]["domain"]
    assert domain["items"]["enum"] == ["media_player"]


def test_climate_set_temperature_requires_a_number() -> None:
    """HassClimateSetTemperature's temperature is a required number."""
    schema = parameters_schema(INTENTS["HassClimateSetTemperature"])
    assert schema["required"] == ["temperature"]
    assert schema["properties"]["temperature"] == {"type": "number"}


def test_assist_api_hides_the_query_intents() -> None:
    """HassGetState, HassToggle and the time intents are not in HA's default tool set."""
    hidden = {name for name, spec in INTENTS.items() if not spec.in_assist_api}
    assert {"HassGetState", "HassToggle", "HassGetCurrentTime", "HassGetWeather"} <= hidden
    assert INTENTS["HassTurnOn"].in_assist_api


OFFERED_BY_2026_11 = {
    "HassMediaPlayerMute",
    "HassMediaPlayerUnmute",
    "HassSetVolumeRelative",
    "HassLawnMowerStartMowing",
    "HassLawnMowerDock",
    "HassVacuumCleanArea",
    "HassListCompleteItem",
    "HassListRemoveItem",
}
"""The newer intents Home Assistant 2026.11's integrations offer a model (their ``llm.py``)."""
LOCAL_ONLY = {
    "HassClimateSetFanMode",
    "HassMediaSearchAndPlay",
    "HassShoppingListAddItem",
    "HassShoppingListCompleteItem",
}
"""Handled for sentences but offered to no model, as in Home Assistant 2026.11."""


def test_newer_intents_are_tools_where_home_assistant_offers_them() -> None:
    """A home with every domain exposed gets the tools 2026.11 offers, not the local-only ones."""
    names = {tool.name for tool in home_tools(english_home())} | {
        tool.name for tool in home_tools(_mower_home())
    }

    assert names >= OFFERED_BY_2026_11
    assert names.isdisjoint(LOCAL_ONLY)
    assert all(name in INTENTS for name in LOCAL_ONLY)


def _mower_home() -> HomeModel:
    """A home with one exposed lawn mower."""
    return HomeModel.build(
        config={"location_name": "Mower", "language": "en"},
        floors=[],
        areas=[],
        devices=[],
        entities=[],
        entity_details={},
        exposure={},
        states={"lawn_mower.mower": {"s": "docked", "a": {"supported_features": 5}}},
    )


def test_volume_step_takes_a_word_or_a_percentage() -> None:
    """HassSetVolumeRelative's step is "up", "down" or a whole number from -100 to 100."""
    step = parameters_schema(INTENTS["HassSetVolumeRelative"])["properties"]["volume_step"]
    assert step["anyOf"][-1] == {"type": "integer", "minimum": -100, "maximum": 100}
    assert validate_slots(INTENTS["HassSetVolumeRelative"], {"volume_step": "-20"}) == {
        "volume_step": -20
    }
