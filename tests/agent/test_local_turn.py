"""The local path on the sentences issue 13 found failing, in English and German.

Each sentence runs through ``run_local_turn`` on a virtual copy of a home whose names avoid the
words of the sentence wherever the sentence works by area or device class; a sentence passes
only if the expected entities end as expected and nothing else changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import pytest

from addon.agent.local_turn import LocalTurn, run_local_turn
from addon.agent.trace import TurnTrace
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from addon.local.matcher import LocalMatcher
from addon.tools.base import ToolContext
from tests.local.issue_home import english_home, german_home

Snapshot = dict[str, tuple[str, dict[str, Any]]]


@pytest.fixture(scope="module")
def german_matcher() -> LocalMatcher:
    """Home Assistant's German sentences, compiled once for this module."""
    matcher = LocalMatcher("de")
    matcher.prepare()
    return matcher


def snapshot(home: HomeModel) -> Snapshot:
    states = (home.state(entity.entity_id) for entity in home.exposed_entities())
    return {s.entity_id: (s.state, dict(s.attributes)) for s in states if s is not None}


def changes(before: Snapshot, after: Snapshot) -> dict[str, str]:
    """Each entity whose state or attributes changed, with its new state."""
    return {
        entity_id: after[entity_id][0]
        for entity_id in before
        if before[entity_id] != after[entity_id]
    }


async def say(
    matcher: LocalMatcher,
    home: HomeModel,
    text: str,
    *,
    language: str = "en",
    model: bool = False,
    questions: bool = True,
    setup: Mapping[str, str] | None = None,
) -> tuple[LocalTurn | None, dict[str, str]]:
    """Run ``text`` locally (``model``: as if one were configured); the turn and what changed."""
    for entity_id, state in (setup or {}).items():
        current = home.state(entity_id)
        assert current is not None
        home.set_state(entity_id, state, dict(current.attributes), when=0.0)
    before = snapshot(home)
    context = ToolContext(
        home=home, executor=VirtualExecutor(home), language=language, now=datetime.now(UTC)
    )
    turn = await run_local_turn(
        matcher, text, context, TurnTrace(), fall_through=model, questions=questions
    )
    return turn, changes(before, snapshot(home))


ENGLISH = [
    ("lock the entry lock", {}, {"lock.entry": "locked"}),
    ("unlock the entry lock", {"lock.entry": "locked"}, {"lock.entry": "unlocked"}),
    (
        "close the garage door",
        {"cover.garage": "open", "cover.garage_side": "open"},
        {"cover.garage": "closed"},
    ),
    ("open the garage door", {}, {"cover.garage": "open"}),
    ("open the smart curtain", {}, {"cover.curtain": "open"}),
    ("set bedroom curtain to 50%", {}, {"cover.curtain": "open"}),
    ("pause outdoor speakers", {}, {"media_player.outdoor": "paused"}),
    ("turn on the bedroom 1 fan", {}, {"fan.bedroom_1": "on"}),
    ("set the living room light to 50% brightness", {}, {"light.living_room": "on"}),
    ("please turn on the kitchen light", {}, {"light.kitchen": "on"}),
    ("add apples to my trader joe's list", {}, {"todo.trader_joe_s": "1"}),
]


@pytest.mark.parametrize(("text", "setup", "expected"), ENGLISH)
async def test_sentences_home_assistant_2025_4_carries_out(
    local_matcher: LocalMatcher, text: str, setup: dict[str, str], expected: dict[str, str]
) -> None:
    """Each sentence of the issue acts on exactly the entities Home Assistant's agent acts on."""
    turn, changed = await say(local_matcher, english_home(), text, setup=setup)

    assert turn is not None
    assert turn.error is None, turn.reply
    assert changed == expected


async def test_brightness_is_set_to_half(local_matcher: LocalMatcher) -> None:
    """Fifty per cent brightness ends at half of 255."""
    home = english_home()
    await say(local_matcher, home, "set the living room light to 50% brightness")

    state = home.state("light.living_room")
    assert state is not None
    assert abs(state.attributes["brightness"] - 127.5) <= 1.5


GERMAN = [
    ("sperre die Haustür", {}, {"lock.flur": "locked"}),
    ("schließe die Haustür auf", {"lock.flur": "locked"}, {"lock.flur": "unlocked"}),
    ("öffne das Garagentor in der Garage", {}, {"cover.garage": "open"}),
    ("öffne den Vorhang", {}, {"cover.vorhang": "open"}),
    ("stelle den Vorhang im Schlafzimmer auf 50%", {}, {"cover.vorhang": "open"}),
    ("pausiere die Gartenlautsprecher", {}, {"media_player.garten": "paused"}),
    ("schalte den Ventilator im Schlafzimmer ein", {}, {"fan.schlafzimmer": "on"}),
    ("bitte schalte das Küchenlicht ein", {}, {"light.kueche": "on"}),
    ("füge Äpfel zur Einkaufsliste hinzu", {}, {"todo.einkauf": "1"}),
]


@pytest.mark.parametrize(("text", "setup", "expected"), GERMAN)
async def test_german_equivalents(
    german_matcher: LocalMatcher, text: str, setup: dict[str, str], expected: dict[str, str]
) -> None:
    """The German forms act on exactly the entities meant."""
    turn, changed = await say(german_matcher, german_home(), text, language="de", setup=setup)

    assert turn is not None
    assert turn.error is None, turn.reply
    assert changed == expected


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("is the front door locked", "No, unlocked"),
        ("what is the temperature in the living room", "21.5"),
    ],
)
async def test_questions_are_answered_without_a_model(
    local_matcher: LocalMatcher, text: str, answer: str
) -> None:
    """Without a model a question gets Home Assistant's answer, and nothing changes."""
    turn, changed = await say(local_matcher, english_home(), text)

    assert turn is not None
    assert answer in turn.reply
    assert changed == {}


async def test_questions_are_answered_locally_with_a_model_by_default(
    local_matcher: LocalMatcher,
) -> None:
    """With a model, an exact match of a question still answers locally by default."""
    turn, _changed = await say(
        local_matcher, english_home(), "is the front door locked", model=True
    )

    assert turn is not None
    assert turn.reply == "No, unlocked"


async def test_questions_can_be_left_to_the_model(local_matcher: LocalMatcher) -> None:
    """``local_questions`` off: with a model configured the question goes to it."""
    turn, _changed = await say(
        local_matcher, english_home(), "is the front door locked", model=True, questions=False
    )

    assert turn is None


async def test_a_question_without_a_certain_answer_goes_to_the_model(
    local_matcher: LocalMatcher,
) -> None:
    """Two reading lamps fit "is the reading on": with a model, the model answers."""
    turn, _changed = await say(local_matcher, english_home(), "is the reading on", model=True)

    assert turn is None


async def test_a_question_without_a_certain_answer_is_not_guessed_without_a_model(
    local_matcher: LocalMatcher,
) -> None:
    """Two reading lamps fit: without a model the answer is "I don't know that"."""
    turn, changed = await say(local_matcher, english_home(), "is the reading on")

    assert turn is not None
    assert (turn.reply, changed) == ("I don't know that.", {})


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        ("en", "tunr on the kichen light", {"light.kitchen": "on"}),
        ("en", "open the smart curtian", {"cover.curtain": "open"}),
        ("en", "turn on the livingroom light", {"light.living_room": "on"}),
        ("en", "turn on the hal light", {"light.hall": "on"}),
        ("de", "schalte das Kühenlicht ein", {"light.kueche": "on"}),
    ],
)
async def test_typos_are_corrected_without_a_model(
    local_matcher: LocalMatcher,
    german_matcher: LocalMatcher,
    language: str,
    text: str,
    expected: dict[str, str],
) -> None:
    """A word one edit from exactly one known word is read as that word."""
    matcher = local_matcher if language == "en" else german_matcher
    home = english_home() if language == "en" else german_home()
    turn, changed = await say(matcher, home, text, language=language)

    assert turn is not None
    assert changed == expected


async def test_typos_go_to_the_model_when_there_is_one(local_matcher: LocalMatcher) -> None:
    """With a model only exact matches are handled locally."""
    turn, changed = await say(local_matcher, english_home(), "tunr on the kichen light", model=True)

    assert turn is None
    assert changed == {}


@pytest.mark.parametrize("text", ["turn on the reading lamp", "turn on the raeding lamp"])
async def test_a_shared_name_goes_to_the_model(local_matcher: LocalMatcher, text: str) -> None:
    """Two lamps share the name: nothing is guessed, the model can ask which one."""
    turn, changed = await say(local_matcher, english_home(), text, model=True)

    assert turn is None
    assert changed == {}


async def test_a_shared_name_acts_on_nothing_without_a_model(local_matcher: LocalMatcher) -> None:
    """Without a model the shared name is not guessed either."""
    _turn, changed = await say(local_matcher, english_home(), "turn on the raeding lamp")

    assert changed == {}


async def test_a_word_near_two_known_words_is_not_guessed(local_matcher: LocalMatcher) -> None:
    """The word "hoor" is one edit from "door" (a name) and "hour" (a sentence): nothing done."""
    _turn, changed = await say(local_matcher, english_home(), "open the main hoor")

    assert changed == {}


async def test_a_typo_in_a_name_beside_a_near_sentence_word(local_matcher: LocalMatcher) -> None:
    """The word "gaet" is "gate" in the home and ties in the sentences: the name wins."""
    _turn, changed = await say(local_matcher, english_home(), "lock the garden gaet")

    assert changed == {"lock.garden_gate": "locked"}
