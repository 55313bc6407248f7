"""The intents Home Assistant 2026.11's agent brought, carried out by the local path.

Mute and unmute, relative volume, search and play, a climate fan mode, the lawn mower, cleaning
an area, completing and removing to-do items and the shopping list: each sentence runs through
``run_local_turn`` on a virtual copy of a home running 2026.11, in English and German, and
passes only if the expected entities end as expected (nothing else changes) and the reply is
Home Assistant's own response.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import pytest

from addon.agent.local_turn import LocalTurn, run_local_turn
from addon.agent.trace import TurnTrace
from addon.home.actions.executor import ServiceCall
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from addon.local.matcher import LocalMatcher
from addon.tools.base import ToolContext
from tests.local.newer_home import english_home, entities_named, german_home


@pytest.fixture(scope="module")
def german_matcher() -> LocalMatcher:
    """Home Assistant's German sentences, compiled once for this module."""
    matcher = LocalMatcher("de")
    matcher.prepare()
    return matcher


Snapshot = dict[str, tuple[str, dict[str, Any]]]


def snapshot(home: HomeModel) -> Snapshot:
    states = (home.state(entity.entity_id) for entity in home.exposed_entities())
    return {s.entity_id: (s.state, dict(s.attributes)) for s in states if s is not None}


async def say(
    matcher: LocalMatcher, home: HomeModel, text: str, language: str
) -> tuple[LocalTurn | None, VirtualExecutor, dict[str, tuple[str, dict[str, Any]]]]:
    """Run ``text`` locally without a model; the turn, its executor and what changed."""
    before = snapshot(home)
    executor = VirtualExecutor(home)
    context = ToolContext(home=home, executor=executor, language=language, now=datetime.now(UTC))
    turn = await run_local_turn(matcher, text, context, TurnTrace(), fall_through=False)
    after = snapshot(home)
    changed = {key: after[key] for key in before if before[key] != after[key]}
    return turn, executor, changed


# (text, its intent, the entity, what must hold of it afterwards, words of the reply)
Case = tuple[str, str, str, Mapping[str, Any], str]

ENGLISH: list[Case] = [
    (
        "mute the speaker",
        "HassMediaPlayerMute",
        "media_player.speaker",
        {"is_volume_muted": True},
        "Muted",
    ),
    (
        "turn the volume up in the living room",
        "HassSetVolumeRelative",
        "media_player.speaker",
        {"volume_level": 0.6},
        "Volume set",
    ),
    (
        "turn down the living room volume by 20%",
        "HassSetVolumeRelative",
        "media_player.speaker",
        {"volume_level": 0.3},
        "Volume set",
    ),
    (
        "play the album abbey road in the living room",
        "HassMediaSearchAndPlay",
        "media_player.speaker",
        {"media_content_id": "album/abbey-road", "state": "playing"},
        "Playing media",
    ),
    (
        "set the living room fan mode to high",
        "HassClimateSetFanMode",
        "climate.thermostat",
        {"fan_mode": "high"},
        "Fan mode set to high",
    ),
    (
        "start mowbot",
        "HassLawnMowerStartMowing",
        "lawn_mower.mower",
        {"state": "mowing"},
        "Started",
    ),
    (
        "clean the kitchen",
        "HassVacuumCleanArea",
        "vacuum.robot",
        {"state": "cleaning"},
        "Cleaning kitchen",
    ),
    (
        "add eggs to my shopping list",
        "HassShoppingListAddItem",
        "todo.shopping_list",
        {"state": "2"},
        "Added eggs",
    ),
    (
        "check off milk from my shopping list",
        "HassShoppingListCompleteItem",
        "todo.shopping_list",
        {"state": "0"},
        "Checked off milk",
    ),
    (
        "check off bins from my chores list",
        "HassListCompleteItem",
        "todo.chores",
        {"state": "0"},
        "Checked off bins",
    ),
    (
        "remove bins from my chores list",
        "HassListRemoveItem",
        "todo.chores",
        {"state": "0"},
        "Removed bins",
    ),
]

GERMAN: list[Case] = [
    (
        "schalte den Lautsprecher stumm",
        "HassMediaPlayerMute",
        "media_player.speaker",
        {"is_volume_muted": True},
        "",
    ),
    (
        "Wohnzimmer um 20 Prozent lauter",
        "HassSetVolumeRelative",
        "media_player.speaker",
        {"volume_level": 0.7},
        "Lautstärke festgelegt",
    ),
    (
        "setze den Lüftermodus im Wohnzimmer auf hoch",
        "HassClimateSetFanMode",
        "climate.thermostat",
        {"fan_mode": "high"},
        "Lüftermodus auf hoch eingestellt",
    ),
    (
        "schicke den Mähroboter los",
        "HassLawnMowerStartMowing",
        "lawn_mower.mower",
        {"state": "mowing"},
        "",
    ),
    ("Küche saugen", "HassVacuumCleanArea", "vacuum.robot", {"state": "cleaning"}, ""),
    (
        "füge Eier zur Einkaufsliste hinzu",
        "HassShoppingListAddItem",
        "todo.shopping_list",
        {"state": "2"},
        "",
    ),
    (
        "streiche bins von der Hausarbeit Liste",
        "HassListCompleteItem",
        "todo.chores",
        {"state": "0"},
        "",
    ),
]


def _holds(home: HomeModel, entity_id: str, expected: Mapping[str, Any]) -> dict[str, Any]:
    """What the entity shows for each expected key (``state`` for its state)."""
    state = home.state(entity_id)
    assert state is not None
    return {key: state.state if key == "state" else state.attributes.get(key) for key in expected}


@pytest.mark.parametrize(("text", "intent", "entity_id", "expected", "reply"), ENGLISH)
async def test_english_sentences_act_as_home_assistant_2026_11(
    local_matcher: LocalMatcher,
    text: str,
    intent: str,
    entity_id: str,
    expected: Mapping[str, Any],
    reply: str,
) -> None:
    """Each sentence changes only its entity, as Home Assistant's handler would."""
    home = english_home()
    match = local_matcher.recognize(text, home)
    assert match is not None
    assert match.intent == intent
    turn, _executor, changed = await say(local_matcher, home, text, "en")

    assert turn is not None
    assert turn.error is None, turn.reply
    assert list(changed) == [entity_id]
    assert _holds(home, entity_id, expected) == pytest.approx(dict(expected))
    assert reply in turn.reply


@pytest.mark.parametrize(("text", "intent", "entity_id", "expected", "reply"), GERMAN)
async def test_german_sentences_act_as_home_assistant_2026_11(
    german_matcher: LocalMatcher,
    text: str,
    intent: str,
    entity_id: str,
    expected: Mapping[str, Any],
    reply: str,
) -> None:
    """The German forms change the same entities the same way."""
    home = german_home()
    match = german_matcher.recognize(text, home)
    assert match is not None
    assert match.intent == intent
    turn, _executor, changed = await say(german_matcher, home, text, "de")

    assert turn is not None
    assert turn.error is None, turn.reply
    assert list(changed) == [entity_id]
    assert _holds(home, entity_id, expected) == pytest.approx(dict(expected))
    assert reply in turn.reply


async def test_unmute_after_mute(local_matcher: LocalMatcher) -> None:
    """Unmute sets ``is_volume_muted`` back to false."""
    home = english_home()
    await say(local_matcher, home, "mute the speaker", "en")
    turn, _executor, _changed = await say(local_matcher, home, "unmute the speaker", "en")

    assert turn is not None
    assert turn.reply == "Unmuted"
    assert _holds(home, "media_player.speaker", {"is_volume_muted": 0}) == {
        "is_volume_muted": False
    }


async def test_dock_the_mower(local_matcher: LocalMatcher) -> None:
    """HassLawnMowerDock sends a mowing mower back to its dock."""
    home = english_home()
    await say(local_matcher, home, "start mowbot", "en")
    turn, _executor, _changed = await say(local_matcher, home, "dock mowbot", "en")

    assert turn is not None
    assert turn.reply == "Docking"
    assert _holds(home, "lawn_mower.mower", {"state": ""}) == {"state": "returning"}


async def test_removing_an_item_takes_it_off_the_list(local_matcher: LocalMatcher) -> None:
    """HassListRemoveItem removes the item; completing keeps it, checked off."""
    home = english_home()
    _turn, executor, _changed = await say(
        local_matcher, home, "remove bins from my chores list", "en"
    )

    answer = await executor.read(ServiceCall("todo", "get_items", ("todo.chores",)))
    assert answer["todo.chores"]["items"] == []


async def test_an_item_already_on_the_shopping_list_is_not_added_again(
    local_matcher: LocalMatcher,
) -> None:
    """As the shopping list does: an open item of that name leaves the list as it is."""
    home = english_home()
    turn, _executor, changed = await say(local_matcher, home, "put Milk on the list", "en")

    assert turn is not None
    assert turn.error is None
    assert changed == {}


async def test_removal_is_not_read_on_an_older_release(local_matcher: LocalMatcher) -> None:
    """On Home Assistant 2025.4 "remove X from my list" is no removal: nothing is removed."""
    entities = entities_named("Speaker", "Mowbot", "Robbie", "Chores", "Groceries")
    home = HomeModel.build(
        config={"location_name": "Older", "language": "en", "version": "2025.4.4"},
        floors=[],
        areas=[],
        devices=[],
        entities=[
            {"entity_id": e, "area_id": None, "platform": p} for e, (*_, p) in entities.items()
        ],
        entity_details={},
        exposure={},
        states={
            e: {"s": s, "a": {"friendly_name": n, **a}} for e, (_r, n, s, a, _p) in entities.items()
        },
    )
    match = local_matcher.recognize("remove bins from my chores list", home)

    assert match is None or match.intent != "HassListRemoveItem"
