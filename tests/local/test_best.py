"""Which reading of a sentence wins when hassil's own order leaves several tied.

hassil 3.12 ends a tie on the intent's name, alphabetically; we first prefer the reading the
home can carry out (``addon.local.best``). The sentences are from Home Assistant's intents
tests, where our matcher read them otherwise (bench/intents_suite.py's "wrong").
"""

from __future__ import annotations

from typing import Any

import pytest

from addon.home.model.live import HomeModel
from addon.local.matcher import LocalMatcher
from tests.local.conftest import home_dicts

Extra = dict[str, tuple[str, str, list[str], str, dict[str, Any]]]


@pytest.fixture(scope="module")
def matchers() -> dict[str, LocalMatcher]:
    """One matcher per language, each compiled once for the module."""
    built = {}
    for language in ("en", "de", "pt"):
        matcher = LocalMatcher(language)
        matcher.prepare()
        built[language] = matcher
    return built


CASES: list[tuple[str, str, Extra, str, dict[str, Any]]] = [
    (
        # "Climate" sorts before "GetState": the Furnace is a sensor, not a thermostat.
        "en",
        "what is the furnace temperature?",
        {"sensor.furnace": ("kitchen", "Furnace", [], "40", {"device_class": "temperature"})},
        "HassGetState",
        {"name": "Furnace", "domain": ["sensor"], "device_class": ["temperature"]},
    ),
    (
        # A cover set to 50 %, not a light's brightness.
        "pt",
        "muda a persiana da cozinha para 50%",
        {
            "cover.persiana": (
                "kitchen",
                "Persiana da Cozinha",
                [],
                "open",
                {"device_class": "shutter", "supported_features": 15},
            )
        },
        "HassSetPosition",
        {"name": "Persiana da Cozinha", "position": 50, "domain": ["cover"]},
    ),
    (
        # A fan turned on as a fan, not as a scene of the same name.
        "de",
        "Deckenventilator im Wohnzimmer an",
        {"fan.decke": ("living_room", "Deckenventilator", [], "off", {})},
        "HassTurnOn",
        {"name": "Deckenventilator", "area": "Wohnzimmer"},
    ),
    (
        # "Tore" are gates here (the home has gates and locks), the narrower reading.
        "de",
        "Wie viele Tore sind geschlossen?",
        {
            "cover.einfahrt": ("kitchen", "Einfahrt", [], "closed", {"device_class": "gate"}),
            "lock.haustuer": ("kitchen", "Haustür", [], "locked", {}),
        },
        "HassGetState",
        {"device_class": ["gate"], "state": ["closed"], "domain": ["cover"]},
    ),
]


@pytest.mark.parametrize(("language", "text", "extra", "intent", "slots"), CASES)
def test_a_tie_goes_to_the_reading_the_home_can_carry_out(
    matchers: dict[str, LocalMatcher],
    language: str,
    text: str,
    extra: Extra,
    intent: str,
    slots: dict[str, Any],
) -> None:
    """The reading whose intent acts on what the sentence names wins the tie."""
    dicts = home_dicts(extra)
    if language == "de":
        dicts["areas"] = [
            {**area, "name": "Wohnzimmer"} if area["area_id"] == "living_room" else area
            for area in dicts["areas"]
        ]
    model = HomeModel.build(**dicts)
    match = matchers[language].recognize(text, model)
    assert match is not None
    assert (match.intent, match.slots) == (intent, slots)


def test_a_command_is_not_read_as_a_place_people_are_in(
    matchers: dict[str, LocalMatcher],
) -> None:
    """A place in a question about people is a value; a whole command in its wildcard is not."""
    model = HomeModel.build(**home_dicts({"person.anna": ("kitchen", "Anna", [], "Schule", {})}))
    match = matchers["de"].recognize("alle Türen im Flur öffnen", model)
    assert match is None or match.slots.get("domain") != ["person"]
    asked = matchers["de"].recognize("wer ist in der Schule", model)
    assert asked is not None
    assert asked.slots == {"state": ["Schule"], "domain": ["person"]}


def _hallway_doors(version: str) -> HomeModel:
    """A home with door covers and a lock in its hallway (Flur), on Home Assistant ``version``."""
    dicts = home_dicts(
        {
            "cover.flurtuer": ("hallway", "Flurtür", [], "closed", {"device_class": "door"}),
            "lock.flur": ("hallway", "Flurschloss", [], "locked", {}),
        }
    )
    dicts["areas"] = [*dicts["areas"], {"area_id": "hallway", "name": "Flur", "aliases": []}]
    dicts["config"] = {**dicts["config"], "version": version}
    return HomeModel.build(**dicts)


def test_words_the_home_release_gives_another_kind_are_left_to_the_model(
    matchers: dict[str, LocalMatcher],
) -> None:
    """On 2025.4, "mach im Flur die Türen auf" unlocks in its sentences: covers are not opened.

    Home Assistant 2026.11's sentences read it as the hallway's door covers, and a home on
    that release gets that reading.
    """
    text = "mach im Flur die Türen auf"
    assert matchers["de"].recognize(text, _hallway_doors("2025.4.4")) is None
    newer = matchers["de"].recognize(text, _hallway_doors("2026.11.0"))
    assert newer is not None
    assert (newer.intent, newer.slots.get("domain")) == ("HassTurnOn", ["cover"])


def test_a_home_on_2026_11_reads_a_sentence_as_its_release_does(
    matchers: dict[str, LocalMatcher],
) -> None:
    """2025.4 adds ``name: all`` to "turn on the fans in the kitchen"; 2026.11 does not."""
    extra: Extra = {"fan.ceiling": ("kitchen", "Ceiling Fan", [], "off", {})}
    dicts = home_dicts(extra)
    older = matchers["en"].recognize("turn on the fans in the kitchen", HomeModel.build(**dicts))
    dicts["config"] = {**dicts["config"], "version": "2026.11.0"}
    newer = matchers["en"].recognize("turn on the fans in the kitchen", HomeModel.build(**dicts))
    assert older is not None
    assert newer is not None
    assert "name" not in newer.slots
    assert newer.stage != older.stage
