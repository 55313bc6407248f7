"""The task that writes turns stops on a fault nobody foresaw: health says so, and it restarts."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import event

from addon.store.database import Store
from addon.store.models import Turn
from tests.store.turns import turn

WAIT_S = 30.0


class FaultyDriver(RuntimeError):
    """What the database layer raises here: neither a refused write nor a bad item."""


def fail_next_statement(store: Store) -> None:
    """Make the next statement the store's engine runs raise (SQLAlchemy's own event seam)."""

    def fail(*_args: Any) -> None:
        raise FaultyDriver("the driver broke")

    event.listen(store.engine.sync_engine, "before_cursor_execute", fail, once=True)


def next_commit(store: Store) -> asyncio.Event:
    """An event set when the store's engine next commits a transaction."""
    committed = asyncio.Event()
    event.listen(store.engine.sync_engine, "commit", lambda _connection: committed.set(), once=True)
    return committed


async def test_a_fault_stops_the_writer_which_health_reports_and_which_restarts(
    store: Store,
) -> None:
    """The failed batch is kept; health is degraded with the reason; the restart writes it."""
    fail_next_statement(store)
    turn_id = store.writer.submit(turn("c1"))
    assert not await store.writer.flush()
    health = await store.health()
    assert health.status == "degraded"
    assert "stopped unexpectedly (FaultyDriver: the driver broke)" in health.detail
    assert store.writer.pending == 1
    committed = next_commit(store)
    await asyncio.wait_for(committed.wait(), WAIT_S)  # the restart's write, nobody flushing
    assert await store.writer.flush()
    async with store.sessionmaker() as session:
        stored = await session.get(Turn, turn_id)
    assert stored is not None
    health = await store.health()
    assert health.status == "ok"
    assert "recovered from 1 unexpected failures" in health.detail


async def test_the_writer_keeps_writing_after_a_restart(store: Store) -> None:
    """Turns handed over after the restart are written as before."""
    fail_next_statement(store)
    store.writer.submit(turn("c1"))
    assert not await store.writer.flush()
    assert await store.writer.flush()
    later = store.writer.submit(turn("c1", user_text="later"))
    assert await store.writer.flush()
    async with store.sessionmaker() as session:
        assert await session.get(Turn, later) is not None
    assert store.writer.restarts == 1
