"""The task that writes turns stops on a fault nobody foresaw: health says so, and it restarts."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from typing import Any, cast

from aiohttp.test_utils import TestClient

from addon import keys
from addon.store.database import Store
from addon.store.models import Turn
from tests.store.turns.build import next_statement, turn

WAIT_S = 30.0


class FaultyDriver(RuntimeError):
    """What the database layer raises here: neither a refused write nor a bad item."""


class BreakingDriver:
    """The writer's ``sqlite3`` connection, breaking once at the next conversations insert."""

    def __init__(self, connection: sqlite3.Connection, fired: threading.Event) -> None:
        self._connection = connection
        self._fired = fired

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        """Raise once for the first statement of a batch; run every other as the driver does."""
        if sql.startswith("INSERT INTO conversations") and not self._fired.is_set():
            self._fired.set()
            raise FaultyDriver("the driver broke")
        return self._connection.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)


def fail_next_write(store: Store) -> None:
    """Make the writer's next batch raise at its first statement, on the loop or in its thread."""
    fired = threading.Event()
    for connection in store.writer.batch_connections:
        connection.dbapi = cast(sqlite3.Connection, BreakingDriver(connection.dbapi, fired))


async def test_a_fault_stops_the_writer_which_health_reports_and_which_restarts(
    store: Store,
) -> None:
    """The failed batch is kept; health is degraded with the reason; the restart writes it."""
    fail_next_write(store)
    turn_id = store.writer.submit(turn("c1"))
    assert not await store.writer.flush()
    health = await store.health()
    assert health.status == "degraded"
    assert "stopped unexpectedly (FaultyDriver: the driver broke)" in health.detail
    assert store.writer.pending == 1
    inserting = next_statement(store, "INSERT INTO turns")
    await asyncio.wait_for(inserting.wait(), WAIT_S)  # the restart's write, nobody flushing
    assert await store.writer.flush()
    async with store.sessionmaker() as session:
        stored = await session.get(Turn, turn_id)
    assert stored is not None
    health = await store.health()
    assert health.status == "ok"
    assert "recovered from 1 unexpected failures" in health.detail


async def test_the_writer_keeps_writing_after_a_restart(store: Store) -> None:
    """Turns handed over after the restart are written as before."""
    fail_next_write(store)
    store.writer.submit(turn("c1"))
    assert not await store.writer.flush()
    assert await store.writer.flush()
    later = store.writer.submit(turn("c1", user_text="later"))
    assert await store.writer.flush()
    async with store.sessionmaker() as session:
        assert await session.get(Turn, later) is not None
    assert store.writer.restarts == 1


async def test_health_shows_the_stopped_writer(app_client: TestClient[Any, Any]) -> None:
    """/health reports the store degraded with the reason, and stays up for the watchdog."""
    store = app_client.app[keys.STORE]
    fail_next_write(store)
    store.writer.submit(turn("c1"))
    assert not await store.writer.flush()
    response = await app_client.get("/health")
    assert response.status == 200
    component = (await response.json())["components"]["store"]
    assert component["status"] == "degraded"
    assert "FaultyDriver: the driver broke" in component["detail"]
