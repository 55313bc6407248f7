"""Where the store's writer writes its batches: connections of its own, on the loop or in a thread.

SQLAlchemy's asyncio layer sends every statement of a transaction (begin, each insert, commit)
to the driver's thread and back; for the writer's batches that cost about 1 ms of the event
loop's CPU per batch and, on a loaded two-core machine, a few ms of waking threads per hop. So
the writer (:mod:`addon.store.turns.writer`) has two ``sqlite3`` connections of its own
(:mod:`addon.store.turns.driver`, with the store's pragmas and text cleaning): a small batch is
written right on the loop when the write lock is free at once (a busy timeout of 0: the loop
never waits for a lock), anything larger, or a batch meeting a held lock, in one call to a
thread of its own, where the store's busy timeout applies. Writing everything in the thread was
measured first: the GIL makes its CPU the loop's anyway, and a lone turn waited 2-4 ms longer
for the two hops (docs/DECISIONS.md).

An answer waits for its turn's journal entry (:mod:`addon.store.turns.journal`), written here on
the loop; the turn's rows follow in a batch nobody waits for, which drops the entry. A turn's
words enter the search index (FTS5's ``turns_fts``) in a later transaction than the one its
answer waits for, about 0.13 ms sooner answers: with the next batch nobody waits for, or at
the writer's next quiet moment (:mod:`addon.store.turns.writer`); the turns written meanwhile
are :attr:`BatchConnections.unindexed`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import TypeVar

from sqlalchemy.exc import OperationalError, StatementError

from addon.store.turns.conversations import NumberedTurn
from addon.store.turns.driver import DriverConnection
from addon.store.turns.journal import delete_entries, write_journal
from addon.store.turns.prepared import Statements
from addon.store.turns.turn_writes import (
    write_later_calls,
    write_outcomes,
    write_search_index,
    write_turns,
)
from addon.store.turns.write_queue import Sorted, WriteQueue

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

    def __init__(self, path: Path, busy_timeout_ms: int) -> None:
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="home-agent-writer")
        self._inline = DriverConnection(path, 0)
        try:
            self._threaded = DriverConnection(path, busy_timeout_ms)
        except BaseException:
            self._inline.close()
            raise
        # Compiled once (the two connections' dialects are alike); used by one call at a time.
        self._statements = Statements(self._inline.dialect)
        self.unindexed: list[int] = []
        """Turns written while someone waited for their answer, not yet in the search index."""
        self.journaled: set[int] = set()
        """Turns whose journal entry is committed and whose own rows are not written yet."""

    @property
    def connections(self) -> tuple[DriverConnection, DriverConnection]:
        """The connections batches are written through: on the loop, then in the thread."""
        return self._inline, self._threaded

    def write_inline(self, batch: Sorted, *, index: bool) -> bool:
        """One transaction on the loop, now, if the batch is small and the lock free; else False.

        Never waits: a held write lock, or a larger batch, is left to :meth:`write`'s thread.
        ``index``: the batch's turns, and those written before without, enter the search index
        in the same transaction; else they wait for a later one (:attr:`unindexed`).
        """
        if len(batch) > INLINE_MAX_ITEMS:
            return False
        indexing = self._indexing(batch, index=index)
        entries = self._entries(batch)
        try:
            _write(self._inline, self._statements, batch, indexing, entries)
        except OperationalError as err:
            if not _busy(err):
                raise
            return False
        self._written(batch, indexing, entries, index=index)
        return True

    def write_waiting(self, queue: WriteQueue) -> None:
        """Put the turns whose answers wait in the journal, in the caller's task, now.

        For turns handed over while the writer's task is idle: an answer waits for its turn's
        journal entry (:mod:`addon.store.turns.journal`), one small row, not for the writer's task
        to be scheduled nor for the turn's own rows, which the task writes once no turn is being
        answered. The turns stay queued for it. Anything in the way (a held lock, a value that
        cannot be stored, any failure) leaves them to the task, whose commit the answers then
        wait for, and which meets what fails as it meets any batch.
        """
        # A turn journaled before is no longer awaited: its commit was settled then.
        turns = [
            item
            for item in queue.items
            if isinstance(item, NumberedTurn) and queue.awaits_commit(item)
        ]
        if not turns or len(turns) > INLINE_MAX_ITEMS:
            return
        try:
            with self._inline.transaction():
                write_journal(self._inline, turns, self._statements)
        except Exception:  # a boundary: the writer's task writes them and handles what fails
            _LOGGER.debug("Journaling failed; the writer's task takes the turns", exc_info=True)
            return
        self.journaled.update(turn.turn_id for turn in turns)
        for turn in turns:
            queue.settle_commit(turn, ok=True)

    async def write(self, batch: Sorted, *, index: bool = True) -> None:
        """One transaction for ``batch``: on the loop if it can, else in the thread.

        With ``index``, every turn not yet in the search index enters it in the same
        transaction (a batch with nothing else in it just does that).
        """
        if not len(batch) and not (index and self.unindexed):
            return  # nothing to write
        if self.write_inline(batch, index=index):
            return
        indexing = self._indexing(batch, index=index)
        entries = self._entries(batch)
        await self._in_thread(
            partial(_write, self._threaded, self._statements, batch, indexing, entries)
        )
        self._written(batch, indexing, entries, index=index)

    def _indexing(self, batch: Sorted, *, index: bool) -> list[int]:
        """The turns to put in the search index with ``batch``: none, or every one not in it."""
        if not index:
            return []
        return [*self.unindexed, *(numbered.turn_id for numbered in batch.turns)]

    def _entries(self, batch: Sorted) -> list[int]:
        """The batch's turns that have a journal entry, dropped as their rows are written."""
        if not self.journaled:
            return []
        return [numbered.turn_id for numbered in batch.turns if numbered.turn_id in self.journaled]

    def _written(
        self, batch: Sorted, indexing: list[int], entries: list[int], *, index: bool
    ) -> None:
        """After ``batch`` committed: its journal entries are gone, its turns indexed or waiting."""
        self.journaled.difference_update(entries)
        if index:
            done = set(indexing)
            self.unindexed = [turn_id for turn_id in self.unindexed if turn_id not in done]
        else:
            self.unindexed.extend(numbered.turn_id for numbered in batch.turns)

    async def close(self) -> None:
        """Close both connections (never checkpointing) and stop the thread."""
        self._inline.close()
        await self._in_thread(self._threaded.close)
        self._thread.shutdown()

    async def _in_thread(self, function: Callable[[], _T]) -> _T:
        """Run ``function`` in the thread; a cancelled caller leaves it to finish there."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, function)


def _write(
    connection: DriverConnection,
    statements: Statements,
    batch: Sorted,
    indexing: list[int],
    entries: list[int],
) -> None:
    with connection.transaction():
        write_turns(connection, batch.turns, statements)
        write_later_calls(connection, batch.later, statements)
        write_outcomes(connection, batch.updates, statements)
        write_search_index(connection, indexing)
        delete_entries(connection, entries)


def _busy(err: OperationalError) -> bool:
    """Whether the database refused for a lock another connection holds."""
    return str(getattr(err.orig, "sqlite_errorname", "")).startswith(BUSY)
