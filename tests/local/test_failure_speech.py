"""What a listener hears when a local command fails, in English and German.

Each failure kind is said as Home Assistant's agent says it, from the error templates of the
intents data, and never with a word of the explanation the model reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from home_assistant_intents import get_intents, get_languages

from addon.home.actions.handlers import handle_intent
from addon.home.actions.response import ErrorCode, error_result
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from addon.home.targeting.targets import MatchFailedReason, MatchFailure, MatchTargetsConstraints
from addon.i18n.translations import TABLE
from addon.local.failure_speech import (
    HANDLE_ERROR,
    NO_INTENT,
    failure_key,
    spoken_failure,
    spoken_unknown,
)
from addon.local.library import SentenceLibrary, Stage, release_stage
from addon.local.matcher import LocalMatcher
from addon.local.response_templates import ResponseTemplates
from addon.local.responses import render_speech
from tests.local.issue_home import (
    ENGLISH,
    ENGLISH_AREAS,
    GERMAN,
    GERMAN_AREAS,
    LIGHT,
    build,
)

# Every error key spoken_failure may say; each language we match in must have all.
SPOKEN_KEYS = frozenset(
    {
        NO_INTENT,
        HANDLE_ERROR,
        "no_area",
        "no_floor",
        "no_domain",
        "no_domain_in_area",
        "no_domain_in_floor",
        "no_device_class",
        "no_device_class_in_area",
        "no_device_class_in_floor",
        "no_entity",
        "no_entity_in_area",
        "no_entity_in_floor",
        "no_entity_exposed",
        "no_entity_in_area_exposed",
        "no_entity_in_floor_exposed",
        "no_domain_exposed",
        "no_domain_in_area_exposed",
        "no_domain_in_floor_exposed",
        "no_device_class_exposed",
        "no_device_class_in_area_exposed",
        "no_device_class_in_floor_exposed",
        "duplicate_entities",
        "duplicate_entities_in_area",
        "duplicate_entities_in_floor",
        "duplicate_targets",
        "feature_not_supported",
        "entity_wrong_state",
    }
)
"""Every error key :func:`spoken_failure` may say; each language we match in must have all."""

MODEL_WORDS = ("exposed to Assist", "the user", "Expose", "Closest", "entity", "'")
"""Words of the model-facing explanations (addon/home/actions/failure.py), never spoken."""

TWO_THERMOSTATS = {
    **ENGLISH,
    "climate.bedroom": (
        "bedroom",
        "Bedroom Thermostat",
        "heat",
        {"current_temperature": 19, "temperature": 20, "supported_features": 1},
    ),
}
TWO_READING_LAMPS = {
    **GERMAN,
    "light.lese_1": ("schlafzimmer", "Leselampe", "off", LIGHT),
    "light.lese_2": ("wohnzimmer", "Leselampe", "off", LIGHT),
}


def english(hidden: frozenset[str] = frozenset()) -> HomeModel:
    return build(ENGLISH, ENGLISH_AREAS, hidden=hidden)


def german(hidden: frozenset[str] = frozenset()) -> HomeModel:
    return build(GERMAN, GERMAN_AREAS, "de", hidden=hidden)


def templates(library: SentenceLibrary, language: str) -> ResponseTemplates:
    loaded = library.load(language)
    assert loaded is not None
    return loaded.sets[-1].templates


async def said_for_call(
    library: SentenceLibrary,
    home: HomeModel,
    intent: str,
    slots: Mapping[str, Any],
    language: str,
) -> str:
    """Handle ``intent`` with ``slots`` (a failure expected) and say the failure."""
    result = await handle_intent(
        intent, slots, model=home, executor=VirtualExecutor(home), language=language
    )
    assert result.is_error
    assert result.message is not None
    return spoken_failure(result, templates(library, language))


async def said_for_sentence(
    library: SentenceLibrary,
    home: HomeModel,
    text: str,
    language: str,
    states: Mapping[str, str] | None = None,
) -> str:
    """Match ``text`` with the language's sentences, handle it and render what is said."""
    for entity_id, state in (states or {}).items():
        current = home.state(entity_id)
        assert current is not None
        home.set_state(entity_id, state, dict(current.attributes), when=0.0)
    match = LocalMatcher(language, library=library).recognize(text, home, language=language)
    assert match is not None, text
    result = await handle_intent(
        match.intent, match.slots, model=home, executor=VirtualExecutor(home), language=language
    )
    assert result.is_error, result
    return render_speech(match, result)


CALLS = [
    pytest.param(
        english(),
        "HassTurnOn",
        {"name": "Garage Door"},
        "en",
        "Sorry, I am not aware of any device called Garage Door",
        id="en-no-such-name",
    ),
    pytest.param(
        english(),
        "HassTurnOn",
        {"name": "Main Door", "area": "Kitchen"},
        "en",
        "Sorry, I am not aware of any device called Main Door in the Kitchen area",
        id="en-name-not-in-area",
    ),
    pytest.param(
        english(),
        "HassTurnOn",
        {"area": "Attic", "domain": ["light"]},
        "en",
        "Sorry, I am not aware of any area called Attic",
        id="en-no-such-area",
    ),
    pytest.param(
        english(),
        "HassTurnOn",
        {"floor": "Basement", "domain": ["light"]},
        "en",
        "Sorry, I am not aware of any floor called Basement",
        id="en-no-such-floor",
    ),
    pytest.param(
        english(),
        "HassTurnOn",
        {"domain": ["cover"], "device_class": ["window"]},
        "en",
        "Sorry, I am not aware of any window",
        id="en-no-such-device-class",
    ),
    pytest.param(
        english(frozenset({"cover.garage"})),
        "HassTurnOn",
        {"name": "Main Door"},
        "en",
        "Sorry, Main Door is not exposed",
        id="en-name-not-exposed",
    ),
    pytest.param(
        english(),
        "HassTurnOn",
        {"name": "Reading Lamp"},
        "en",
        "Sorry, there are multiple devices called Reading Lamp",
        id="en-ambiguous-name",
    ),
    pytest.param(
        build(TWO_THERMOSTATS, ENGLISH_AREAS),
        "HassClimateSetTemperature",
        {"temperature": 20},
        "en",
        "Sorry, more than one device matched your request",
        id="en-one-target-needed",
    ),
    pytest.param(
        english(),
        "HassTurnOn",
        {},
        "en",
        "An unexpected error occurred",
        id="en-failed-to-handle",
    ),
    pytest.param(
        german(),
        "HassTurnOn",
        {"name": "Garagentor"},
        "de",
        "Garagentor existiert nicht",
        id="de-no-such-name",
    ),
    pytest.param(
        german(),
        "HassTurnOn",
        {"area": "Dachboden", "domain": ["light"]},
        "de",
        "Kein Bereich mit dem Namen Dachboden vorhanden",
        id="de-no-such-area",
    ),
    pytest.param(
        german(frozenset({"cover.garage"})),
        "HassTurnOn",
        {"name": "Tor"},
        "de",
        "Tor ist nicht freigegeben",
        id="de-name-not-exposed",
    ),
    pytest.param(
        build(TWO_READING_LAMPS, GERMAN_AREAS, "de"),
        "HassTurnOn",
        {"name": "Leselampe"},
        "de",
        "Es wurden mehrere Leselampe gefunden",
        id="de-ambiguous-name",
    ),
    pytest.param(
        german(),
        "HassTurnOn",
        {},
        "de",
        "Es ist ein unerwarteter Fehler aufgetreten",
        id="de-failed-to-handle",
    ),
]


@pytest.mark.parametrize(("home", "intent", "slots", "language", "expected"), CALLS)
async def test_a_failed_call_is_said_as_home_assistant_says_it(
    sentence_library: SentenceLibrary,
    home: HomeModel,
    intent: str,
    slots: dict[str, Any],
    language: str,
    expected: str,
) -> None:
    """Each failure kind is said with Home Assistant's sentence for it, in the language."""
    said = await said_for_call(sentence_library, home.copy(), intent, slots, language)

    assert said == expected


SENTENCES = [
    pytest.param(
        english(),
        "turn on the fan in the kitchen",
        "en",
        {},
        "Sorry, I am not aware of any fan in the Kitchen area",
        id="en-nothing-of-the-domain-in-the-area",
    ),
    pytest.param(
        english(frozenset({"light.kitchen"})),
        "turn on the lights in the kitchen",
        "en",
        {},
        "Sorry, no light in the Kitchen area is exposed",
        id="en-domain-in-area-not-exposed",
    ),
    pytest.param(
        english(),
        "pause outdoor speakers",
        "en",
        {"media_player.outdoor": "paused"},
        "Sorry, no device is playing",
        id="en-wrong-state",
    ),
    pytest.param(
        german(),
        "schalte den Ventilator in der Küche ein",
        "de",
        {},
        "Im Bereich Küche wurde kein Ventilator gefunden",
        id="de-nothing-of-the-domain-in-the-area",
    ),
    pytest.param(
        german(frozenset({"light.kueche"})),
        "schalte das Licht in der Küche ein",
        "de",
        {},
        "Im Bereich Küche ist keine Leuchte freigegeben",
        id="de-domain-in-area-not-exposed",
    ),
    pytest.param(
        german(),
        "pausiere den Gartenlautsprecher",
        "de",
        {"media_player.garten": "paused"},
        "Es läuft gerade kein Media Player",
        id="de-wrong-state",
    ),
]


@pytest.mark.parametrize(("home", "text", "language", "states", "expected"), SENTENCES)
async def test_a_failed_sentence_is_said_as_home_assistant_says_it(
    sentence_library: SentenceLibrary,
    home: HomeModel,
    text: str,
    language: str,
    states: dict[str, str],
    expected: str,
) -> None:
    """A sentence that matched but whose target failed is answered with HA's sentence."""
    said = await said_for_sentence(sentence_library, home.copy(), text, language, states)

    assert said == expected


@pytest.mark.parametrize(("home", "intent", "slots", "language", "expected"), CALLS)
async def test_no_word_of_the_models_explanation_is_said(
    sentence_library: SentenceLibrary,
    home: HomeModel,
    intent: str,
    slots: dict[str, Any],
    language: str,
    expected: str,
) -> None:
    """What is said holds none of the words the model's explanation is made of."""
    said = await said_for_call(sentence_library, home.copy(), intent, slots, language)

    assert [word for word in MODEL_WORDS if word in said] == []


def test_every_spoken_key_is_in_every_language_we_match_in() -> None:
    """Each error sentence we may say exists in every language, so none falls back to English."""
    missing = {
        language: sorted(SPOKEN_KEYS - set(get_intents(language)["responses"]["errors"]))
        for language in get_languages()
    }

    assert {language: keys for language, keys in missing.items() if keys} == {}


def test_every_language_with_our_own_words_is_matched_locally() -> None:
    """The languages of our own sentences are all among those the error sentences cover."""
    assert set(TABLE) - set(get_languages()) == set()


ARGUMENTS = {
    "entity": "Lamp",
    "area": "Kitchen",
    "floor": "Upstairs",
    "domain": "light",
    "device_class": "window",
    "state": "playing",
}


@pytest.mark.parametrize("language", get_languages())
def test_every_spoken_key_renders_in_every_language(language: str) -> None:
    """Each error sentence renders to words in every language, with the arguments we pass."""
    errors = get_intents(language)["responses"]["errors"]
    renderer = ResponseTemplates({}, errors)

    empty = [key for key in sorted(SPOKEN_KEYS) if not renderer.render_error(key, ARGUMENTS)]

    assert empty == []


@pytest.mark.parametrize("reason", list(MatchFailedReason))
@pytest.mark.parametrize(
    "constraints",
    [
        MatchTargetsConstraints(name="Lamp"),
        MatchTargetsConstraints(name="Lamp", area_name="Kitchen"),
        MatchTargetsConstraints(name="Lamp", floor_name="Upstairs", states={"on"}),
        MatchTargetsConstraints(domains={"light"}, area_name="Kitchen"),
        MatchTargetsConstraints(domains={"cover"}, device_classes={"window"}, features=4),
        MatchTargetsConstraints(domains={"cover"}, floor_name="Upstairs"),
        MatchTargetsConstraints(),
    ],
)
def test_every_failure_is_said_with_a_key_we_checked(
    reason: MatchFailedReason, constraints: MatchTargetsConstraints
) -> None:
    """Whatever failed and whatever was asked, the key chosen is one checked in every language."""
    for name_exists in (False, True):
        key, _arguments = failure_key(MatchFailure(reason, constraints, "X", name_exists))

        assert key in SPOKEN_KEYS


def test_a_missing_sentence_is_said_in_our_own_words() -> None:
    """Without Home Assistant's sentence for a failure, our own short apology is said."""
    failure = MatchFailure(MatchFailedReason.INVALID_AREA, MatchTargetsConstraints(), "Attic")
    result = error_result(
        "HassTurnOn", ErrorCode.NO_VALID_TARGETS, "explained", language="de", failure=failure
    )

    assert spoken_failure(result, ResponseTemplates({})) == TABLE["de"].could_not_do


@pytest.mark.parametrize(
    ("version", "stage"),
    [
        ("2025.4.4", Stage.HOME_ASSISTANT),
        ("2025.12.1", Stage.HOME_ASSISTANT),
        ("2026.11.0", Stage.NEWER),
        ("2027.1.0.dev0", Stage.NEWER),
        (None, None),
        ("unknown", None),
    ],
)
def test_a_release_matches_with_the_sentences_it_ships(version: str | None, stage: Stage) -> None:
    """2026.11 on matches with the pinned sentences, earlier releases with 2025.4's."""
    assert release_stage(version) is stage


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("lock all the doors", "Sorry, I am not aware of any device called all the doors"),
        ("turn on the lights in the attic", "Sorry, I am not aware of any area called attic"),
        (
            "turn on the fridge in the kitchen",
            "Sorry, I am not aware of any device called fridge in the kitchen area",
        ),
    ],
)
def test_a_sentence_with_names_the_home_lacks_is_said_as_home_assistant_says_it(
    sentence_library: SentenceLibrary, text: str, expected: str
) -> None:
    """Home Assistant's unknown-names stage, on its 2026.11 sentences: the words it says."""
    matcher = LocalMatcher("en", library=sentence_library)
    found = matcher.unknown_names(text, build(ENGLISH, ENGLISH_AREAS), Stage.NEWER)

    assert found is not None
    said = spoken_unknown(
        found.unmatched, found.matched, found.templates, found.intent, found.language
    )
    assert said == expected
