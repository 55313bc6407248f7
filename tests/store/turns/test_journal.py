"""An answered turn is one journal row until its own rows are written, and a crash loses none."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from sqlalchemy import func, select

from addon.store.database import Store
from addon.store.models import Conversation, LLMCall, ToolCall, Turn, TurnJournalEntry
from addon.store.turns import sent_requests
from tests.ha.waiting import until
from tests.store.turns.build import PROMPT, as_a_kill_leaves_it, tools, turn


async def journal(store: Store) -> list[int]:
    """The turn ids the journal holds."""
    async with store.sessionmaker() as session:
        return list(await session.scalars(select(TurnJournalEntry.turn_id)))


async def stored_turn(store: Store, turn_id: int) -> Turn | None:
    async with store.sessionmaker() as session:
        return await session.get(Turn, turn_id)


async def test_an_answer_waits_for_its_journal_entry_and_the_rows_follow_it(store: Store) -> None:
    """While the turn is answered only its entry is in the file; then its rows, and no entry."""
    with store.writer.turn_in_progress():
        added = await store.writer.add(turn("c1"))
        assert await added.committed
        assert await journal(store) == [added.turn_id]
        assert await stored_turn(store, added.turn_id) is None
    await until(lambda: store.writer.pending == 0)
    assert await journal(store) == []
    stored = await stored_turn(store, added.turn_id)
    assert stored is not None
    assert stored.user_text == "turn on the lamp"


async def test_a_crash_before_the_rows_are_written_loses_nothing(
    store: Store, tmp_path: Path
) -> None:
    """A start after the crash writes the turn exactly as it was handed over.

    The file is copied while the answer is out and the rows are not written: what a kill at
    that moment leaves on the disk.
    """
    with store.writer.turn_in_progress():
        added = await store.writer.add(turn("c1", user_text="open the garage door"))
        assert await added.committed
        reopened = await as_a_kill_leaves_it(store, tmp_path / "after-crash.db")
    try:
        assert await journal(reopened) == []
        async with reopened.sessionmaker() as session:
            stored = await session.get_one(Turn, added.turn_id)
            calls = list(
                await session.scalars(
                    select(LLMCall).where(LLMCall.turn_id == added.turn_id).order_by(LLMCall.seq)
                )
            )
            requests = await sent_requests(session, calls)
            tool_calls = await session.scalar(
                select(func.count()).select_from(ToolCall).where(ToolCall.turn_id == added.turn_id)
            )
            conversation = await session.get_one(Conversation, "c1")
        assert stored.user_text == "open the garage door"
        assert stored.seq == 1
        assert conversation.turn_count == 1
        assert [call.id for call in calls] == sorted(call.id for call in calls)
        assert len(calls) == 2
        for call in calls:
            assert requests[call.id].messages[0] == {"role": "system", "content": PROMPT}
            assert requests[call.id].tools == tools()
        assert tool_calls == 1
        # The next turn is numbered after it, in its conversation and by id.
        later = await reopened.writer.add(turn("c1", user_text="and close it"))
        assert await later.committed
        assert later.turn_id > added.turn_id
        assert await reopened.writer.flush()
        async with reopened.sessionmaker() as session:
            assert (await session.get_one(Turn, later.turn_id)).seq == 2
    finally:
        await reopened.close()


async def test_an_entry_this_version_cannot_read_is_left_and_the_store_starts(
    store: Store, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Never dropped: logged at the start, left in the file for a version that reads it."""
    path = store.path
    async with store.sessionmaker.begin() as session:
        session.add(TurnJournalEntry(turn_id=41, body='{"format": 99}'))
    await store.close()
    caplog.set_level(logging.ERROR, logger="addon.store.turns.journal")
    reopened = await Store.open(path)
    try:
        assert "journal entry of turn 41 cannot be read" in caplog.text
        assert await journal(reopened) == [41]
        assert (await reopened.health()).status == "ok"
        added = await reopened.writer.add(turn("c1"))
        assert await added.committed
    finally:
        await reopened.close()
