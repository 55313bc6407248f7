"""The store's one writer: turns and outcome checks the agent hands over, written in batches.

Writing a turn costs a few milliseconds of CPU (serialising its messages and traces, the
statements, the commit), and on the reply's path that was most of the agent's own time per
turn; turns finishing together also queued for SQLite's single write lock, and under load some
gave up with "database is locked". So the agent hands a finished turn to :class:`TurnWriter`
and answers at once: the turn gets its id now (:class:`~addon.store.conversations.TurnIds`),
and one task writes what waits, in order, one transaction per batch, at a quiet moment: when no
turn is in progress, or ``max_delay_s`` after the oldest waiting item, or once ``max_batch``
items wait, whichever comes first.

The trade-off: a crash (power cut, ``kill -9``) loses what was waiting, at most about
``max_delay_s`` of turns; a stop (Supervisor's SIGTERM) writes everything first. A failed write
is logged and retried with backoff, and nothing waiting is dropped unless more than
``max_pending`` items pile up (a disk full for a long time); then the oldest go, with an error
in the log.

Whoever must read a turn the agent has just finished calls :meth:`TurnWriter.flush` first (the
web UI's pages, history after a cache miss).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from addon.store.conversations import (
    NumberedTurn,
    OutcomeUpdate,
    TurnIds,
    TurnRecord,
    write_outcomes,
    write_turns,
)
from addon.store.models import Conversation

_LOGGER = logging.getLogger(__name__)

MAX_DELAY_S = 1.0
MAX_BATCH = 500
MAX_PENDING = 20_000
RETRY_FIRST_S = 0.5
RETRY_MAX_S = 30.0
CLOSE_ATTEMPTS = 3

Item = NumberedTurn | OutcomeUpdate


@dataclass(slots=True)
class _Waiter:
    """A :meth:`TurnWriter.flush` waiting until ``target`` items are written."""

    target: int
    future: asyncio.Future[bool]


class TurnWriter:
    """Queues the agent's writes and writes them in order, in batches, from one task."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        max_delay_s: float = MAX_DELAY_S,
        max_batch: int = MAX_BATCH,
        max_pending: int = MAX_PENDING,
    ) -> None:
        self._engine = engine
        self._max_delay_s = max_delay_s
        self._max_batch = max_batch
        self._max_pending = max_pending
        self._ids = TurnIds(1, 1)
        self._known: set[str] = set()
        self._queue: list[Item] = []
        self._pending_turns: Counter[str] = Counter()
        self._submitted = 0
        self._written = 0
        self._oldest_at: float | None = None
        self._waiters: list[_Waiter] = []
        self._active = 0
        self._closing = False
        self._retry_s = 0.0
        self._last_error: str | None = None
        self._holding = False
        self._wake = asyncio.Event()
        self._urgent = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Read where the ids go on and which conversations exist, then start writing."""
        async with self._engine.connect() as connection:
            self._ids = await TurnIds.load(connection)
            self._known = set((await connection.scalars(select(Conversation.id))).all())
        self._task = asyncio.create_task(self._run(), name="home-agent-store-writer")

    def knows(self, conversation_id: str) -> bool:
        """Whether ``conversation_id`` has turns, stored or waiting (pruned ones may linger)."""
        return conversation_id in self._known

    def forget(self, conversation_ids: Iterable[str]) -> None:
        """Conversations retention deleted; any with turns still waiting stay known."""
        self._known.difference_update(
            conversation_id
            for conversation_id in conversation_ids
            if not self._pending_turns[conversation_id]
        )

    def waiting_for(self, conversation_id: str) -> bool:
        """Whether turns of ``conversation_id`` wait to be written."""
        return self._pending_turns[conversation_id] > 0

    @property
    def pending(self) -> int:
        """How many items are not written yet (waiting, or in the batch being written)."""
        return self._submitted - self._written

    @property
    def holding(self) -> bool:
        """Whether the writer has looked at what waits and is letting it gather, writing nothing.

        True only while its task is paused for a quiet moment, so a test can tell "chose not to
        write yet" from "has not got round to it" without sleeping.
        """
        return self._holding

    @property
    def failing(self) -> str | None:
        """Why the last write failed, while its items still wait to be retried; else None."""
        return self._last_error if self._queue else None

    def submit(self, record: TurnRecord) -> int:
        """Queue a finished turn; returns the id it is stored under."""
        numbered = self._ids.number(record)
        self._known.add(record.conversation_id)
        self._pending_turns[record.conversation_id] += 1
        self._enqueue(numbered)
        return numbered.turn_id

    def submit_outcome(self, update: OutcomeUpdate) -> None:
        """Queue an outcome check's verdict on a turn submitted before."""
        self._enqueue(update)

    @contextlib.contextmanager
    def turn_in_progress(self) -> Iterator[None]:
        """Marks a turn being answered: writes wait for a moment when none is."""
        self._active += 1
        try:
            yield
        finally:
            self._active -= 1
            if self._active == 0 and self._queue:
                self._wake.set()

    async def flush(self) -> bool:
        """Wait until everything submitted so far is written; False if writing it failed.

        Whatever failed stays queued and is retried; the caller reads what is stored.
        """
        if self._written >= self._submitted:
            return True
        if self._task is None or self._task.done():
            return False
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiters.append(_Waiter(self._submitted, future))
        self._wake.set()
        self._urgent.set()
        return await future

    async def close(self) -> None:
        """Write everything still waiting (a few tries), then stop."""
        self._closing = True
        for _ in range(CLOSE_ATTEMPTS):
            if await self.flush():
                break
        if self._queue:
            _LOGGER.error(
                "Stopping with %d turns and outcome checks that could not be written",
                len(self._queue),
            )
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def _enqueue(self, item: Item) -> None:
        first = not self._queue
        if first:
            self._oldest_at = asyncio.get_running_loop().time()
        self._queue.append(item)
        self._submitted += 1
        if len(self._queue) > self._max_pending:
            self._drop_oldest(len(self._queue) - self._max_pending)
        # The first item starts the writer's clock; later ones matter once it may write.
        if first or self._active == 0 or len(self._queue) >= self._max_batch:
            self._wake.set()

    def _drop_oldest(self, count: int) -> None:
        dropped, self._queue = self._queue[:count], self._queue[count:]
        self._written += count  # they will never be; waiters must not wait for them
        for item in dropped:
            if isinstance(item, NumberedTurn):
                self._pending_turns[item.record.conversation_id] -= 1
        _LOGGER.error(
            "The store has not been writable for a while: dropped the %d oldest waiting turns "
            "and outcome checks to keep memory bounded",
            count,
        )

    def _hold_for(self) -> float:
        """How much longer to let items gather before writing; 0 to write now."""
        if self._closing or self._waiters or self._active == 0 or self._oldest_at is None:
            return 0.0
        if len(self._queue) >= self._max_batch:
            return 0.0
        waited = asyncio.get_running_loop().time() - self._oldest_at
        return max(0.0, self._max_delay_s - waited)

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if not self._queue:
                self._answer_waiters(ok=True)
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
        batch = self._queue
        self._queue = []
        self._oldest_at = None
        try:
            await self._write_batch(batch)
            done = batch
        except (OperationalError, OSError) as err:
            self._failed(batch, err)
            return
        except Exception:
            # Something in the batch itself cannot be stored (text SQLite cannot encode, a value
            # JSON cannot hold): find it, so it does not hold back every turn after it.
            _LOGGER.exception(
                "Writing a batch of %d items failed; trying them one by one", len(batch)
            )
            done = await self._write_one_by_one(batch)
            if len(done) < len(batch):  # the database failed meanwhile; the rest waits
                self._count_written(done)
                return
        self._retry_s = 0.0
        self._last_error = None
        self._count_written(done)
        if self._queue:
            self._wake.set()

    async def _write_one_by_one(self, batch: list[Item]) -> list[Item]:
        """Write each item alone, dropping those that cannot be stored; returns those handled.

        A failure of the database itself (locked, full) puts the rest back to be retried.
        """
        handled: list[Item] = []
        for position, item in enumerate(batch):
            try:
                await self._write_batch([item])
            except (OperationalError, OSError) as err:
                self._failed(batch[position:], err)
                break
            except Exception:
                described = (
                    f"turn {item.turn_id} of conversation {item.record.conversation_id}"
                    if isinstance(item, NumberedTurn)
                    else f"the outcome check of turn {item.turn_id}"
                )
                _LOGGER.exception("Dropped %s: it cannot be stored", described)
            handled.append(item)
        return handled

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
        self._queue = batch + self._queue
        if self._oldest_at is None:
            self._oldest_at = asyncio.get_running_loop().time()
        self._answer_waiters(ok=False)

    def _count_written(self, done: list[Item]) -> None:
        self._written += len(done)
        for item in done:
            if isinstance(item, NumberedTurn):
                self._pending_turns[item.record.conversation_id] -= 1
        self._pending_turns = +self._pending_turns
        self._answer_waiters(ok=True)

    async def _write_batch(self, batch: list[Item]) -> None:
        """One transaction; ids taken meanwhile by another writer of the file are re-given."""
        turns = [item for item in batch if isinstance(item, NumberedTurn)]
        updates = [item for item in batch if isinstance(item, OutcomeUpdate)]
        try:
            async with self._engine.begin() as connection:
                await write_turns(connection, turns)
                await write_outcomes(connection, updates)
        except IntegrityError:
            if not turns:
                raise
            # Only this writer should insert turns; if another did (a second process on the
            # same file), its rows hold some of our ids: number ours again, above all of them.
            async with self._engine.begin() as connection:
                self._ids = await TurnIds.load(connection)
                renumbered = self._renumber(turns, updates)
                await write_turns(connection, turns)
                await write_outcomes(connection, updates)
            _LOGGER.warning(
                "Turn ids were taken by another writer of the database; %d turns were stored "
                "under new ids (%s)",
                len(renumbered),
                ", ".join(f"{old}→{new}" for old, new in renumbered.items()),
            )

    def _renumber(self, turns: list[NumberedTurn], updates: list[OutcomeUpdate]) -> dict[int, int]:
        renumbered: dict[int, int] = {}
        for index, numbered in enumerate(turns):
            fresh = self._ids.number(numbered.record)
            renumbered[numbered.turn_id] = fresh.turn_id
            turns[index] = fresh
        for index, update in enumerate(updates):
            if update.turn_id in renumbered:
                updates[index] = OutcomeUpdate(
                    renumbered[update.turn_id], update.outcome, update.detail, update.flagged
                )
        for position, item in enumerate(self._queue):
            if isinstance(item, OutcomeUpdate) and item.turn_id in renumbered:
                self._queue[position] = OutcomeUpdate(
                    renumbered[item.turn_id], item.outcome, item.detail, item.flagged
                )
        return renumbered

    def _answer_waiters(self, *, ok: bool) -> None:
        still: list[_Waiter] = []
        for waiter in self._waiters:
            if waiter.future.done():
                continue
            if self._written >= waiter.target:
                waiter.future.set_result(True)
            elif not ok:
                waiter.future.set_result(False)
            else:
                still.append(waiter)
        self._waiters = still


async def _pause(seconds: float, event: asyncio.Event) -> None:
    """Sleep ``seconds``, or less if ``event`` is set meanwhile."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await event.wait()
