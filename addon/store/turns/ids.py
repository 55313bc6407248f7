"""Row ids reserved in the database before they are given out, so a given id is never taken.

The store's writer gives a turn (and its model calls) their ids the moment the agent hands the turn
over, and writes the rows later (:mod:`addon.store.turns.writer`); events and the web UI link to the
turn by that id at once. Ids counted on from the largest stored id would be safe only as long as
nobody else writes the file: a second writer (a tool, a second process) would take the same ids, and
the turn would have to be stored under another one. So ids are reserved first. ``id_counters``
holds, per table, the next id nobody has reserved; a reservation moves it on in one statement,
inside a write transaction, so two writers can never reserve the same id.

The writer reserves :data:`BLOCK` ids at a time (:class:`Ids`), at start and again, in its own
small transaction, whenever fewer than half remain, so giving an id out stays a counter step in
memory. At a stop it hands back what it did not use, unless someone reserved after it. A writer
that gives out ids faster than it can reserve them (more than half a block at once, or while
every write fails because the database is locked or full) goes on counting past its
reservation and claims those ids with its next transaction, which succeeds only if nobody has
reserved or stored any of them meanwhile; should that fail too, the turns holding them get new
ids (:meth:`Ids.settle`), the one case in which a turn is not stored under the id it was given.

A reservation also moves the counter above the largest id stored, so rows written without it
(older versions, raw SQL in a test) are never reused either.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Final

from sqlalchemy import TextClause, text
from sqlalchemy.engine import Connection

BLOCK: Final = 1000
# Only these tables' ids are given out ahead of their rows (the names are also the counters').
TABLES: Final = ("turns", "llm_calls")


@dataclass(frozen=True, slots=True)
class Claim:
    """What one reservation took: a block of new ids, and those given out on trust it covers."""

    reserved: range
    claimed: range


def _reserve_sql(table: str) -> TextClause:
    """Move the counter on by ``count`` from above what is reserved and stored; new value back.

    ``table`` is one of :data:`TABLES`, never input.
    """
    return text(
        f"UPDATE id_counters SET next_id = max(next_id, "
        f"(SELECT coalesce(max(id), 0) + 1 FROM {table})) + :count "
        "WHERE name = :name RETURNING next_id"
    )


def _claim_sql(table: str) -> TextClause:
    """Take ``[:start, :end)`` and ``count`` more, only if nobody reserved or stored any of it."""
    return text(
        "UPDATE id_counters SET next_id = :end + :count "
        "WHERE name = :name AND next_id = :start "
        f"AND (SELECT coalesce(max(id), 0) FROM {table}) < :start "
        "RETURNING next_id"
    )


_RESERVE: Final = {table: _reserve_sql(table) for table in TABLES}
_CLAIM: Final = {table: _claim_sql(table) for table in TABLES}
_GIVE_BACK: Final = text(
    "UPDATE id_counters SET next_id = :unused WHERE name = :name AND next_id = :end"
)


def reserve(connection: Connection, table: str, count: int) -> range:
    """Reserve ``count`` ids of ``table`` in the caller's (write) transaction.

    Synchronous, as the writer runs its transactions in a thread of their own; an async
    caller passes it to ``AsyncConnection.run_sync``.
    """
    end = (connection.execute(_RESERVE[table], {"name": table, "count": count})).scalar_one()
    return range(end - count, end)


class Ids:
    """One table's ids for one writer: given out from its reservations, in order.

    Not safe to share between writers: each holds its own reservations.
    """

    def __init__(self, table: str, *, block: int = BLOCK) -> None:
        self.table = table
        self._block = block
        self._ranges: deque[range] = deque()
        self._next = 0
        self._end = 0
        self._trusted_from: int | None = None

    @property
    def remaining(self) -> int:
        """How many reserved ids are left to give out."""
        return max(0, self._end - self._next) + sum(len(block) for block in self._ranges)

    @property
    def overdrawn(self) -> bool:
        """Whether ids beyond the reservation were given out and are not yet claimed."""
        return self._trusted_from is not None

    def wants_reservation(self) -> bool:
        """Whether fewer than half a block remain, or given-out ids wait to be claimed."""
        return self.overdrawn or self.remaining < self._block // 2

    def take(self, count: int) -> list[int]:
        """The next ``count`` ids, beyond the reservation once it is used up (see the module)."""
        taken: list[int] = []
        while len(taken) < count:
            if self._next < self._end:
                step = min(count - len(taken), self._end - self._next)
                taken.extend(range(self._next, self._next + step))
                self._next += step
            elif self._ranges:
                block = self._ranges.popleft()
                self._next, self._end = block.start, block.stop
            else:
                if self._trusted_from is None:
                    self._trusted_from = self._next
                step = count - len(taken)
                taken.extend(range(self._next, self._next + step))
                self._next += step
                self._end = self._next
        return taken

    def reserve(self, connection: Connection) -> Claim:
        """Reserve a block, claiming any ids given out on trust, in the caller's transaction.

        Nothing changes here until :meth:`settle` is called with the result, after the
        transaction committed: a rolled-back reservation reserved nothing.
        """
        if self._trusted_from is not None:
            given = range(self._trusted_from, self._next)
            params = {"name": self.table, "start": given.start, "end": given.stop}
            claimed = connection.execute(_CLAIM[self.table], params | {"count": self._block})
            end = claimed.scalar_one_or_none()
            if end is not None:
                return Claim(range(given.stop, end), given)
        return Claim(reserve(connection, self.table, self._block), range(0))

    def settle(self, claim: Claim) -> range:
        """Take in a committed reservation; returns the ids given out on trust that were lost.

        Whatever holds a lost id (another writer reserved or stored it) needs a new one. Ids
        may have been given out while the reservation was being made; those beyond the old
        reservation are covered if the new block follows on from them, and lost otherwise.
        """
        reserved = claim.reserved
        if not reserved:
            return range(0)
        if self._trusted_from is None:
            if not self._ranges and self._next >= self._end:
                self._next, self._end = reserved.start, reserved.stop
            elif not self._ranges and reserved.start == self._end:
                self._end = reserved.stop
            elif self._ranges and reserved.start == self._ranges[-1].stop:
                self._ranges[-1] = range(self._ranges[-1].start, reserved.stop)
            else:
                self._ranges.append(reserved)
            return range(0)
        covered = self._trusted_from
        if claim.claimed and claim.claimed.start == covered:
            covered = claim.claimed.stop
        if reserved.start == covered:
            self._trusted_from = reserved.stop if self._next > reserved.stop else None
            self._end = max(self._next, reserved.stop)
            return range(0)
        lost = range(self._trusted_from, self._next)
        self._trusted_from = None
        self._next, self._end = reserved.start, reserved.stop
        return lost

    def give_back(self, connection: Connection) -> None:
        """Return the unused end of the reservation, unless someone reserved after it."""
        if self.overdrawn or self._ranges or self._next >= self._end:
            return
        params = {"name": self.table, "unused": self._next, "end": self._end}
        connection.execute(_GIVE_BACK, params)
        self._end = self._next
