"""The agent's view of the store: turns handed over, recalled, and found by device."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from sqlalchemy import select

from addon.store.database import Store
from addon.store.models import Turn, TurnJournalEntry
from addon.store.turns import ConversationRecords, OutcomeUpdate
from tests.ha.waiting import until
from tests.store.data import NOW
from tests.store.turns.build import turn


async def test_history_includes_a_turn_still_waiting_to_be_written(store: Store) -> None:
    """A turn handed over during an answer is in the history read back at once."""
    records = ConversationRecords(store)
    with records.answering():
        store.writer.submit(turn("c1", user_text="first"))
        assert store.writer.pending == 1
        history = await records.history("c1", max_turns=5)
    assert history == [[{"role": "user", "content": "first"}]]


async def test_a_conversation_is_known_once_a_turn_of_it_is_added(store: Store) -> None:
    """An id nobody has used is unknown; after one turn of it, known."""
    records = ConversationRecords(store)
    assert not records.known("c1")
    await records.add_turn(turn("c1"))
    assert records.known("c1")


async def test_settle_stores_every_turn_and_verdict_handed_over(store: Store) -> None:
    """After settling, the turn and its outcome verdict are in the database."""
    records = ConversationRecords(store)
    turn_id = (await records.add_turn(turn("c1"))).turn_id
    await records.add_outcome(OutcomeUpdate(turn_id, "confirmed", {"checked": 1}, flagged=False))
    assert await records.settle()
    async with store.sessionmaker() as session:
        stored = await session.scalar(select(Turn).where(Turn.id == turn_id))
    assert stored is not None
    assert stored.outcome == "confirmed"


async def test_an_added_turn_is_durable_when_its_future_says_so(store: Store) -> None:
    """Once ``committed`` is True the turn is in the file, in its rows once the answer is out.

    The answer waits for its journal entry (``store/turns/journal.py``); the rows follow when no
    turn is being answered, with no flush asked for.
    """
    records = ConversationRecords(store)
    with records.answering():
        added = await records.add_turn(turn("c1"))
        assert await added.committed
        async with store.sessionmaker() as session:
            entry = await session.get(TurnJournalEntry, added.turn_id)
        assert entry is not None
    await until(lambda: store.writer.pending == 0)
    async with store.sessionmaker() as session:
        stored = await session.scalar(select(Turn.id).where(Turn.id == added.turn_id))
        assert await session.get(TurnJournalEntry, added.turn_id) is None
    assert stored == added.turn_id


async def test_recent_conversation_is_the_devices_latest(store: Store) -> None:
    """A device's most recent conversation since the cutoff is found; another device has none."""
    records = ConversationRecords(store)
    await records.add_turn(replace(turn("older"), device_id="kitchen", created_at=NOW))
    await records.add_turn(
        replace(turn("newer"), device_id="kitchen", created_at=NOW + timedelta(minutes=1))
    )
    assert await records.settle()
    since = NOW - timedelta(hours=1)
    found = await records.recent_conversation(device_id="kitchen", satellite_id=None, since=since)
    assert found == "newer"
    assert (
        await records.recent_conversation(device_id="hall", satellite_id=None, since=since) is None
    )
