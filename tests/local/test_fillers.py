"""Words a question carries that ask nothing: "currently", "tell me whether…", in every language."""

from __future__ import annotations

import pytest

from addon.home.model.live import HomeModel
from addon.local.fillers import first_alternative, without_now, without_request
from addon.local.matcher import LocalMatcher
from tests.local.conftest import home_dicts


@pytest.mark.parametrize(
    ("language", "said", "asked"),
    [
        ("en", "is the kitchen light currently on", "is the kitchen light on"),
        ("en", "is the kitchen light on right now?", "is the kitchen light on?"),
        ("de", "ist das Licht gerade an?", "ist das Licht an?"),
        ("fr", "la lumière est-elle actuellement allumée", "la lumière est-elle allumée"),
        ("es", "¿está la luz encendida en este momento?", "¿está la luz encendida?"),
        ("it", "la luce è attualmente accesa?", "la luce è accesa?"),
        ("nl", "is de lamp momenteel aan", "is de lamp aan"),
        ("pt", "a luz está atualmente acesa?", "a luz está acesa?"),
        ("pl", "czy światło jest obecnie włączone", "czy światło jest włączone"),
        ("en", "currently", "currently"),  # never everything
        ("en", "turn on the Now TV", "turn on the Now TV"),  # "now" alone is not a filler
    ],
)
def test_an_adverb_that_only_says_now_is_taken_out(language: str, said: str, asked: str) -> None:
    """A state question is about now anyway; Home Assistant's sentences have no room for it."""
    assert without_now(said, language) == asked


@pytest.mark.parametrize(
    ("language", "said", "asked"),
    [
        ("en", "can you tell me if the kitchen lights are on?", "are the kitchen lights on?"),
        ("en", "please tell me whether the door is locked", "is the door locked"),
        ("en", "do you know if the tv is playing", "is the tv playing"),
        ("de", "sag mir, ob die Küchenlichter an sind", "sind die Küchenlichter an"),
        ("nl", "vertel me of de lampen aan zijn", "zijn de lampen aan"),
        ("fr", "dis-moi si la lumière est allumée", "est-ce que la lumière est allumée"),
        ("pl", "powiedz mi, czy światło jest włączone", "czy światło jest włączone"),
        ("es", "dime si la luz está encendida", "la luz está encendida"),
        ("it", "dimmi se la luce è accesa", "la luce è accesa"),
        ("pt", "diz-me se a luz está acesa", "a luz está acesa"),
        ("en", "turn on the kitchen lights", "turn on the kitchen lights"),
    ],
)
def test_a_request_to_tell_becomes_the_question_it_stands_for(
    language: str, said: str, asked: str
) -> None:
    """A "tell me whether X is Y" asks "is X Y": the verb moves where the language moves it."""
    assert without_request(said, language) == asked


@pytest.mark.parametrize(
    "text",
    [
        "is the kitchen lights currently on",
        "please tell me if the kitchen lights are on",
        "can you tell me whether the kitchen lights are on?",
        "are the kitchen lights on at the moment",
    ],
)
def test_the_question_is_answered_locally(
    matcher: LocalMatcher, home: HomeModel, text: str
) -> None:
    """Before, these matched nothing, or a catch-all read "kitchen lights currently" as a name."""
    match = matcher.recognize(text, home)
    assert match is not None
    assert (match.intent, match.slots) == (
        "HassGetState",
        {"name": "Kitchen Lights", "state": ["on"]},
    )


@pytest.mark.parametrize(
    ("language", "said", "asked"),
    [
        ("en", "is the tv playing, paused or stopped?", "is the tv playing?"),
        ("en", "is the tv playing or paused", "is the tv playing"),
        ("fr", "la lumière est allumée ou éteinte", "la lumière est allumée"),
        ("nl", "is de lamp aan of uit", "is de lamp aan"),
        ("en", "turn on the kitchen lights", "turn on the kitchen lights"),
    ],
)
def test_a_question_offering_states_is_asked_of_the_first(
    language: str, said: str, asked: str
) -> None:
    """Its answer names the state the device is in ("No, paused"), which is what was asked."""
    assert first_alternative(said, language) == asked


def test_offered_states_are_answered_but_a_command_is_never_cut_short(
    matcher: LocalMatcher,
) -> None:
    """Only a question is asked of its first alternative; "turn on A or B" acts on neither."""
    model = HomeModel.build(
        **home_dicts({"media_player.tv": ("living_room", "TV", [], "paused", {})})
    )
    match = matcher.recognize("is the tv playing, paused or stopped?", model)
    assert match is not None
    assert (match.intent, match.slots) == ("HassGetState", {"name": "TV", "state": ["playing"]})
    assert matcher.recognize("turn on the kitchen lights or the sofa light", model) is None
