"""Our own sentences (addon/local/custom): the forms they add, and no guess when they are vague."""

from __future__ import annotations

from typing import Any

import pytest

from addon.home.model.live import HomeModel
from addon.local.library import Stage
from addon.local.matcher import LocalMatcher
from tests.local.conftest import home_dicts

_PLAYER = {"supported_features": 1 | 4 | 32 | 16384}
Extra = dict[str, tuple[str, str, list[str], str, dict[str, Any]]]

DEVICES: Extra = {
    "media_player.lounge_tv": (
        "living_room",
        "Lounge Screen",
        [],
        "playing",
        {**_PLAYER, "device_class": "tv"},
    ),
    "media_player.kitchen_radio": ("kitchen", "Kitchen Radio", [], "paused", _PLAYER),
    "vacuum.robo": ("living_room", "Robo", [], "docked", {"supported_features": 16383}),
    "cover.lounge_curtain": (
        "living_room",
        "Lounge Curtain",
        [],
        "open",
        {"device_class": "curtain"},
    ),
    "cover.bedroom_curtain": (
        "bedroom",
        "Bedroom Curtain",
        [],
        "open",
        {"device_class": "curtain"},
    ),
    "cover.bedroom_shutter": (
        "bedroom",
        "Bedroom Shutter",
        [],
        "open",
        {"device_class": "shutter"},
    ),
    "cover.kitchen_shutter": (
        "kitchen",
        "Kitchen Shutter",
        [],
        "open",
        {"device_class": "shutter"},
    ),
    "valve.main_water": ("kitchen", "Main", [], "open", {"device_class": "water"}),
    "sensor.bedroom_humidity": (
        "bedroom",
        "Bedroom Humidity",
        [],
        "55",
        {"device_class": "humidity", "unit_of_measurement": "%"},
    ),
}


def _home(extra: Extra | None = None) -> HomeModel:
    """The test home with the devices above (and ``extra``)."""
    return HomeModel.build(**home_dicts({**DEVICES, **(extra or {})}))


@pytest.fixture(scope="module")
def german() -> LocalMatcher:
    """A German matcher, loaded once."""
    local = LocalMatcher("de")
    local.prepare()
    return local


def test_dim_a_named_light_to_a_percentage(matcher: LocalMatcher) -> None:
    """Saying "dim the bedside lamp to 20%" sets that light's brightness, from our sentences."""
    match = matcher.recognize("dim the bedside lamp to 20%", _home())

    assert match is not None
    assert (match.intent, match.slots) == (
        "HassLightSet",
        {"name": "Bedside Lamp", "brightness": 20},
    )
    assert match.stage is Stage.CUSTOM


def test_area_light_brightness_with_the_word_after(matcher: LocalMatcher) -> None:
    """Saying "set the bedroom light to 50% brightness" targets the area's lights."""
    match = matcher.recognize("set the bedroom light to 50% brightness", _home())

    assert match is not None
    assert match.intent == "HassLightSet"
    assert match.slots == {"area": "Bedroom", "domain": ["light"], "brightness": 50}


def test_bare_pause_acts_on_the_only_playing_player(matcher: LocalMatcher) -> None:
    """Saying "pause" with one player playing pauses the media players, which is that one."""
    match = matcher.recognize("pause", _home())

    assert match is not None
    assert (match.intent, match.slots) == ("HassMediaPause", {"domain": ["media_player"]})


def test_bare_pause_with_two_playing_goes_to_the_model(matcher: LocalMatcher) -> None:
    """With two players playing, "pause" names neither: no guess."""
    playing = {"media_player.kitchen_radio": ("kitchen", "Kitchen Radio", [], "playing", _PLAYER)}

    assert matcher.recognize("pause", _home(playing)) is None


def test_send_the_vacuum_home_with_one_vacuum(matcher: LocalMatcher) -> None:
    """Saying "send the vacuum home" returns the home's only vacuum to its base."""
    match = matcher.recognize("send the vacuum home", _home())

    assert match is not None
    assert (match.intent, match.slots) == ("HassVacuumReturnToBase", {"domain": ["vacuum"]})


def test_send_the_vacuum_home_with_two_goes_to_the_model(matcher: LocalMatcher) -> None:
    """With two vacuums "the vacuum" is ambiguous."""
    second = {
        "vacuum.upstairs": ("bedroom", "Upstairs Bot", [], "docked", {"supported_features": 16383})
    }

    assert matcher.recognize("send the vacuum home", _home(second)) is None


def test_a_named_vacuum_goes_back_to_its_dock(matcher: LocalMatcher) -> None:
    """Saying "send robo back to its dock" names the vacuum."""
    match = matcher.recognize("send robo back to its dock", _home())

    assert match is not None
    assert (match.intent, match.slots) == ("HassVacuumReturnToBase", {"name": "Robo"})


def test_turn_off_the_tv_with_one_tv(matcher: LocalMatcher) -> None:
    """Saying "turn off the tv" is the device class when the home has one tv."""
    match = matcher.recognize("turn off the tv", _home())

    assert match is not None
    assert match.intent == "HassTurnOff"
    assert match.slots == {"domain": ["media_player"], "device_class": ["tv"]}


def test_one_curtain_of_two_is_not_guessed(matcher: LocalMatcher) -> None:
    """Saying "close the curtain" (one) with two curtains in the home goes to the model."""
    assert matcher.recognize("close the curtain", _home()) is None


def test_plural_class_closes_every_one(matcher: LocalMatcher) -> None:
    """Saying "close the curtains" closes the home's curtains: the plural asks for all."""
    match = matcher.recognize("close the curtains", _home())

    assert match is not None
    assert match.intent == "HassTurnOff"
    assert match.slots == {"domain": ["cover"], "device_class": ["curtain"]}


def test_a_floor_after_the_class_narrows_it(matcher: LocalMatcher) -> None:
    """Saying "close the shutters upstairs" keeps the floor: the kitchen's shutter stays open."""
    match = matcher.recognize("close the shutters upstairs", _home())

    assert match is not None
    assert match.slots == {"domain": ["cover"], "device_class": ["shutter"], "floor": "Upstairs"}


def test_shut_off_the_water_with_one_water_valve(matcher: LocalMatcher) -> None:
    """Saying "shut off the water" closes the only water valve."""
    match = matcher.recognize("shut off the water", _home())

    assert match is not None
    assert match.intent == "HassTurnOff"
    assert match.slots == {"domain": ["valve"], "device_class": ["water"]}


def test_sensor_value_by_area_and_class(matcher: LocalMatcher) -> None:
    """Saying "what is the humidity in the bedroom" reads the area's humidity sensor."""
    match = matcher.recognize("what is the humidity in the bedroom", _home())

    assert match is not None
    assert (match.intent, match.slots) == (
        "HomeAgentSensorValue",
        {"area": "Bedroom", "device_class": ["humidity"]},
    )


def test_german_bare_pause(german: LocalMatcher) -> None:
    """Saying "Pause" in German pauses the only playing player."""
    match = german.recognize("Pause", _home())

    assert match is not None
    assert (match.intent, match.slots) == ("HassMediaPause", {"domain": ["media_player"]})


def test_german_volume_of_a_named_player(german: LocalMatcher) -> None:
    """Saying "Stelle die Lautstärke vom Kitchen Radio auf 50 Prozent" sets that player's volume."""
    match = german.recognize("Stelle die Lautstärke vom Kitchen Radio auf 50 Prozent", _home())

    assert match is not None
    assert match.intent == "HassSetVolume"
    assert match.slots == {"name": "Kitchen Radio", "volume_level": 50}
