"""PINs and dry runs in confirmation: retries, lockout, masking, and a question's own mode.

An agent over the demo home (its front door exposed) whose live executor is the home model
itself, so the door's state says whether an unlock was real; the dry run's virtual copy leaves
it as it was.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from addon.agent.confirm import (
    PIN_MASK,
    Pending,
    PendingConfirmations,
    PinAttempts,
    answer_of,
    pin_like,
)
from addon.agent.conversation import ConversationRequest, ConversationResult
from addon.agent.service import Agent
from addon.home.actions.confirmation import ConfirmationPolicy, PolicyEntry, hash_pin
from addon.home.model.live import HomeModel
from addon.i18n.confirmation import TABLE
from addon.store.database import Store
from addon.store.models import ToolCall
from devtools.scripted_llm import ScriptedLLM
from tests.agent.test_confirm import ASKED, UNLOCK
from tests.fixtures.agent import MakeAgent, ManualClock, RecordedEvents, stored_turn

LOCK = "lock.front_door"
PIN = "4711"
PIN_HASH = hash_pin(PIN)
LOCKED_OUT = "Too many wrong PINs. PIN confirmation is locked for 5 minutes."
WRONG = "That PIN is not right. Say it again to confirm, or no to cancel."


def pin_policy() -> ConfirmationPolicy:
    """The front door's unlock, confirmed by the PIN 4711."""
    return ConfirmationPolicy.of(
        [PolicyEntry(1, "entity", LOCK, ("unlock",), "pin", True, PIN_HASH)]
    )


def yes_policy() -> ConfirmationPolicy:
    """The front door's unlock, confirmed by a yes."""
    return ConfirmationPolicy.of([PolicyEntry(1, "entity", LOCK, ("unlock",))])


@dataclass(frozen=True, slots=True)
class Door:
    """An agent whose home has the front door exposed, its clock and its events."""

    agent: Agent
    home: HomeModel
    clock: ManualClock
    events: RecordedEvents

    def state(self) -> str:
        """The front door's state as the home has it now."""
        state = self.home.state(LOCK)
        assert state is not None
        return state.state

    async def say(self, text: str, **kwargs: Any) -> ConversationResult:
        """``text`` from the hall satellite (a new conversation unless one is named)."""
        kwargs.setdefault("device_id", "satellite-hall")
        return await self.agent.process(ConversationRequest(text, source="wyoming", **kwargs))

    def fired(self, event_type: str) -> list[dict[str, Any]]:
        """The data of the events of ``event_type`` fired so far."""
        return [data for fired, data in self.events.fired if fired == event_type]


def door_with(make_agent: MakeAgent, demo_home_data: dict[str, Any], **kwargs: Any) -> Door:
    """A door whose agent has ``kwargs`` (the PIN policy unless another is given)."""
    data = copy.deepcopy(demo_home_data)
    data["exposure"][LOCK] = {"conversation": True}
    home = HomeModel.build(**data)
    clock, events = ManualClock(), RecordedEvents()
    kwargs.setdefault("confirmation", pin_policy)
    agent = make_agent(home=home, clock=clock, events=events, **kwargs)
    return Door(agent, home, clock, events)


@pytest.fixture
def door(make_agent: MakeAgent, demo_home_data: dict[str, Any]) -> Door:
    """The door with the PIN policy."""
    return door_with(make_agent, demo_home_data)


async def settled(door: Door) -> None:
    """Wait until the agent's events have been fired."""
    await door.agent.drain()


async def test_a_question_asked_in_a_dry_run_is_answered_in_one(
    make_agent: MakeAgent, demo_home_data: dict[str, Any]
) -> None:
    """Held in a dry-run turn, a yes in a normal turn leaves the door locked and says so."""
    door = door_with(make_agent, demo_home_data, confirmation=yes_policy)
    await door.say("unlock the front door", dry_run=True)
    done = await door.say("yes")
    assert done.reply == "Done, as a dry run: nothing was changed."
    assert door.state() == "locked"


async def test_the_answer_to_a_dry_run_question_is_stored_as_a_dry_run(
    make_agent: MakeAgent, demo_home_data: dict[str, Any], store: Store
) -> None:
    """The answering turn is recorded as a dry run, its trace's step acted virtually."""
    door = door_with(make_agent, demo_home_data, confirmation=yes_policy)
    await door.say("unlock the front door", dry_run=True)
    done = await door.say("yes")
    turn = await stored_turn(store, done.turn_id)
    async with store.sessionmaker() as session:
        step = await session.scalar(
            select(ToolCall).where(
                ToolCall.turn_id == done.turn_id, ToolCall.name == "confirmation"
            )
        )
    assert step is not None
    assert (turn.dry_run, step.executor, step.result["dry_run"]) == (True, "virtual", True)


async def test_a_swedish_nej_cancels_and_a_swedish_ja_confirms(
    make_agent: MakeAgent, demo_home_data: dict[str, Any]
) -> None:
    """Swedish, served by the local path but asked in English: "nej" cancels, "ja" unlocks."""
    door = door_with(make_agent, demo_home_data, confirmation=yes_policy)
    held = await door.say("lås upp Front Door", language="sv")
    assert held.needs_confirmation is not None
    cancelled = await door.say("Nej.", language="sv")
    assert cancelled.reply == "OK, the Front Door is still locked."
    assert door.state() == "locked"
    await door.say("lås upp Front Door", language="sv")
    assert (await door.say("ja", language="sv")).reply == "Done."
    assert door.state() == "unlocked"


async def test_a_wrong_pin_keeps_the_question_for_the_right_one(door: Door) -> None:
    """After a wrong PIN the question still waits: the PIN said again unlocks the door."""
    await door.say("unlock the front door")
    wrong = await door.say("8 2 6 9")
    assert (wrong.reply, door.state()) == (WRONG, "locked")
    assert wrong.needs_confirmation is not None
    assert (await door.say(PIN)).reply == "Done."
    assert door.state() == "unlocked"


async def test_a_sentence_with_fewer_digits_than_a_pin_is_a_new_request(door: Door) -> None:
    """A sentence with a number, said to a PIN question, cancels it and is handled as itself."""
    await door.say("unlock the front door")
    said = "set the ceiling lights to 50%"
    handled = await door.say(said)
    assert handled.reply != WRONG
    assert (handled.said, handled.needs_confirmation) == (said, None)
    assert (await door.say(PIN)).reply != "Done."
    assert door.state() == "locked"


async def test_the_retried_pin_is_masked(door: Door, store: Store) -> None:
    """The PIN said again after a wrong one is stored as the mask, not as digits."""
    await door.say("unlock the front door")
    await door.say("8 2 6 9")
    retry = await door.say(PIN)
    assert (await stored_turn(store, retry.turn_id)).user_text == PIN_MASK


async def test_a_pin_said_with_nothing_pending_is_masked(door: Door, store: Store) -> None:
    """A PIN said when no question waits is stored and fired as the mask."""
    said = await door.say(f"{PIN}.")
    await settled(door)
    assert (await stored_turn(store, said.turn_id)).user_text == PIN_MASK
    started = door.fired("home_agent_conversation_started")
    assert [event["text"] for event in started] == [PIN_MASK]


async def test_a_pin_said_with_nothing_pending_never_reaches_the_model(
    make_agent: MakeAgent, demo_home_data: dict[str, Any], scripted_llm: ScriptedLLM
) -> None:
    """The model is sent the mask in place of a PIN said out of turn."""
    door = door_with(make_agent, demo_home_data, llm=scripted_llm, local_first=False)
    scripted_llm.reply("I don't know what that means.")
    await door.say(f"PIN {PIN}")
    sent = json.dumps(scripted_llm.chat_requests[0].messages, ensure_ascii=False)
    assert PIN not in sent
    assert PIN_MASK in sent


async def test_only_switched_on_entries_pins_are_masked(
    make_agent: MakeAgent, demo_home_data: dict[str, Any], store: Store
) -> None:
    """The PIN of a switched-on entry is masked; that of a switched-off one is kept as said."""
    entries = [
        PolicyEntry(1, "entity", LOCK, ("unlock",), "pin", True, PIN_HASH),
        PolicyEntry(2, "domain", "lock", ("open",), "pin", False, hash_pin("0815")),
    ]
    door = door_with(
        make_agent, demo_home_data, confirmation=lambda: ConfirmationPolicy.of(entries)
    )
    said = [await door.say(text) for text in (PIN, "0815")]
    stored = [(await stored_turn(store, each.turn_id)).user_text for each in said]
    assert stored == [PIN_MASK, "0815"]


async def test_the_third_wrong_pin_locks_pin_confirmation(door: Door) -> None:
    """Three wrong PINs: the third reply says PIN confirmation is locked for 5 minutes."""
    await door.say("unlock the front door")
    replies = [(await door.say(wrong)).reply for wrong in ("1111", "2222", "3333")]
    assert replies == [WRONG, WRONG, LOCKED_OUT]


async def test_while_locked_out_the_right_pin_does_not_unlock(door: Door) -> None:
    """Locked out, the right PIN is refused with the lockout's reply; the door stays locked."""
    await door.say("unlock the front door")
    for wrong in ("1111", "2222", "3333"):
        await door.say(wrong)
    await door.say("unlock the front door")
    assert (await door.say(PIN)).reply == LOCKED_OUT
    assert door.state() == "locked"


async def test_the_lockout_ends_after_five_minutes(door: Door) -> None:
    """Five minutes after the third wrong PIN, the right PIN unlocks again."""
    await door.say("unlock the front door")
    replies = [(await door.say(wrong)).reply for wrong in ("1111", "2222", "3333")]
    assert replies[-1] == LOCKED_OUT
    door.clock.advance(5 * 60 + 1)
    await door.say("unlock the front door")
    assert (await door.say(PIN)).reply == "Done."
    assert door.state() == "unlocked"


async def test_the_lockout_follows_the_satellite_into_new_conversations(door: Door) -> None:
    """Wrong PINs counted by device: each in a conversation of its own, the third still locks."""
    replies = []
    for number, wrong in enumerate(("1111", "2222", "3333")):
        visit = f"visit-{number}"
        await door.say("unlock the front door", conversation_id=visit)
        replies.append((await door.say(wrong, conversation_id=visit)).reply)
        await door.say("no", conversation_id=visit)
    assert replies == [WRONG, WRONG, LOCKED_OUT]


async def test_another_satellite_is_not_locked_out(door: Door) -> None:
    """The hall satellite's lockout does not stop the garden satellite's right PIN."""
    await door.say("unlock the front door")
    replies = [(await door.say(wrong)).reply for wrong in ("1111", "2222", "3333")]
    assert replies[-1] == LOCKED_OUT
    await door.say("unlock the front door", device_id="satellite-garden")
    assert (await door.say(PIN, device_id="satellite-garden")).reply == "Done."


async def test_the_lockout_fires_an_event(door: Door) -> None:
    """``home_agent_confirmation_locked`` fires once, naming the device and when it ends."""
    await door.say("unlock the front door")
    for wrong in ("1111", "2222", "3333"):
        await door.say(wrong)
    await settled(door)
    locked = door.fired("home_agent_confirmation_locked")
    assert [(event["device_id"], event["reason"]) for event in locked] == [
        ("satellite-hall", "locked")
    ]
    assert locked[0]["locked_until"] == (door.clock.now + timedelta(minutes=5)).isoformat()


async def test_the_lockout_is_logged_without_the_pins(
    door: Door, caplog: pytest.LogCaptureFixture
) -> None:
    """A warning says PIN confirmation is locked; no PIN said is in the log."""
    caplog.set_level(logging.DEBUG)
    await door.say("unlock the front door")
    for wrong in ("1111", "2222", "3333"):
        await door.say(wrong)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("PIN confirmation locked" in message for message in warnings)
    assert not any(pin in caplog.text for pin in ("1111", "2222", "3333"))


async def test_the_lockout_is_said_in_the_persons_language(door: Door) -> None:
    """A German speaker hears the lockout in German."""
    await door.say("Schließe Front Door auf", language="de")
    replies = [(await door.say(wrong, language="de")).reply for wrong in ("1111", "2222", "3333")]
    assert (
        replies[-1] == "Zu viele falsche PINs. Die Bestätigung per PIN ist für 5 Minuten gesperrt."
    )


def test_every_language_says_how_long_the_lockout_lasts() -> None:
    """Each language's lockout message names the minutes."""
    assert all("{minutes}" in words.locked_out for words in TABLE.values())


def test_a_right_pin_clears_the_wrong_ones() -> None:
    """Two wrong PINs, a right one, then two more wrong: not locked out."""
    attempts, sources, now = PinAttempts(), ("device:hall",), ASKED
    attempts.wrong(sources, now)
    attempts.wrong(sources, now)
    attempts.right(sources)
    attempts.wrong(sources, now)
    assert attempts.wrong(sources, now) is None


def test_wrong_pins_older_than_five_minutes_do_not_count() -> None:
    """Wrong PINs six minutes apart never reach the limit."""
    attempts, sources = PinAttempts(), ("device:hall",)
    ends = [attempts.wrong(sources, ASKED.replace(minute=6 * n)) for n in range(4)]
    assert ends == [None, None, None, None]


def test_a_restored_question_waits_again() -> None:
    """A question put back after a wrong PIN is what its conversation waits for."""
    confirmations = PendingConfirmations()
    question = Pending("dialog", None, (UNLOCK,), ASKED)
    confirmations.restore(question)
    assert confirmations.waiting("dialog", None) is question


@pytest.mark.parametrize(
    ("said", "digits"),
    [("4711", "4711"), ("4 7 1 1.", "4711"), ("PIN 4711", "4711"), ("47-11-0815", "47110815")],
)
def test_pin_like_utterances_are_checked(said: str, digits: str) -> None:
    """Mostly digits, 3 to 12 of them: the utterance may be a PIN."""
    assert pin_like(said) == digits


@pytest.mark.parametrize("said", ["set the heating to 21", "12", "1234567890123", "yes"])
def test_other_utterances_are_not_checked(said: str) -> None:
    """Requests with numbers, too few or too many digits, and words are not hashed."""
    assert pin_like(said) is None


async def test_a_pin_is_hashed_off_the_event_loop() -> None:
    """While a PIN is checked, the event loop runs other work."""
    held = dataclasses.replace(UNLOCK, method="pin", pin_hash=PIN_HASH)
    pending = Pending("dialog", None, (held,), ASKED)
    check = asyncio.create_task(answer_of(pending, PIN, "en"))
    await asyncio.sleep(0)
    assert not check.done()
    assert await check == "confirmed"
