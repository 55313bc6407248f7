"""A turn's words enter the search index after its answer, and none is ever left out."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from sqlalchemy import text

from addon.store.database import Store
from addon.store.models import Conversation
from tests.ha.waiting import until
from tests.store.search import search_turn_ids
from tests.store.turns.build import as_a_kill_leaves_it, next_statement, turn

WAIT_S = 30.0


async def searchable(store: Store, words: str) -> list[int]:
    """The turns the search index finds for ``words``."""
    async with store.sessionmaker() as session:
        return await search_turn_ids(session, words, 10)


async def test_a_turn_enters_the_index_once_its_answer_is_out(store: Store) -> None:
    """Not in the transaction the answer waits for; by itself once no turn is being answered."""
    with store.writer.turn_in_progress():
        added = await store.writer.add(turn("c1", user_text="open the garage door"))
        assert await added.committed
        assert await searchable(store, "garage") == []
        indexing = next_statement(store, "INSERT INTO turns_fts")
    await asyncio.wait_for(indexing.wait(), WAIT_S)  # nobody flushing
    assert await searchable(store, "garage") == [added.turn_id]


async def test_a_flush_waits_for_the_index_even_while_a_turn_is_answered(store: Store) -> None:
    """A page that flushes before it searches finds the turn just answered."""
    with store.writer.turn_in_progress():
        added = await store.writer.add(turn("c1", user_text="open the garage door"))
        assert await added.committed
        assert await store.writer.flush()
        assert await searchable(store, "garage") == [added.turn_id]


async def test_a_turn_a_crash_left_out_of_the_index_is_indexed_at_start(tmp_path: Path) -> None:
    """A turn written but never indexed (the process died between) is found after a restart.

    Its journal entry met a held lock, so the writer's task wrote its rows while its answer
    waited, leaving the index for later.
    """
    path = tmp_path / "home_agent.db"
    store = await Store.open(path, busy_timeout_s=5.0)
    try:
        await until(lambda: store.writer.idle)
        with store.writer.turn_in_progress():
            blocker = sqlite3.connect(path, isolation_level=None)
            blocker.execute("BEGIN IMMEDIATE")
            added = await store.writer.add(turn("c1", user_text="open the garage door"))
            blocker.execute("ROLLBACK")
            blocker.close()
            assert await added.committed
            assert await searchable(store, "garage") == []
            reopened = await as_a_kill_leaves_it(store, tmp_path / "after-crash.db")
        try:
            assert await searchable(reopened, "garage") == [added.turn_id]
        finally:
            await reopened.close()
    finally:
        await store.close()


async def test_deleting_a_turn_the_index_never_held_leaves_the_index_sound(
    tmp_path: Path,
) -> None:
    """Retention may delete a turn before its indexing: the index is not told to forget it.

    A turn whose journal entry met a held lock is written by the writer's task while its answer
    waits, and indexed only later.
    """
    path = tmp_path / "home_agent.db"
    store = await Store.open(path, busy_timeout_s=5.0)
    try:
        await until(lambda: store.writer.idle)
        blocker = sqlite3.connect(path, isolation_level=None)
        with store.writer.turn_in_progress():
            blocker.execute("BEGIN IMMEDIATE")
            added = await store.writer.add(turn("c1", user_text="open the garage door"))
            blocker.execute("ROLLBACK")
            blocker.close()
            assert await added.committed
            async with store.sessionmaker.begin() as session:
                await session.delete(await session.get_one(Conversation, "c1"))
        assert await store.writer.flush()
        async with store.engine.begin() as connection:
            await connection.execute(
                text("INSERT INTO turns_fts(turns_fts, rank) VALUES ('integrity-check', 1)")
            )
        assert await searchable(store, "garage") == []
    finally:
        await store.close()
