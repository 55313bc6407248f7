"""The intents suite: Home Assistant's own tests, scored as its test script scores them."""

from __future__ import annotations

import pytest

from addon.local.language import LEGACY_DIR
from addon.local.library import SentenceLibrary
from devtools.intents_suite import (
    LANGUAGES,
    TAGS,
    Case,
    HassilRunner,
    Outcome,
    Reading,
    Suite,
    load,
    places,
    run,
    same_reading,
    score,
)

SAMPLE = 30

pytestmark = pytest.mark.skipif(
    not LEGACY_DIR.is_dir(), reason="Home Assistant 2025.4's sentences are not installed"
)


def _case(intent: str, slots: dict[str, object], sentence: str = "s") -> Case:
    return Case("en", "test", sentence, intent, slots, None)


def test_every_served_language_has_a_suite() -> None:
    """Each served language has its fixture home and sentences, 9,411 in all."""
    suites = [load(language) for language in LANGUAGES]
    assert all(suite.home["entities"] and suite.cases for suite in suites)
    assert sum(len(suite.cases) for suite in suites) == 9411


def test_same_intent_and_slots_is_right() -> None:
    """A list slot holding the expected value counts, as in the repository's script."""
    case = _case("HassTurnOn", {"area": "Living Room", "domain": "light"})
    reading = Reading("HassTurnOn", {"area": "Living Room", "domain": ["light"]})
    assert score(case, reading) is Outcome.RIGHT


def test_no_match_is_a_miss_and_another_intent_is_wrong() -> None:
    """Nothing matched is a miss; a match of another intent would act differently."""
    case = _case("HassTurnOn", {"name": "Bedroom Lamp"})
    assert score(case, Reading(None, {})) is Outcome.MISS
    assert score(case, Reading("HassTurnOff", {"name": "Bedroom Lamp"})) is Outcome.WRONG


def test_another_value_or_an_unexpected_slot_is_wrong() -> None:
    """A differing value, or a slot the test does not expect, is wrong."""
    case = _case("HassLightSet", {"name": "Bedroom Lamp", "brightness": 50})
    assert score(case, Reading("HassLightSet", {"name": "Bedroom Lamp", "brightness": 50.0})) is (
        Outcome.RIGHT
    )
    assert score(case, Reading("HassLightSet", {"name": "Bedroom Lamp", "brightness": 40})) is (
        Outcome.WRONG
    )
    extra = {"name": "Bedroom Lamp", "brightness": 50, "domain": ["scene"]}
    assert score(case, Reading("HassLightSet", extra)) is Outcome.WRONG


def test_a_missing_slot_is_partial() -> None:
    """Lacking an expected slot, with nothing contradicting, is neither right nor wrong."""
    case = _case("HassGetState", {"name": "Pet Door", "domain": "binary_sensor"})
    assert score(case, Reading("HassGetState", {"name": "Pet Door"})) is Outcome.PARTIAL


def test_an_area_by_another_of_its_names_is_the_same_area() -> None:
    """Polish fixture areas have several case forms; any of them names the same area."""
    suite = load("pl")
    case = Case("pl", "test", "s", "HassTurnOn", {"area": "Salon", "domain": "cover"}, None)
    reading = Reading("HassTurnOn", {"area": "Salonie", "domain": ["cover"]})
    assert score(case, reading) is Outcome.WRONG
    assert score(case, reading, places(suite.home)) is Outcome.RIGHT


def test_hassil_reads_a_named_cover_as_the_test_expects() -> None:
    """'open the curtain left' is HassTurnOn name Curtain Left for hassil, and scores right."""
    suite = load("en")
    expected = next(c for c in suite.cases if c.sentence == "open the curtain left")
    assert (expected.intent, dict(expected.slots)) == ("HassTurnOn", {"name": "Curtain Left"})
    reading = HassilRunner(suite).read(expected)
    assert reading.intent == "HassTurnOn"
    assert reading.slots["name"] == "Curtain Left"
    assert score(expected, reading) is Outcome.RIGHT


@pytest.fixture(scope="module")
def library() -> SentenceLibrary:
    """Our sentences for every served language, parsed once for the module."""
    return SentenceLibrary()


@pytest.mark.parametrize("tag", TAGS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_hassil_runner_is_faithful_on_a_sample(
    language: str, tag: str, library: SentenceLibrary
) -> None:
    """Each language and tag's first sentences: hassil, as its release runs it, passes them.

    Nearly all: the repository's own suite passes.
    """
    results = run(load(language, tag), limit=SAMPLE, library=library)
    assert len(results) == SAMPLE
    right = sum(r.hassil_outcome is Outcome.RIGHT for r in results)
    assert right >= 0.95 * SAMPLE, [
        (r.case.sentence, r.hassil) for r in results if r.hassil_outcome is not Outcome.RIGHT
    ]
    assert all(isinstance(r.ours_outcome, Outcome) for r in results)


def test_a_domain_every_entity_of_the_class_is_in_changes_nothing() -> None:
    """An added ``domain: cover`` opens the same windows when every window is a cover.

    For a question it narrows what is reported, so there it is another reading.
    """
    case = _case("HassTurnOn", {"area": "Bathroom", "device_class": "window"})
    reading = Reading(
        "HassTurnOn", {"area": "Bathroom", "device_class": ["window"], "domain": ["cover"]}
    )
    assert score(case, reading, None, {"window": frozenset({"cover"})}) is Outcome.RIGHT
    # A window's binary sensor beside its cover: opening changes only covers either way.
    both = {"window": frozenset({"cover", "binary_sensor"})}
    assert score(case, reading, None, both) is Outcome.RIGHT
    # Asked about, the sensor would have been reported: the added domain narrows the answer.
    asked = _case("HassGetState", {"area": "Bathroom", "device_class": "window"})
    narrowed = Reading("HassGetState", {**reading.slots})
    assert score(asked, narrowed, None, both) is Outcome.WRONG
    # A home with no window at all opens none, with the added domain or without it.
    assert score(case, reading, None, {}) is Outcome.RIGHT
    assert score(case, reading) is Outcome.WRONG


def test_the_newer_tag_has_a_suite_with_a_home_per_file() -> None:
    """2026.10.27's copy: 10,061 sentences, each slot-combination file with its own home."""
    suites = [load(language, TAGS[1]) for language in LANGUAGES]
    assert sum(len(suite.cases) for suite in suites) == 10061
    english = suites[0]
    case = next(c for c in english.cases if c.sentence == "open the curtain left")
    assert case.home
    assert any("Curtain Left" in e["names"] for e in english.home_of(case)["entities"])


def test_a_listed_value_of_a_slot_combination_is_one_of_those_allowed() -> None:
    """Implied domains (and a group's listed values) allow any of them, not all at once."""
    case = Case(
        "en",
        "t",
        "s",
        "HassGetState",
        {"domain": ["fan", "light"], "state": "on"},
        None,
        one_of=frozenset({"domain"}),
    )
    assert score(case, Reading("HassGetState", {"domain": ["light"], "state": "on"})) is (
        Outcome.RIGHT
    )
    assert score(case, Reading("HassGetState", {"domain": ["lock"], "state": "on"})) is (
        Outcome.WRONG
    )


def test_a_satellite_area_the_fixture_lacks_is_in_the_home(library: SentenceLibrary) -> None:
    """The French fixture has no "bureau"; heard there, our dimming reads it as hassil does."""
    suite = load("fr")
    case = next(c for c in suite.cases if c.sentence == "Baisse la luminosité à 40%")
    (result,) = run(Suite("fr", suite.home, (case,)), library=library)
    assert result.ours_outcome is Outcome.RIGHT


def test_the_same_reading_ignores_a_single_value_in_a_list() -> None:
    """``domain: ["todo"]`` and ``domain: "todo"`` are the same reading (stale scoring)."""
    one = Reading("HassListRemoveItem", {"item": "apples", "domain": ["todo"]})
    assert same_reading(one, Reading("HassListRemoveItem", {"item": "apples", "domain": "todo"}))
    assert not same_reading(one, Reading("HassListCompleteItem", {"item": "apples"}))
