"""Local questions without Home Assistant: what the sentences read and what the handlers answer.

The real Home Assistant tests (tests/agent/test_questions_real_ha.py) prove every form end to
end; these pin the decisions in between on the virtual home.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from addon.home.actions.handlers import handle_intent
from addon.home.actions.response import ErrorCode, IntentResult
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from addon.local.answer_format import without_answer_format
from addon.local.matcher import LocalMatcher
from addon.local.responses import render_speech
from tests.local.conftest import home_dicts

NOW = datetime.fromisoformat("2026-11-25T08:00:00+00:00")
EXTRA: dict[str, tuple[str, str, list[str], str, dict[str, Any]]] = {
    "sensor.hall_motion_battery": (
        "living_room",
        "Hall motion sensor battery",
        [],
        "87",
        {"device_class": "battery", "unit_of_measurement": "%"},
    ),
    "sensor.door_battery": (
        "living_room",
        "Door sensor battery",
        [],
        "60",
        {"device_class": "battery", "unit_of_measurement": "%"},
    ),
    "binary_sensor.bedroom_window": (
        "bedroom",
        "Bedroom Window",
        [],
        "on",
        {"device_class": "window"},
    ),
    "calendar.family": (
        "kitchen",
        "Family",
        [],
        "off",
        {"events": [{"summary": "Recycling", "start": "2026-11-26"}]},
    ),
    "todo.chores": ("kitchen", "Chores", [], "2", {"items": ["laundry", "dishes"]}),
}


@pytest.fixture
def home() -> HomeModel:
    """The test home with sensors, a window, a calendar and a to-do list."""
    return HomeModel.build(**home_dicts(EXTRA))


@pytest.fixture(scope="module")
def german() -> LocalMatcher:
    """A German matcher, loaded once."""
    local = LocalMatcher("de")
    local.prepare()
    return local


async def answer(matcher: LocalMatcher, text: str, home: HomeModel) -> tuple[str, IntentResult]:
    """What the local path would say to ``text`` on the virtual home (first match)."""
    match = matcher.recognize(text, home, language=matcher.language)
    assert match is not None, text
    result = await handle_intent(
        match.intent,
        match.slots,
        model=home,
        executor=VirtualExecutor(home.copy()),
        language=matcher.language,
        now=NOW,
    )
    return render_speech(match, result), result


@pytest.mark.parametrize(
    ("text", "language", "question"),
    [
        ("is the bedside lamp on, answer yes or no", "en", "is the bedside lamp on"),
        ("Yes or no: is the door locked?", "en", "is the door locked?"),
        ("Ist das Licht an? Antworte mit ja oder nein.", "de-DE", "Ist das Licht an"),
        ("yes or no", "en", "yes or no"),
    ],
)
def test_answer_yes_or_no_is_taken_off_the_question(
    text: str, language: str, question: str
) -> None:
    """The phrase "answer yes or no" at either end goes; a text of nothing else stays."""
    assert without_answer_format(text, language) == question


async def test_a_yes_or_no_question_with_its_format_matches_as_without(
    matcher: LocalMatcher, home: HomeModel
) -> None:
    """A state question followed by "answer yes or no" gets Home Assistant's "Yes"."""
    speech, _result = await answer(matcher, "is the bedside lamp on, answer yes or no", home)

    assert speech == "Yes"


async def test_a_sensor_by_kind_and_device_words(matcher: LocalMatcher, home: HomeModel) -> None:
    """The battery level of the hall motion sensor is that sensor's, not the door sensor's."""
    speech, _result = await answer(
        matcher, "what is the battery level of the hall motion sensor", home
    )

    assert speech == "Hall motion sensor battery is 87 %"


async def test_several_sensors_that_fit_are_not_guessed(
    matcher: LocalMatcher, home: HomeModel
) -> None:
    """Two battery sensors in the living room: no certain answer, a matching failure."""
    _speech, result = await answer(matcher, "what is the battery level of the living room", home)

    assert result.error_code is ErrorCode.NO_VALID_TARGETS


async def test_a_count_of_open_windows_counts_window_sensors(
    matcher: LocalMatcher, home: HomeModel
) -> None:
    """Home Assistant's sentence asks for window covers; the open window sensor counts too."""
    speech, _result = await answer(matcher, "how many windows are open", home)

    assert speech == "1"


async def test_a_to_do_lists_items_on_the_virtual_home(
    matcher: LocalMatcher, home: HomeModel
) -> None:
    """A dry run or evaluation reads a list's items from the fixture's attributes."""
    speech, _result = await answer(matcher, "what's on my chores list", home)

    assert speech == "Chores has 2 items: laundry and dishes"


async def test_tomorrows_events_in_german(german: LocalMatcher, home: HomeModel) -> None:
    """Asked "was steht morgen an", tomorrow's events are read and said in German."""
    speech, _result = await answer(german, "was steht morgen an", home)

    assert speech == "Morgen steht 1 Termin an: Recycling"


@pytest.mark.parametrize(
    ("text", "speech"),
    [
        ("is the coffee running", "No, off"),
        ("is the kitchen coffee switched on", "No, off"),
        ("is the lamp on", None),
    ],
)
async def test_a_device_named_by_some_of_its_words(
    matcher: LocalMatcher, home: HomeModel, text: str, speech: str | None
) -> None:
    """Words that name exactly one device answer yes or no; words that fit several do not."""
    said, result = await answer(matcher, text, home)

    if speech is None:
        assert result.error_code is ErrorCode.NO_VALID_TARGETS
    else:
        assert said == speech


async def test_a_sensor_not_exposed_is_not_answered_about(matcher: LocalMatcher) -> None:
    """The garage sensor's battery is not exposed to Assist: no answer is read from it."""
    extra = {
        "sensor.garage_battery": (
            "kitchen",
            "Garage sensor battery",
            [],
            "12",
            {"device_class": "battery", "unit_of_measurement": "%"},
        )
    }
    dicts = home_dicts(extra)
    dicts["entity_details"]["sensor.garage_battery"]["options"]["conversation"] = {
        "should_expose": False
    }
    home = HomeModel.build(**dicts)

    speech, result = await answer(matcher, "what is the battery level of the garage sensor", home)

    assert result.error_code is ErrorCode.NO_VALID_TARGETS
    assert "12" not in speech


@pytest.fixture(scope="module")
def matchers() -> dict[str, LocalMatcher]:
    """A French and a Spanish matcher, loaded once."""
    loaded = {language: LocalMatcher(language) for language in ("fr", "es")}
    for local in loaded.values():
        local.prepare()
    return loaded


@pytest.mark.parametrize(
    ("language", "text", "speech"),
    [
        ("fr", "quel est le niveau de batterie du hall motion sensor", "87"),
        ("fr", "qu'est-ce qu'il y a sur ma chores", "laundry et dishes"),
        ("fr", "qu'est-ce que j'ai demain", "1 événement demain : Recycling"),
        ("es", "cuál es el nivel de batería del hall motion sensor", "87"),
        ("es", "qué hay en mi chores", "laundry y dishes"),
        ("es", "qué tengo para mañana", "1 evento mañana: Recycling"),
    ],
)
async def test_our_questions_in_french_and_spanish(
    matchers: dict[str, LocalMatcher], home: HomeModel, language: str, text: str, speech: str
) -> None:
    """Our own question forms are answered in French and Spanish too, in those languages."""
    said, _result = await answer(matchers[language], text, home)

    assert speech in said
