"""What waits for the store's writer, in order, and who waits for it to be written.

The writer (:mod:`addon.store.turns.writer`) hands items in and takes batches out; this module keeps
the count of what was handed over and what was written, the commits turns' answers wait for,
the flushes waiting for everything so far, and the room a full queue makes callers wait for.
It decides nothing about when to write, and never writes.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import Counter
from dataclasses import dataclass

from addon.store.turns.conversations import (
    LaterCall,
    NumberedTurn,
    OutcomeUpdate,
    TurnIds,
    TurnRecord,
)

Item = NumberedTurn | LaterCall | OutcomeUpdate


@dataclass(frozen=True, slots=True)
class Sorted:
    """A batch's items by kind, each in order: written in this order, in one transaction.

    A later call and an outcome check name a turn handed over before them, so the turns go
    first.
    """

    turns: list[NumberedTurn]
    later: list[LaterCall]
    updates: list[OutcomeUpdate]

    def __len__(self) -> int:
        return len(self.turns) + len(self.later) + len(self.updates)


@dataclass(frozen=True, slots=True)
class AddedTurn:
    """A turn handed to the writer: the id it is stored under, and its commit to wait for.

    ``committed`` becomes True once the turn is in the file: its journal entry
    (:mod:`addon.store.turns.journal`) or the transaction holding its rows has committed; False
    if the turn itself can never be stored (a value the database refuses) or the writer stopped
    with it unwritten.
    """

    turn_id: int
    committed: asyncio.Future[bool]


@dataclass(slots=True)
class _Waiter:
    """A flush waiting until ``target`` items are written."""

    target: int
    future: asyncio.Future[bool]


class WriteQueue:
    """The items not yet written (waiting, or in the batch being written) and their waiters."""

    def __init__(self, *, max_pending: int) -> None:
        self.items: list[Item] = []
        """Waiting to be written, oldest first."""
        self.in_flight: list[Item] = []
        """Taken out to be written and not yet written (put back if the writing fails)."""
        self.oldest_at: float | None = None
        """The loop time the oldest waiting item was handed over, None while none waits."""
        self.closing = False
        """Set at a stop: nobody waits for room any more."""
        self._max_pending = max_pending
        # The commits someone waits for, by the record (a renumbered turn keeps its record).
        self._commits: dict[int, asyncio.Future[bool]] = {}
        self._room = asyncio.Event()
        self._room.set()
        self._waiting_for_room = 0
        self._pending_turns: Counter[str] = Counter()
        self._submitted = 0
        self._written = 0
        self._waiters: list[_Waiter] = []

    @property
    def pending(self) -> int:
        """How many items are not written yet (waiting, or in the batch being written)."""
        return self._submitted - self._written

    @property
    def all_written(self) -> bool:
        """Whether everything handed over so far is written."""
        return self._written >= self._submitted

    @property
    def waiting_for_room(self) -> int:
        """How many callers wait for room in a full queue."""
        return self._waiting_for_room

    @property
    def commits_awaited(self) -> bool:
        """Whether someone waits for a turn's commit."""
        return bool(self._commits)

    @property
    def awaited(self) -> bool:
        """Whether someone waits for a commit or a flush (nothing should be held back)."""
        return bool(self._commits or self._waiters)

    def waiting_for(self, conversation_id: str) -> bool:
        """Whether turns of ``conversation_id`` wait to be written."""
        return self._pending_turns[conversation_id] > 0

    async def room(self) -> None:
        """Wait until fewer than ``max_pending`` items wait, or the writer stops."""
        if self.pending < self._max_pending or self.closing:
            return
        self._waiting_for_room += 1
        try:
            while self.pending >= self._max_pending and not self.closing:
                self._room.clear()
                await self._room.wait()
        finally:
            self._waiting_for_room -= 1

    def open_room(self) -> None:
        """Let everyone waiting for room through (after a stop)."""
        self._room.set()

    def expect_commit(self, record: TurnRecord, future: asyncio.Future[bool]) -> None:
        """Someone waits for ``record``'s commit: ``future`` is told how it went."""
        self._commits[id(record)] = future

    def awaits_commit(self, item: Item) -> bool:
        """Whether someone waits for ``item``'s commit (see :meth:`expect_commit`)."""
        return isinstance(item, NumberedTurn) and id(item.record) in self._commits

    def append(self, item: Item) -> bool:
        """Queue ``item`` last; True if it is the only one waiting."""
        first = not self.items
        if first:
            self.oldest_at = asyncio.get_running_loop().time()
        if isinstance(item, NumberedTurn):
            self._pending_turns[item.record.conversation_id] += 1
        self.items.append(item)
        self._submitted += 1
        return first

    def take(self) -> list[Item]:
        """Everything waiting, as the batch to write now (in flight until counted)."""
        batch = self.items
        self.items = []
        self.oldest_at = None
        self.in_flight = batch
        return batch

    def put_back(self, batch: list[Item]) -> None:
        """Put ``batch`` back in front of what waits, to be written again."""
        self.items = batch + self.items
        self.in_flight = []
        if self.oldest_at is None:
            self.oldest_at = asyncio.get_running_loop().time()

    def flushed(self) -> asyncio.Future[bool]:
        """A future told when everything handed over so far is written (False on a failure)."""
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiters.append(_Waiter(self._submitted, future))
        return future

    def count_written(self, done: list[Item]) -> None:
        """``done`` is written (or dropped): settle its commits, make room, answer flushes."""
        self._written += len(done)
        for item in done:
            if isinstance(item, NumberedTurn):
                self._pending_turns[item.record.conversation_id] -= 1
                self.settle_commit(item, ok=True)
        self._pending_turns = +self._pending_turns
        if self.pending < self._max_pending:
            self._room.set()
        self.answer_waiters(ok=True)

    def settle_commit(self, item: Item, *, ok: bool) -> None:
        """Tell whoever waits for ``item``'s commit how it went (once: the first word counts)."""
        if isinstance(item, NumberedTurn):
            future = self._commits.pop(id(item.record), None)
            if future is not None and not future.done():
                future.set_result(ok)

    def abandon_commits(self) -> None:
        """At a stop: every commit still awaited will not happen."""
        for future in self._commits.values():
            if not future.done():
                future.set_result(False)
        self._commits.clear()

    def answer_waiters(self, *, ok: bool) -> None:
        """Answer the flushes whose items are written; after a failure, the rest with False."""
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

    def renumber(
        self, batch: list[Item], ids: TurnIds, lost_turns: range, lost_calls: range
    ) -> dict[int, int]:
        """New ids from ``ids`` for the turns and calls, in ``batch`` and the queue, that were lost.

        The later calls and outcome checks of a renumbered turn follow it. Returns the turns'
        old ids with their new ones.
        """
        renumbered: dict[int, int] = {}
        for items in (batch, self.items):
            for index, item in enumerate(items):
                if isinstance(item, NumberedTurn):
                    turn_id, call_ids = item.turn_id, item.llm_call_ids
                    if turn_id in lost_turns:
                        [turn_id] = ids.turns.take(1)
                        renumbered[item.turn_id] = turn_id
                    if any(call_id in lost_calls for call_id in call_ids):
                        call_ids = ids.llm_calls.take(len(call_ids))
                    items[index] = NumberedTurn(item.record, turn_id, call_ids)
                elif isinstance(item, LaterCall) and item.call_id in lost_calls:
                    [call_id] = ids.llm_calls.take(1)
                    items[index] = dataclasses.replace(item, call_id=call_id)
        for items in (batch, self.items):
            for index, item in enumerate(items):
                if isinstance(item, NumberedTurn) or item.turn_id not in renumbered:
                    continue
                items[index] = dataclasses.replace(item, turn_id=renumbered[item.turn_id])
        return renumbered


def split(batch: list[Item]) -> Sorted:
    """A batch's turns, later calls and outcome checks, each in order."""
    return Sorted(
        [item for item in batch if isinstance(item, NumberedTurn)],
        [item for item in batch if isinstance(item, LaterCall)],
        [item for item in batch if isinstance(item, OutcomeUpdate)],
    )


def described(item: Item) -> str:
    """What ``item`` is, for a log line."""
    if isinstance(item, NumberedTurn):
        return f"turn {item.turn_id} of conversation {item.record.conversation_id}"
    if isinstance(item, LaterCall):
        return f"the {item.purpose} model call of turn {item.turn_id}"
    return f"the outcome check of turn {item.turn_id}"
