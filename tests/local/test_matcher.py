"""LocalMatcher: which sentences Home Assistant's templates answer, and with which slots."""

from __future__ import annotations

import logging

import pytest

from addon.home.actions.intents import INTENTS
from addon.home.model.live import HomeModel
from addon.local.matcher import LocalMatcher
from tests.local.conftest import home_dicts


def test_entity_name_becomes_the_name_slot(matcher: LocalMatcher, home: HomeModel) -> None:
    """Turning on the kitchen lights is HassTurnOn on the entity called Kitchen Lights."""
    match = matcher.recognize("turn on the kitchen lights", home)

    assert match is not None
    assert (match.intent, match.slots) == ("HassTurnOn", {"name": "Kitchen Lights"})
    assert match.response_key == "default"


def test_area_and_domain_become_slots(matcher: LocalMatcher, home: HomeModel) -> None:
    """An area with "lights" targets the area and the light domain, as a list."""
    match = matcher.recognize("turn off living room lights", home)

    assert match is not None
    assert match.intent == "HassTurnOff"
    assert match.slots == {"area": "Living Room", "domain": ["light"]}


def test_brightness_is_a_whole_number(matcher: LocalMatcher, home: HomeModel) -> None:
    """A brightness percentage arrives as the int handle_intent validates, not hassil's float."""
    match = matcher.recognize("set bedroom brightness to 50%", home)

    assert match is not None
    assert match.intent == "HassLightSet"
    assert match.slots == {"area": "Bedroom", "brightness": 50}
    assert isinstance(match.slots["brightness"], int)


def test_temperature_question_targets_the_area(matcher: LocalMatcher, home: HomeModel) -> None:
    """A temperature question for a room is HassClimateGetTemperature in that area."""
    match = matcher.recognize("what is the temperature in the office", home)

    assert match is not None
    assert (match.intent, match.slots) == ("HassClimateGetTemperature", {"area": "Office"})


def test_entity_alias_is_recognised(matcher: LocalMatcher, home: HomeModel) -> None:
    """An entity alias matches and is passed as spoken, as Home Assistant passes it."""
    match = matcher.recognize("turn on the cooking light", home)

    assert match is not None
    assert match.slots == {"name": "cooking light"}


def test_area_alias_is_recognised(matcher: LocalMatcher, home: HomeModel) -> None:
    """An area alias matches; the handler resolves aliases to the area."""
    match = matcher.recognize("turn on the lounge lights", home)

    assert match is not None
    assert match.slots == {"area": "lounge", "domain": ["light"]}


def test_floor_name_is_recognised(matcher: LocalMatcher, home: HomeModel) -> None:
    """A floor sentence targets the floor."""
    match = matcher.recognize("turn off the lights upstairs", home)

    assert match is not None
    assert match.intent == "HassTurnOff"
    assert match.slots == {"floor": "Upstairs", "domain": ["light"]}


def test_floor_alias_gives_the_floor_name(matcher: LocalMatcher, home: HomeModel) -> None:
    """A floor alias is replaced by the floor's name, as Home Assistant's floor list does."""
    match = matcher.recognize("turn on the first floor lights", home)

    assert match is not None
    assert match.slots == {"floor": "Upstairs", "domain": ["light"]}


@pytest.mark.parametrize("text", ["what's the capital of France", "tell me a joke", "", "   "])
def test_chit_chat_goes_to_the_model(matcher: LocalMatcher, home: HomeModel, text: str) -> None:
    """Sentences no template covers are left to the model."""
    assert matcher.recognize(text, home) is None


def test_unknown_name_goes_to_the_model(matcher: LocalMatcher, home: HomeModel) -> None:
    """A name the home does not have matches no template."""
    assert matcher.recognize("turn on the garage lights", home) is None


def test_unexposed_entity_is_not_matched(matcher: LocalMatcher) -> None:
    """An entity hidden from Assist is not in the name list."""
    dicts = home_dicts({"light.attic": ("bedroom", "Attic Light", [], "off", {})})
    dicts["entity_details"]["light.attic"]["options"] = {"conversation": {"should_expose": False}}
    model = HomeModel.build(**dicts)

    assert matcher.recognize("turn on the attic light", model) is None


def test_shared_name_goes_to_the_model(matcher: LocalMatcher, home: HomeModel) -> None:
    """Two exposed lamps called Reading Lamp and no area to choose: the model asks which."""
    assert matcher.recognize("turn on the reading lamp", home) is None


PHONE = {
    "sensor.phone_battery": (
        "office",
        "Phone",
        [],
        "55",
        {"device_class": "battery", "unit_of_measurement": "%"},
    ),
    "binary_sensor.phone_connected": (
        "office",
        "Phone",
        [],
        "on",
        {"device_class": "connectivity"},
    ),
}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("what is the phone battery level", ("sensor", "battery")),
        ("what is the battery level of the phone", ("sensor", "battery")),
        ("is the phone connected", ("binary_sensor", "connectivity")),
    ],
)
def test_the_sentences_own_words_settle_a_shared_name(
    matcher: LocalMatcher, text: str, kind: tuple[str, str]
) -> None:
    """The sentence's device class picks one of two sensors sharing the phone's name.

    As hassil does, rather than leaving the sentence to a model as ambiguous.
    """
    model = HomeModel.build(**home_dicts(PHONE))
    match = matcher.recognize(text, model)
    assert match is not None
    assert (match.slots["domain"], match.slots["device_class"]) == ([kind[0]], [kind[1]])


PEOPLE = {
    "person.alice": ("office", "Alice", [], "home", {}),
    "person.bob": ("office", "Bob", [], "not_home", {}),
    "zone.work": ("office", "Work", [], "1", {}),
}


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("how many people are at home", "home"),
        ("is anyone home", "home"),
        ("who is at home", "home"),
        ("is anyone at work", "work"),
        ("who is at school", "school"),  # no zone of that name: still a place, not chatter
    ],
)
def test_a_zone_in_a_question_about_people_is_not_free_text(
    matcher: LocalMatcher, text: str, state: str
) -> None:
    """Home Assistant's zones are a wildcard list; a zone's name there is a value, not chatter.

    The "mostly free text" rule left these to a model, where Home Assistant answers them.
    """
    model = HomeModel.build(**home_dicts(PEOPLE))
    match = matcher.recognize(text, model)
    assert match is not None
    assert (match.intent, match.slots["state"], match.slots["domain"]) == (
        "HassGetState",
        [state],
        ["person"],
    )


def test_preferred_area_settles_a_shared_name(matcher: LocalMatcher, home: HomeModel) -> None:
    """The satellite's area picks one of two same-named lamps and travels with the slots."""
    match = matcher.recognize("turn on the reading lamp", home, preferred_area_id="office")

    assert match is not None
    assert match.slots == {"name": "Reading Lamp", "preferred_area_id": "office"}


def test_preferred_area_fills_an_omitted_area(matcher: LocalMatcher, home: HomeModel) -> None:
    """Turning on "the lights" means the lights of the satellite's area."""
    match = matcher.recognize("turn on the lights", home, preferred_area_id="kitchen")

    assert match is not None
    assert match.slots == {"area": "Kitchen", "domain": ["light"], "preferred_area_id": "kitchen"}


def test_omitted_area_without_satellite_goes_to_model(
    matcher: LocalMatcher, home: HomeModel
) -> None:
    """Turning on "the lights" with no known area is not guessed."""
    assert matcher.recognize("turn on the lights", home) is None


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("broadcast that dinner is ready", "HassBroadcast"),
        ("set a timer for 5 minutes", "HassStartTimer"),
    ],
)
def test_intents_only_home_assistant_serves_are_recognised_to_hand_over(
    matcher: LocalMatcher, home: HomeModel, text: str, intent: str
) -> None:
    """Timers and broadcasts match here, so the local path hands them to Home Assistant."""
    match = matcher.recognize(text, home)
    assert match is not None
    assert match.intent == intent


def test_state_questions_are_recognised(matcher: LocalMatcher, home: HomeModel) -> None:
    """HassGetState matches; whether a configured model answers instead is the turn's choice."""
    match = matcher.recognize("is the coffee maker on", home)

    assert match is not None
    assert (match.intent, match.slots) == (
        "HassGetState",
        {"name": "Coffee Maker", "state": ["on"]},
    )


def test_intents_can_be_chosen(home: HomeModel) -> None:
    """A matcher limited to some intents recognises only those."""
    local = LocalMatcher("en", intents={"HassGetState"})

    match = local.recognize("is the coffee maker on", home)

    assert match is not None
    assert (match.intent, match.slots) == (
        "HassGetState",
        {"name": "Coffee Maker", "state": ["on"]},
    )
    assert local.recognize("turn on the kitchen lights", home) is None


def test_short_free_text_item_is_matched(matcher: LocalMatcher, home: HomeModel) -> None:
    """Adding one item to a named list is a command the template carries."""
    match = matcher.recognize("add milk to the shopping list", home)

    assert match is not None
    assert (match.intent, match.slots) == (
        "HassListAddItem",
        {"item": "milk", "name": "Shopping List"},
    )


def test_mostly_free_text_goes_to_the_model(matcher: LocalMatcher, home: HomeModel) -> None:
    """A sentence that is mostly wildcard text is the model's to read."""
    text = "add buy some milk and eggs and bread for the party to the shopping list"

    assert matcher.recognize(text, home) is None


def test_slots_are_names_intents_accept(matcher: LocalMatcher, home: HomeModel) -> None:
    """Every slot of a match is one the intent's spec declares (or the area preference)."""
    match = matcher.recognize("set bedroom brightness to 50%", home, preferred_area_id="bedroom")

    assert match is not None
    declared = {slot.name for slot in INTENTS[match.intent].slots} | {"preferred_area_id"}
    assert set(match.slots) <= declared


def test_new_model_object_brings_new_names(matcher: LocalMatcher, home: HomeModel) -> None:
    """A model swapped in after a registry change is matched with its own names."""
    assert matcher.recognize("turn on the porch light", home) is None
    extra = {"light.porch": ("kitchen", "Porch Light", [], "off", {})}

    match = matcher.recognize("turn on the porch light", HomeModel.build(**home_dicts(extra)))

    assert match is not None
    assert match.slots == {"name": "Porch Light"}


def test_match_reports_time_and_language(matcher: LocalMatcher, home: HomeModel) -> None:
    """A match says how long it took and which language's templates matched."""
    match = matcher.recognize("turn on the kitchen lights", home)

    assert match is not None
    assert match.ms > 0
    assert match.language == "en"
    assert match.text == "turn on the kitchen lights"


@pytest.mark.parametrize("language", ["en-GB", "en_US", "EN"])
def test_regional_language_uses_base_templates(home: HomeModel, language: str) -> None:
    """A regional or differently cased code falls back to the shipped language."""
    match = LocalMatcher(language).recognize("turn on the kitchen lights", home)

    assert match is not None
    assert match.language == "en"


def test_language_without_templates_never_matches(
    home: HomeModel, caplog: pytest.LogCaptureFixture
) -> None:
    """A language with no sentences answers None to everything and warns exactly once."""
    local = LocalMatcher("xx")

    with caplog.at_level(logging.WARNING, logger="addon.local.matcher"):
        results = [local.recognize(text, home) for text in ("turn on the kitchen lights", "hi")]
        prepared = local.prepare()

    assert results == [None, None]
    assert prepared is False
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "'xx'" in warnings[0].getMessage()


def test_a_requests_language_is_matched_with_its_own_sentences(
    matcher: LocalMatcher, home: HomeModel
) -> None:
    """An English matcher asked in German matches German sentences, and English ones still."""
    german = matcher.recognize("schalte Kitchen Lights aus", home, language="de-DE")
    english = matcher.recognize("turn off the kitchen lights", home)

    assert german is not None
    assert (german.intent, german.slots, german.language) == (
        "HassTurnOff",
        {"name": "Kitchen Lights"},
        "de",
    )
    assert english is not None
    assert english.language == "en"


def test_a_region_with_sentences_of_its_own_keeps_them(home: HomeModel) -> None:
    """Swiss German has its own sentences, so "de-CH" is not read as "de"."""
    match = LocalMatcher("en").recognize("mach Kitchen Lights us", home, language="de-CH")

    assert match is not None
    assert match.language == "de-CH"


def test_a_language_is_loaded_on_first_use_and_kept(home: HomeModel) -> None:
    """Only the languages asked for are loaded; an unshipped one has nothing to load."""
    local = LocalMatcher("en")

    before = (local.loaded("en"), local.loaded("fr"), local.loaded("xx"))
    match = local.recognize("allume Kitchen Lights", home, language="fr")

    assert before == (False, False, True)
    assert match is not None
    assert (local.loaded("fr"), local.loaded("fr-FR"), local.loaded("en")) == (True, True, False)
    assert local.recognize("turn on the kitchen lights", home, language="xx") is None


def test_an_entity_renamed_in_place_is_matched_by_its_new_name(
    matcher: LocalMatcher, home: HomeModel
) -> None:
    """A friendly name changed by a state event (same model object) reaches the slot lists."""
    assert matcher.recognize("turn on the kitchen lights", home) is not None
    home.apply_entity_diff(
        {"c": {"light.kitchen_lights": {"+": {"a": {"friendly_name": "Pantry"}}}}}
    )
    match = matcher.recognize("turn on the pantry", home)

    assert match is not None
    assert match.slots == {"name": "Pantry"}


@pytest.mark.parametrize("text", ["play The Office", "play the dark side of the moon"])
def test_a_title_to_play_is_not_free_text(
    matcher: LocalMatcher, home: HomeModel, text: str
) -> None:
    """The title in "play <title>" is most of the sentence by nature: searched and played."""
    match = matcher.recognize(text, home, preferred_area_id="living_room")
    assert match is not None
    assert match.intent == "HassMediaSearchAndPlay"
    assert str(match.slots["search_query"]).casefold() == text.removeprefix("play ").casefold()
