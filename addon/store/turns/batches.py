"""Where the store's writer writes its batches: connections of its own, on the loop or in a thread.

SQLAlchemy's asyncio layer sends every statement of a transaction (begin, each insert, commit)
to the driver's thread and back; for the writer's batches that cost about 1 ms of the event
loop's CPU per batch and, on a loaded two-core machine, a few ms of waking threads per hop. So
the writer (:mod:`addon.store.turns.writer`) has plain ``sqlite3`` connections of its own, through
synchronous engines with the store's pragmas and text cleaning: a small batch is written right
on the loop when the write lock is free at once (a busy timeout of 0: the loop never waits for
a lock), anything larger, or a batch meeting a held lock, in one call to a thread of its own,
where the store's busy timeout applies. Writing everything in the thread was measured first:
the GIL makes its CPU the loop's anyway, and a lone turn waited 2-4 ms longer for the two hops
(docs/DECISIONS.md).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TypeVar

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import OperationalError, StatementError
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import ConnectionPoolEntry

from addon.store.file import encoding, pragmas
from addon.store.turns.conversations import TurnIds
from addon.store.turns.ids import Claim
from addon.store.turns.prepared import Statements
from addon.store.turns.turn_writes import write_later_calls, write_outcomes, write_turns
from addon.store.turns.write_queue import Sorted, WriteQueue, split

# The database refused the write (locked, full, I/O): retried with backoff, nothing dropped.
DATABASE_FAILURES = (OperationalError, OSError)
# Something in an item cannot be stored (a value JSON cannot hold, a constraint): dropped alone.
ITEM_FAILURES = (StatementError, ValueError, TypeError, LookupError, AttributeError, RecursionError)
# A batch this small is written on the event loop when the write lock is free.
INLINE_MAX_ITEMS = 50
BUSY = ("SQLITE_BUSY", "SQLITE_LOCKED")

_T = TypeVar("_T")
_LOGGER = logging.getLogger(__name__)


class BatchConnections:
    """The writer's two connections and its thread; used by one task, one call at a time."""

    def __init__(self, engine: AsyncEngine, busy_timeout_ms: int) -> None:
        self._inline = _own_engine(engine, 0)
        self._threaded = _own_engine(engine, busy_timeout_ms)
        # Compiled once per engine (its dialect serialises JSON the store's way).
        self._statements = {own: Statements(own.dialect) for own in (self._inline, self._threaded)}
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="home-agent-writer")

    @property
    def engines(self) -> tuple[Engine, Engine]:
        """The engines batches are written through: on the loop, then in the thread."""
        return self._inline, self._threaded

    def write_inline(self, batch: Sorted) -> bool:
        """One transaction on the loop, now, if the batch is small and the lock free; else False.

        Never waits: a held write lock, or a larger batch, is left to :meth:`write`'s thread.
        """
        if len(batch) > INLINE_MAX_ITEMS:
            return False
        try:
            _write(self._inline, self._statements[self._inline], batch)
        except OperationalError as err:
            if not str(getattr(err.orig, "sqlite_errorname", "")).startswith(BUSY):
                raise
            return False
        return True

    def write_waiting(self, queue: WriteQueue) -> None:
        """Write all ``queue`` holds in the caller's task, now, or put it back for the writer.

        For a turn handed over while the writer's task is idle: the reply need not wait for that
        task to be scheduled. Anything in the way (a held lock, a value that cannot be stored,
        any failure) puts the batch back, and the task meets it as it meets any batch.
        """
        batch = queue.take()
        try:
            written = self.write_inline(split(batch))
        except Exception:  # a boundary: the writer's task writes it again and handles what fails
            _LOGGER.debug("Writing at once failed; the writer's task takes it", exc_info=True)
            written = False
        if written:
            queue.in_flight = []
            queue.count_written(batch)
        else:
            queue.put_back(batch)

    async def write(self, batch: Sorted) -> None:
        """One transaction for ``batch``: on the loop if it can, else in the thread."""
        if self.write_inline(batch):
            return
        threaded = self._threaded
        await self._in_thread(partial(_write, threaded, self._statements[threaded], batch))

    async def reserve(self, ids: TurnIds) -> tuple[Claim, Claim]:
        """Reserve more ids for ``ids``, in a transaction of its own, in the thread."""
        return await self._in_thread(partial(_reserve, self._threaded, ids))

    async def close(self) -> None:
        """Close both connections (never checkpointing) and stop the thread."""
        self._inline.dispose()
        await self._in_thread(self._threaded.dispose)
        self._thread.shutdown()

    async def _in_thread(self, function: Callable[[], _T]) -> _T:
        """Run ``function`` in the thread; a cancelled caller leaves it to finish there."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, function)


def _write(engine: Engine, statements: Statements, batch: Sorted) -> None:
    with engine.begin() as connection:
        write_turns(connection, batch.turns, statements)
        write_later_calls(connection, batch.later, statements)
        write_outcomes(connection, batch.updates)


def _reserve(engine: Engine, ids: TurnIds) -> tuple[Claim, Claim]:
    with engine.begin() as connection:
        return ids.reserve(connection)


def _own_engine(engine: AsyncEngine, busy_timeout_ms: int) -> Engine:
    """An engine of one connection on the store's file, with the store's pragmas.

    Its connection never checkpoints as it closes (the store folds the WAL in itself, and not
    while a backup copies the file); text is made storable as on the store's engine.
    """
    path = engine.url.database or ""
    own = create_engine(
        engine.url.set(drivername="sqlite+pysqlite"),
        connect_args={"timeout": busy_timeout_ms / 1000, "check_same_thread": False},
        json_serializer=encoding.dumps,
        pool_size=1,
        max_overflow=0,
    )
    encoding.install(own)

    def prepare(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
        pragmas.set_pragmas(dbapi_connection, path, busy_timeout_ms)
        # Python 3.12 and later (the add-on's image has 3.13); before, a close may checkpoint.
        no_checkpoint = getattr(sqlite3, "SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE", None)
        if no_checkpoint is not None and isinstance(dbapi_connection, sqlite3.Connection):
            dbapi_connection.setconfig(no_checkpoint, True)

    event.listen(own, "connect", prepare)
    return own
