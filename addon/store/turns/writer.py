"""The store's one writer: turns, later model calls and outcome checks, written in batches.

Turns finishing together queued for SQLite's single write lock, some giving up with "database is
locked". So the agent hands a finished turn to :class:`TurnWriter` (:meth:`TurnWriter.add`): the
turn gets its id now (:class:`~addon.store.turns.conversations.TurnIds`) and one task writes what
waits, in order, one transaction for all of it (group commit).

An answered turn is a stored turn: the agent answers only once its turn is in the file
(``AddedTurn.committed``): its journal entry, one row holding the whole turn
(:mod:`addon.store.turns.journal`), or, when that was not possible, its rows themselves. So a
crash (``kill -9``, an out-of-memory kill) loses no turn whose answer went out; the next start
writes the turns whose entries it finds. Whatever nobody waits for (the outcome checks'
verdicts and the model calls memory makes after a turn, handed over after the reply) is written
at a quiet moment: when no turn is in progress, or ``max_delay_s`` after the oldest waiting
item, or once ``max_batch`` items wait, and a crash loses what was still waiting of it.

The queue is bounded: once ``max_pending`` items wait, :meth:`TurnWriter.add` (and
:meth:`TurnWriter.room`) wait for room, so under overload the answers slow down and memory
stays bounded; nothing handed over is dropped for want of room.

Ids are reserved in the database beforehand (:mod:`addon.store.turns.ids`): the id the agent answers
with is the one the turn is stored under.

A write the database refuses (locked, full) is logged and retried with backoff, the turns
waiting for it keep waiting. An item that itself cannot be stored (a value JSON cannot hold) is
found by writing the batch one by one and dropped, so it cannot hold back the rest; whoever
waits for it is told (``committed`` is False). Any other failure is a fault nobody foresaw: the
task that writes stops, which :attr:`TurnWriter.failing` (and so the store's health) reports,
and it is started again after a growing pause, with everything it held put back first.

A turn handed over while that task is idle is journaled by the caller, lock permitting
(:meth:`BatchConnections.write_waiting`), and stays queued: the task writes its rows, and drops
its entry, with the next batch nobody waits for (at the latest once no turn is being answered),
and indexes its words in the same transaction. A turn written while someone waits for its
commit (the journal met a held lock) enters the search index after the answer: with the next
batch nobody waits for, or when no turn is being answered; at start, any turn a crash left
out. Whoever must read a just-finished turn calls :meth:`TurnWriter.flush` first (the web UI's
pages, history after a cache miss), which also waits for the search index.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable, Iterator
from pathlib import Path

from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncEngine

from addon.store.file import WalSync
from addon.store.models import Conversation
from addon.store.turns.batches import DATABASE_FAILURES, ITEM_FAILURES, BatchConnections
from addon.store.turns.conversations import LLMCallRecord, OutcomeUpdate, TurnIds, TurnRecord
from addon.store.turns.driver import DriverConnection
from addon.store.turns.ids import BLOCK
from addon.store.turns.journal import journaled, write_recovered
from addon.store.turns.turn_writes import INDEX_MISSING
from addon.store.turns.write_queue import (
    AddedTurn,
    Item,
    Sorted,
    WriteQueue,
    described,
    split,
)

_LOGGER = logging.getLogger(__name__)

MAX_DELAY_S = 1.0
MAX_BATCH = 500
# Room for every turn a busy home answers at once, many times over; a turn finding the queue full
# waits for room (the answers slow down) rather than anything being dropped.
MAX_PENDING = 1_000
RETRY_FIRST_S = 0.5
RETRY_MAX_S = 30.0
CLOSE_ATTEMPTS = 3


class TurnWriter:
    """Writes the agent's turns and verdicts in order, in batches, from one supervised task."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        max_delay_s: float = MAX_DELAY_S,
        max_batch: int = MAX_BATCH,
        max_pending: int = MAX_PENDING,
        id_block: int = BLOCK,
    ) -> None:
        self._engine = engine
        self._max_delay_s = max_delay_s
        self._max_batch = max_batch
        self._ids = TurnIds(block=id_block)
        self._known: set[str] = set()
        self._queue = WriteQueue(max_pending=max_pending)
        self._active = 0
        self._retry_s = 0.0
        self._last_error: str | None = None
        self._restart_s = 0.0
        self._stopped: str | None = None
        self._restarts = 0
        self._holding = False
        self._idle = False
        self._wake = asyncio.Event()
        self._urgent = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._batches: BatchConnections | None = None
        self._wal_sync: WalSync | None = None

    async def start(self) -> None:
        """Write what a crash left in the journal, reserve the first ids, then start writing.

        Batches are written through connections of the writer's own
        (:mod:`addon.store.turns.batches`), on the loop or in a thread of its own.
        """
        await self._recover()
        async with self._engine.begin() as connection:
            claims = await connection.run_sync(self._ids.reserve)
            self._known = set((await connection.scalars(select(Conversation.id))).all())
            # Turns a crash left out of the search index (committed, not yet indexed).
            await connection.exec_driver_sql(INDEX_MISSING)
            busy_timeout_ms = int(
                (await connection.execute(text("PRAGMA busy_timeout"))).scalar_one()
            )
        self._ids.settle(claims)
        database = Path(self._engine.url.database or "")
        self._batches = BatchConnections(database, busy_timeout_ms)
        self._wal_sync = WalSync(database)
        self._task = asyncio.create_task(self._supervise(), name="home-agent-store-writer")

    async def _recover(self) -> None:
        """Write the turns answered before a crash whose rows were not written (the journal).

        Each in a transaction of its own: one that cannot be stored is logged and its entry
        left, and does not keep the store from starting. A database that refuses the writes
        fails the start, as it would anyway.
        """
        async with self._engine.begin() as connection:
            turns = await connection.run_sync(journaled)
        written = []
        for numbered in turns:
            try:
                async with self._engine.begin() as connection:
                    await connection.run_sync(write_recovered, numbered)
            except ITEM_FAILURES:
                _LOGGER.exception(
                    "%s, answered before the last stop, cannot be stored; its journal entry "
                    "is left in turn_journal",
                    described(numbered),
                )
            else:
                written.append(str(numbered.turn_id))
        if written:
            _LOGGER.warning(
                "Wrote %d turns answered just before the last stop: %s",
                len(written),
                ", ".join(written),
            )

    @property
    def batch_connections(self) -> tuple[DriverConnection, DriverConnection]:
        """The connections batches are written through: on the loop, and in the writer's thread."""
        return self._started().connections

    def knows(self, conversation_id: str) -> bool:
        """Whether ``conversation_id`` has turns, stored or waiting (pruned ones may linger)."""
        return conversation_id in self._known

    def forget(self, conversation_ids: Iterable[str]) -> None:
        """Conversations retention deleted; any with turns still waiting stay known."""
        self._known.difference_update(
            conversation_id
            for conversation_id in conversation_ids
            if not self._queue.waiting_for(conversation_id)
        )

    def waiting_for(self, conversation_id: str) -> bool:
        """Whether turns of ``conversation_id`` wait to be written."""
        return self._queue.waiting_for(conversation_id)

    @property
    def pending(self) -> int:
        """How many items are not written yet (waiting, or in the batch being written)."""
        return self._queue.pending

    @property
    def holding(self) -> bool:
        """Whether the writer has looked at what waits and is letting it gather, writing nothing.

        True only while its task pauses for a quiet moment: "chose not to write yet".
        """
        return self._holding

    @property
    def idle(self) -> bool:
        """Whether the task waits for work: a turn handed over now is written by its caller."""
        return self._idle

    @property
    def failing(self) -> str | None:
        """Why writing fails, while items wait to be retried or the task to restart; else None."""
        if self._stopped is not None:
            return f"the writer stopped unexpectedly ({self._stopped}) and is being restarted"
        return self._last_error if self._queue.items else None

    @property
    def restarts(self) -> int:
        """How often the task that writes was restarted after an unexpected failure."""
        return self._restarts

    async def add(self, record: TurnRecord) -> AddedTurn:
        """Queue a finished turn once there is room; its id now, its commit to wait for.

        A turn waited for is written at once, with every other one waiting (group commit):
        the writer holds nothing back for a quiet moment while someone waits for a commit.
        """
        await self.room()
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        if self._queue.closing and self._task is None:
            # Stopped: nothing will write it; the turn is answered, and the log says so.
            future.set_result(False)
        else:
            self._queue.expect_commit(record, future)
        turn_id = self.submit(record)
        idle = self._idle and not (self._stopped or self._retry_s or self._queue.closing)
        if idle and not self._ids.wants_reservation():
            self._started().write_waiting(self._queue)
        if self._wal_sync is None:
            return AddedTurn(turn_id, future)
        # What the answer waits for: the commit, then the commit on the disk itself. Started at
        # once: a commit made just now is being synced while the caller finishes its turn.
        loop = asyncio.get_running_loop()
        return AddedTurn(turn_id, asyncio.Task(self._durable(future), loop=loop, eager_start=True))

    async def _durable(self, committed: asyncio.Future[bool]) -> bool:
        """``committed``, once the commit is synced to the disk (:mod:`addon.store.file.wal_sync`).

        A failed sync is logged there; the turn is committed all the same, and answered.
        """
        if not await committed or self._wal_sync is None:
            return await committed
        await self._wal_sync.synced()
        return True

    async def room(self) -> None:
        """Wait until fewer than ``max_pending`` items wait to be written (backpressure).

        A stop lets everyone through: what is handed over then is written by the stop, or
        reported unwritten (``AddedTurn.committed`` False).
        """
        await self._queue.room()

    @property
    def waiting_for_room(self) -> int:
        """How many callers wait for room in a full queue (the store is slower than the agent)."""
        return self._queue.waiting_for_room

    def submit(self, record: TurnRecord) -> int:
        """Queue a finished turn without waiting for room; returns the id it is stored under.

        For callers that bound what they hand over themselves (tests, benches); the agent
        uses :meth:`add`.
        """
        numbered = self._ids.number(record)
        self._known.add(record.conversation_id)
        self._enqueue(numbered)
        return numbered.turn_id

    def submit_outcome(self, update: OutcomeUpdate) -> None:
        """Queue an outcome check's verdict on a turn submitted before (after :meth:`room`)."""
        self._enqueue(update)

    async def add_later_call(self, turn_id: int, call: LLMCallRecord, *, purpose: str) -> int:
        """Queue a model call made for a turn after it ended, once there is room; its id now.

        Written like an outcome check: with the next batch, nobody waiting for its commit.
        """
        await self.room()
        later = self._ids.number_later(turn_id, call, purpose)
        self._enqueue(later)
        return later.call_id

    @contextlib.contextmanager
    def turn_in_progress(self) -> Iterator[None]:
        """Marks a turn being answered: writes nobody waits for wait for a moment when none is."""
        self._active += 1
        try:
            yield
        finally:
            self._active -= 1
            if self._active == 0 and (self._queue.items or self._unindexed):
                self._wake.set()

    async def flush(self) -> bool:
        """Wait until everything submitted so far is written; False if writing it failed.

        Whatever failed stays queued and is retried; the caller reads what is stored, and
        finds every turn written so far in the search index too.
        """
        while not self._queue.all_written or self._unindexed:
            if self._task is None or self._task.done():
                return False
            future = self._queue.flushed()
            self._wake.set()
            self._urgent.set()
            if not await future:
                return False
        return True

    @property
    def _unindexed(self) -> bool:
        """Whether turns written while their answer waited are not in the search index yet."""
        return self._batches is not None and bool(self._batches.unindexed)

    async def close(self) -> None:
        """Write everything still waiting (a few tries), then stop."""
        self._queue.closing = True
        for _ in range(CLOSE_ATTEMPTS):
            if await self.flush():
                break
        if self._queue.items:
            _LOGGER.error(
                "Stopping with %d turns and outcome checks that could not be written",
                len(self._queue.items),
            )
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self._queue.abandon_commits()
        self._queue.open_room()
        if not self._queue.items:
            await self._give_back_ids()
        if self._batches is not None:
            await self._batches.close()
            self._batches = None
        if self._wal_sync is not None:
            self._wal_sync.close()
            self._wal_sync = None

    async def _give_back_ids(self) -> None:
        """Return the ids reserved but not used, so the numbering goes on without a gap."""
        try:
            async with self._engine.begin() as connection:
                await connection.run_sync(self._ids.give_back)
        except DATABASE_FAILURES as err:
            _LOGGER.warning("Unused turn ids stay reserved (a gap in the numbering): %s", err)

    def _enqueue(self, item: Item) -> None:
        first = self._queue.append(item)
        # The first item starts the writer's clock; later ones matter once it may write.
        if (
            first
            or self._active == 0
            or self._queue.commits_awaited
            or len(self._queue.items) >= self._max_batch
        ):
            self._wake.set()

    def _hold_for(self) -> float:
        """How much longer to let items gather before writing; 0 to write now."""
        queue = self._queue
        if queue.closing or queue.awaited or self._active == 0:
            return 0.0
        if queue.oldest_at is None:
            return 0.0
        if len(queue.items) >= self._max_batch:
            return 0.0
        waited = asyncio.get_running_loop().time() - queue.oldest_at
        return max(0.0, self._max_delay_s - waited)

    async def _supervise(self) -> None:
        """Run the writing loop; after an unexpected failure, start it again after a pause.

        What the failed loop held is put back in front first, so nothing is lost; the pause
        doubles with each failure in a row (a flush or the stop cuts it short, as after a
        failed write) and the store's health names the failure until a write succeeds again.
        """
        while True:
            try:
                await self._run()
            except Exception as err:
                self._restart_s = min(RETRY_MAX_S, max(RETRY_FIRST_S, self._restart_s * 2))
                self._stopped = f"{type(err).__name__}: {err}"
                self._restarts += 1
                if self._queue.in_flight:
                    self._queue.put_back(self._queue.in_flight)
                _LOGGER.exception(
                    "The store's writer stopped unexpectedly with %d turns and outcome checks "
                    "waiting; restarting it in %.1f s",
                    len(self._queue.items),
                    self._restart_s,
                )
                self._queue.answer_waiters(ok=False)
                self._urgent.clear()
                await _pause(self._restart_s, self._urgent)
                self._wake.set()

    async def _run(self) -> None:
        while True:
            self._idle = True
            await self._wake.wait()
            self._idle = False
            self._wake.clear()
            if not self._queue.items:
                # Turns written while their answer waited go into the search index now, when no
                # turn is being answered (or someone waits for everything to be written).
                if self._unindexed and (self._active == 0 or self._queue.awaited):
                    await self._index()
                else:
                    self._queue.answer_waiters(ok=True)
                continue
            hold = self._hold_for()
            if hold > 0:
                self._holding = True
                try:
                    await _pause(hold, self._wake)
                finally:
                    self._holding = False
                self._wake.set()  # look again: quiet now, or time is up
                continue
            await self._write()
            if self._retry_s:
                # Back off after a failure, unless a flush or the stop needs the data now.
                self._urgent.clear()
                await _pause(self._retry_s, self._urgent)
                self._wake.set()

    async def _write(self) -> None:
        batch = self._queue.take()
        try:
            if self._ids.wants_reservation():
                await self._reserve_ids(batch)
            await self._write_batch(batch)
        except DATABASE_FAILURES as err:
            self._failed(batch, err)
            return
        except ITEM_FAILURES:
            # Something in the batch itself cannot be stored: find it, so it does not hold back
            # every turn after it.
            _LOGGER.exception(
                "Writing a batch of %d items failed; trying them one by one", len(batch)
            )
            if not await self._write_one_by_one(batch):
                return  # the database failed meanwhile; the rest waits
        else:
            self._queue.in_flight = []
            self._queue.count_written(batch)
        self._retry_s = 0.0
        self._last_error = None
        self._restart_s = 0.0
        self._stopped = None
        if self._queue.items:
            self._wake.set()

    async def _write_one_by_one(self, batch: list[Item]) -> bool:
        """Write each item alone, dropping those that cannot be stored; False if one must wait.

        A failure of the database itself (locked, full) puts the rest back to be retried.
        """
        for position, item in enumerate(batch):
            self._queue.in_flight = batch[position:]
            try:
                await self._write_batch([item])
            except DATABASE_FAILURES as err:
                self._failed(batch[position:], err)
                return False
            except ITEM_FAILURES:
                self._queue.settle_commit(item, ok=False)
                _LOGGER.exception("Dropped %s: it cannot be stored", described(item))
            self._queue.count_written([item])
        self._queue.in_flight = []
        return True

    def _failed(self, batch: list[Item], err: BaseException) -> None:
        """Put ``batch`` back in front of the queue, to be retried after a growing pause."""
        self._retry_s = min(RETRY_MAX_S, max(RETRY_FIRST_S, self._retry_s * 2))
        reason = getattr(err, "orig", None) or err
        self._last_error = str(reason)
        _LOGGER.error(
            "Writing %d turns and outcome checks failed (retrying in %.1f s): %s",
            len(batch),
            self._retry_s,
            reason,
        )
        self._queue.put_back(batch)
        self._queue.answer_waiters(ok=False)

    async def _write_batch(self, batch: list[Item]) -> None:
        """One transaction for the batch's turns and outcome checks, in order.

        The turns not yet in the search index enter it too, unless someone waits for a commit
        (then it waits for a batch nobody waits for, or the next quiet moment).
        """
        await self._started().write(split(batch), index=not self._queue.commits_awaited)

    async def _index(self) -> None:
        """Put the turns written while their answer waited in the search index.

        Then the flushes are answered; a failure tells them False and is tried again at the
        next wake.
        """
        try:
            await self._started().write(Sorted([], [], []))
        except DATABASE_FAILURES as err:
            self._failed([], err)
            return
        self._queue.answer_waiters(ok=True)

    def _started(self) -> BatchConnections:
        if self._batches is None:
            raise RuntimeError("the writer is not started")
        return self._batches

    async def _reserve_ids(self, batch: list[Item]) -> None:
        """Reserve the next block of ids, in a transaction of its own, before they run out.

        Ids given out beyond the reservation (see :mod:`addon.store.turns.ids`) are claimed here,
        before any turn holding one is written; those another writer took meanwhile are given
        again, the one case in which a turn is not stored under the id it was given.
        """
        async with self._engine.begin() as connection:
            claims = await connection.run_sync(self._ids.reserve)
        lost_turns, lost_calls = self._ids.settle(claims)
        if lost_turns or lost_calls:
            renumbered = self._queue.renumber(batch, self._ids, lost_turns, lost_calls)
            _LOGGER.error(
                "Turn ids given out beyond the reservation were taken by another writer before "
                "they could be claimed; %d turns are stored under new ids (%s)",
                len(renumbered),
                ", ".join(f"{old}→{new}" for old, new in renumbered.items()),
            )


async def _pause(seconds: float, event: asyncio.Event) -> None:
    """Sleep ``seconds``, or less if ``event`` is set meanwhile."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await event.wait()
