"""The store's writer: turns get their ids at once and reach the file in order, in batches."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import select

from addon.store.database import Store
from addon.store.models import Conversation, LLMCall, ToolCall, Turn, TurnJournalEntry
from addon.store.turns import OutcomeUpdate, TurnWriter, sent_requests
from tests.ha.waiting import until
from tests.store.turns.build import model_call, record, tool_call, turn


async def all_written(writer: TurnWriter, within_s: float = 5.0) -> bool:
    """Whether everything submitted is written within ``within_s`` (a loaded machine is slow)."""
    for _ in range(int(within_s / 0.01)):
        if writer.pending == 0:
            return True
        await asyncio.sleep(0.01)
    return writer.pending == 0


async def turns_of(store: Store, conversation_id: str) -> list[Turn]:
    async with store.sessionmaker() as session:
        rows = await session.scalars(
            select(Turn).where(Turn.conversation_id == conversation_id).order_by(Turn.seq)
        )
        return list(rows)


async def test_a_submitted_turn_has_its_id_at_once_and_is_stored_after_a_flush(
    store: Store,
) -> None:
    """The id comes back before the row exists; flush writes it with its calls."""
    turn_id = store.writer.submit(turn())
    with store.writer.turn_in_progress():
        assert await turns_of(store, "c1") == []
    assert await store.writer.flush()
    [stored] = await turns_of(store, "c1")
    assert stored.id == turn_id
    async with store.sessionmaker() as session:
        calls = list(await session.scalars(select(LLMCall).where(LLMCall.turn_id == turn_id)))
        tools = list(await session.scalars(select(ToolCall).where(ToolCall.turn_id == turn_id)))
    assert [call.seq for call in calls] == [1, 2]
    assert [tool.llm_call_id for tool in tools] == [calls[0].id]


async def test_ids_continue_above_what_the_file_holds(store: Store) -> None:
    """A writer started on a file with turns gives out the next ids, not used ones."""
    [existing] = await record(store, turn("old"))
    writer = TurnWriter(store.engine)
    await writer.start()
    try:
        assert writer.submit(turn("new")) == existing + 1
        assert writer.knows("old")
        assert writer.knows("new")
        assert not writer.knows("other")
    finally:
        await writer.close()
    assert [t.id for t in await turns_of(store, "new")] == [existing + 1]


async def test_turns_of_one_conversation_in_one_batch_are_numbered_in_order(
    store: Store,
) -> None:
    """Several turns of a conversation in a batch, and a later batch, count on from each other."""
    await record(store, turn("c1", user_text="first"))
    with store.writer.turn_in_progress():
        for text in ("second", "third"):
            store.writer.submit(turn("c1", user_text=text))
        store.writer.submit(turn("c2", user_text="elsewhere"))
    await store.writer.flush()
    store.writer.submit(turn("c1", user_text="fourth"))
    await store.writer.flush()
    stored = await turns_of(store, "c1")
    assert [(t.seq, t.user_text) for t in stored] == [
        (1, "first"),
        (2, "second"),
        (3, "third"),
        (4, "fourth"),
    ]
    async with store.sessionmaker() as session:
        conversation = await session.get(Conversation, "c1")
    assert conversation is not None
    assert conversation.turn_count == 4


async def test_writes_wait_for_a_quiet_moment(store: Store) -> None:
    """While a turn is being answered nothing is written; when none is, the batch goes."""
    writer = TurnWriter(store.engine, max_delay_s=3600.0)
    await writer.start()
    try:
        with writer.turn_in_progress():
            writer.submit(turn("c1"))
            writer.submit(turn("c2"))
            await until(lambda: writer.holding)  # it looked, and chose to wait
            assert writer.pending == 2
        assert await all_written(writer)
    finally:
        await writer.close()
    assert len(await turns_of(store, "c1")) == len(await turns_of(store, "c2")) == 1


async def test_a_busy_agent_still_writes_within_the_delay(tmp_path: Path) -> None:
    """Turns in progress without pause do not hold a finished one back for longer than that."""
    store = await Store.open(tmp_path / "home_agent.db")
    writer = TurnWriter(store.engine, max_delay_s=0.1)
    await writer.start()
    try:
        with writer.turn_in_progress():
            writer.submit(turn("c1"))
            assert await all_written(writer)
        assert len(await turns_of(store, "c1")) == 1
    finally:
        await writer.close()
        await store.close()


async def test_an_outcome_flag_counts_once_on_the_conversation(store: Store) -> None:
    """A verdict updates its turn; flagging the same turn twice counts one flag."""
    turn_id = store.writer.submit(turn("c1"))
    for _ in range(2):
        store.writer.submit_outcome(
            OutcomeUpdate(turn_id, "mismatch", {"reason": "nothing changed"}, True)
        )
    await store.writer.flush()
    async with store.sessionmaker() as session:
        stored = await session.get(Turn, turn_id)
        conversation = await session.get(Conversation, "c1")
    assert stored is not None
    assert stored.outcome == "mismatch"
    assert stored.flagged
    assert stored.outcome_detail == {"reason": "nothing changed"}
    assert conversation is not None
    assert conversation.flagged_count == 1


async def test_a_locked_database_loses_nothing(tmp_path: Path) -> None:
    """A write that fails (another process holds the lock) is retried; every turn arrives."""
    path = tmp_path / "home_agent.db"
    store = await Store.open(path, busy_timeout_s=0.05)
    try:
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        first = store.writer.submit(turn("c1"))
        assert not await store.writer.flush()
        health = await store.health()
        assert health.status == "degraded"
        assert "fails and is retried (1 waiting)" in health.detail
        second = store.writer.submit(turn("c1", user_text="again"))
        blocker.execute("ROLLBACK")
        blocker.close()
        assert await store.writer.flush()
        assert [t.id for t in await turns_of(store, "c1")] == [first, second]
        assert (await store.health()).status == "ok"
    finally:
        await store.close()


async def test_closing_writes_what_waits(tmp_path: Path) -> None:
    """A stop in the middle of a busy moment still stores every turn handed over."""
    path = tmp_path / "home_agent.db"
    store = await Store.open(path)
    with store.writer.turn_in_progress():
        store.writer.submit(turn("c1"))
        await store.close()
    reopened = await Store.open(path)
    try:
        assert len(await turns_of(reopened, "c1")) == 1
    finally:
        await reopened.close()


async def test_a_turn_that_cannot_be_stored_does_not_hold_back_the_others(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """A value JSON cannot hold (a set in a tool's result) drops that turn, not the batch."""
    unstorable = tool_call(0)
    unstorable.result = {"ids": {"light.lamp"}}
    with store.writer.turn_in_progress():
        kept = store.writer.submit(turn("c1", user_text="before"))
        store.writer.submit(turn("c1", user_text="broken", tool_calls=[unstorable]))
        after = store.writer.submit(turn("c2", user_text="after"))
    with caplog.at_level(logging.ERROR, logger="addon.store.turns.writer"):
        assert await store.writer.flush()
    stored = {t.id for t in await turns_of(store, "c1")} | {
        t.id for t in await turns_of(store, "c2")
    }
    assert stored == {kept, after}
    assert "cannot be stored" in caplog.text
    assert (await store.health()).status == "ok"


async def test_an_added_turn_is_written_at_once_while_others_are_in_progress(
    store: Store,
) -> None:
    """A turn whose commit is awaited does not wait for a quiet moment or the delay."""
    writer = TurnWriter(store.engine, max_delay_s=3600.0)
    await writer.start()
    try:
        with writer.turn_in_progress():
            added = await writer.add(turn("c1"))
            assert await added.committed
            assert [t.id for t in await turns_of(store, "c1")] == [added.turn_id]
    finally:
        await writer.close()


async def test_a_full_queue_makes_new_turns_wait_and_drops_nothing(tmp_path: Path) -> None:
    """With the database locked and the queue full, a new turn waits for room, then is stored."""
    path = tmp_path / "home_agent.db"
    store = await Store.open(path, busy_timeout_s=0.05)
    writer = TurnWriter(store.engine, max_pending=2)
    await writer.start()
    blocker = sqlite3.connect(path, isolation_level=None)
    try:
        blocker.execute("BEGIN IMMEDIATE")
        first = await writer.add(turn("c1", user_text="one"))
        second = await writer.add(turn("c1", user_text="two"))
        third = asyncio.create_task(writer.add(turn("c1", user_text="three")))
        await until(lambda: writer.waiting_for_room == 1)
        assert writer.pending == 2
        assert not first.committed.done()
        blocker.execute("ROLLBACK")
        added = await third
        assert await first.committed
        assert await second.committed
        assert await added.committed
        stored = [t.id for t in await turns_of(store, "c1")]
        assert stored == [first.turn_id, second.turn_id, added.turn_id]
    finally:
        blocker.close()
        await writer.close()
        await store.close()


async def test_a_turn_that_cannot_be_stored_is_reported_to_whoever_waits(store: Store) -> None:
    """``committed`` is False for a turn the database refuses, True for the one beside it."""
    unstorable = tool_call(0)
    unstorable.result = {"ids": {"light.lamp"}}
    with store.writer.turn_in_progress():
        broken = await store.writer.add(turn("c1", tool_calls=[unstorable]))
        kept = await store.writer.add(turn("c2"))
    assert await broken.committed is False
    assert await kept.committed is True


async def test_a_stop_lets_a_turn_waiting_for_room_through_and_says_it_is_not_stored(
    tmp_path: Path,
) -> None:
    """With the database locked at a stop, waiting turns are released, told they are not stored."""
    path = tmp_path / "home_agent.db"
    store = await Store.open(path, busy_timeout_s=0.05)
    writer = TurnWriter(store.engine, max_pending=1)
    await writer.start()
    blocker = sqlite3.connect(path, isolation_level=None)
    try:
        blocker.execute("BEGIN IMMEDIATE")
        first = await writer.add(turn("c1"))
        waiting = asyncio.create_task(writer.add(turn("c1", user_text="again")))
        await until(lambda: writer.waiting_for_room == 1)
        await writer.close()
        second = await waiting
        assert await first.committed is False
        assert await second.committed is False
    finally:
        blocker.close()
        await store.close()


async def test_a_turn_added_while_the_writer_is_idle_is_durable_before_add_returns(
    store: Store,
) -> None:
    """With the writer's task idle and the lock free, the caller's task journals the turn.

    Its entry is committed once ``add`` returns (then synced to the disk in the writer's sync
    thread, tests/store/file/test_wal_sync.py); the task writes its rows right after.
    """
    await until(lambda: store.writer.idle)
    with store.writer.turn_in_progress():  # the rows wait for the answer to be out
        added = await store.writer.add(turn("c1"))
        assert store.writer.pending == 1
        async with store.sessionmaker() as session:
            journaled = await session.scalar(select(TurnJournalEntry.turn_id))
        assert journaled == added.turn_id
        assert await added.committed is True
        assert await turns_of(store, "c1") == []
    await until(lambda: store.writer.pending == 0)
    assert [t.id for t in await turns_of(store, "c1")] == [added.turn_id]


async def test_a_turn_added_while_another_holds_the_lock_is_written_by_the_task(
    tmp_path: Path,
) -> None:
    """A held write lock leaves the turn to the writer's task; it commits once the lock is free."""
    path = tmp_path / "home_agent.db"
    store = await Store.open(path, busy_timeout_s=5.0)
    try:
        await until(lambda: store.writer.idle)
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        added = await store.writer.add(turn("c1"))
        assert not added.committed.done()
        blocker.execute("ROLLBACK")
        blocker.close()
        assert await added.committed is True
        assert [t.id for t in await turns_of(store, "c1")] == [added.turn_id]
    finally:
        await store.close()


async def test_a_later_call_is_written_after_its_turns_calls(store: Store) -> None:
    """Memory's call after a turn gets its id at once and is numbered after the turn's calls.

    Two for one turn in one batch follow each other; each stores its purpose and its system
    prompt as a payload, as the turn's own calls do.
    """
    with store.writer.turn_in_progress():
        turn_id = store.writer.submit(turn())
        extra = model_call([{"role": "system", "content": "Find memories."}], [])
        first = await store.writer.add_later_call(turn_id, extra, purpose="memory")
        second = await store.writer.add_later_call(turn_id, extra, purpose="memory")
    assert await store.writer.flush()
    async with store.sessionmaker() as session:
        calls = list(
            await session.scalars(
                select(LLMCall).where(LLMCall.turn_id == turn_id).order_by(LLMCall.seq)
            )
        )
        sent = await sent_requests(session, calls)
    assert [(call.seq, call.purpose) for call in calls] == [
        (1, None),
        (2, None),
        (3, "memory"),
        (4, "memory"),
    ]
    assert [call.id for call in calls[2:]] == [first, second]
    assert sent[first].messages == [{"role": "system", "content": "Find memories."}]


async def test_a_later_call_that_cannot_be_stored_is_dropped_alone(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """A call naming a turn that is not there (pruned meanwhile) is dropped; the rest is stored."""
    with store.writer.turn_in_progress():
        await store.writer.add_later_call(10_000, model_call([], []), purpose="memory")
        kept = store.writer.submit(turn())
    with caplog.at_level(logging.ERROR, logger="addon.store.turns.writer"):
        assert await store.writer.flush()
    assert [t.id for t in await turns_of(store, "c1")] == [kept]
    assert "the memory model call of turn 10000" in caplog.text
