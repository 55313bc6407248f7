"""Long-term memories as the store keeps them: the record, writes and reads.

Every function takes the session first and leaves committing to the caller. Deleting is soft
(``deleted_at``) and undone by :func:`restore_memory`; only :func:`forget_everything` and the purge
of long-deleted rows in :func:`addon.store.memories.memory_upkeep.prune` remove rows. Searching is
:mod:`addon.store.memories.memory_search`; recalls and pruning are
:mod:`addon.store.memories.memory_upkeep`.

An embedding is stored as little-endian float32 bytes beside the model that made it; the
vector math on the reply's path is :mod:`addon.memory.retrieval`'s in-memory index, which loads
them once through :func:`addon.store.memories.memory_search.searchable_memories`.
"""

from __future__ import annotations

import enum
import json
import logging
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from sqlalchemy import delete, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from addon.errors import StoreError
from addon.store.file import fts_query
from addon.store.models import Memory, utcnow
from addon.store.rows import record_of, stored_row

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

_LOGGER = logging.getLogger(__name__)

MemoryKind = Literal["fact", "preference", "context", "event"]
KINDS: tuple[MemoryKind, ...] = ("fact", "preference", "context", "event")
MemorySource = Literal["conversation", "manual"]


class _Keep(enum.Enum):
    KEEP = 0


KEEP = _Keep.KEEP
"""Passed to :func:`update_memory` for a field that stays as it is (``None`` clears expiry)."""


def _given[T](value: T | _Keep, kept: T) -> T:
    """What :func:`update_memory` writes to a field: ``value``, or what it holds for :data:`KEEP`.

    A field given its own value again is no change to SQLAlchemy: the update writes only the
    columns whose values differ.
    """
    return kept if isinstance(value, _Keep) else value


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    """One memory as readers see it; the embedding itself stays in the store."""

    id: int
    content: str
    kind: MemoryKind
    importance: float
    created_at: datetime
    updated_at: datetime
    last_recalled_at: datetime | None
    recall_count: int
    expires_at: datetime | None
    pinned: bool
    source: str
    conversation_id: str | None
    turn_id: int | None
    entity_ids: tuple[str, ...]
    areas: tuple[str, ...]
    embedding_model: str | None
    deleted_at: datetime | None
    person_id: str | None = None
    """The person it belongs to (recalled only for them); None: the household's."""


type SqlValue = int | float | str | bytes | None
"""A value as SQLite hands it back: INTEGER, REAL, TEXT, BLOB or NULL."""


async def fetch_rows(
    session: AsyncSession, sql: str, params: Sequence[object]
) -> list[Sequence[SqlValue]]:
    """Rows of ``sql`` straight from the session's aiosqlite connection, in its transaction.

    For recall on the reply's path only: SQLAlchemy's statement and ORM layers cost about a
    millisecond per query on the add-on's hardware, the SQLite work itself a few hundredths.
    """
    connection = await session.connection()
    driver = (await connection.get_raw_connection()).driver_connection
    if driver is None:
        raise StoreError("the store's connection is closed")
    cursor = await driver.execute(sql, tuple(params))
    try:
        return list(await cursor.fetchall())
    finally:
        await cursor.close()


def _time(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value).replace(tzinfo=UTC)


def sql_number(value: SqlValue) -> int | float:
    """A numeric column's value; anything else is a damaged row, refused."""
    if isinstance(value, int | float):
        return value
    raise StoreError(f"expected a number in the store, found {value!r}")


def sql_text(value: SqlValue) -> str | None:
    """A text column's value (None for NULL); anything else is a damaged row, refused."""
    if value is None or isinstance(value, str):
        return value
    raise StoreError(f"expected text in the store, found {value!r}")


def stored_kind(value: object, memory_id: int) -> MemoryKind:
    """A stored kind as the closed set it is; an unknown one is refused, not read as another.

    Each kind has its own lifetime and decay (``memory_upkeep``): read as some other kind, a
    memory would expire or fade by rules never meant for it.
    """
    for kind in KINDS:
        if value == kind:
            return kind
    _LOGGER.error("Memory %s has the unknown kind %r; it is not read", memory_id, value)
    raise StoreError(f"memory {memory_id} has an unknown kind {value!r}")


def raw_record(row: Sequence[SqlValue]) -> MemoryRecord:
    """A record from a row of ``RAW_COLUMNS``, parsed as the models' types would."""
    turn_id = row[12]
    memory_id = int(sql_number(row[0]))
    return MemoryRecord(
        id=memory_id,
        content=str(row[1]),
        kind=stored_kind(row[2], memory_id),
        importance=float(sql_number(row[3])),
        created_at=_time(sql_text(row[4])) or datetime.min.replace(tzinfo=UTC),
        updated_at=_time(sql_text(row[5])) or datetime.min.replace(tzinfo=UTC),
        last_recalled_at=_time(sql_text(row[6])),
        recall_count=int(sql_number(row[7])),
        expires_at=_time(sql_text(row[8])),
        pinned=bool(row[9]),
        source=str(row[10]),
        conversation_id=sql_text(row[11]),
        turn_id=None if turn_id is None else int(sql_number(turn_id)),
        entity_ids=tuple(json.loads(sql_text(row[13]) or "[]")),
        areas=tuple(json.loads(sql_text(row[14]) or "[]")),
        embedding_model=sql_text(row[15]),
        deleted_at=_time(sql_text(row[16])),
        person_id=sql_text(row[17]),
    )


RAW_COLUMNS = (
    "id, content, kind, importance, created_at, updated_at, last_recalled_at, recall_count, "
    "expires_at, pinned, source, source_conversation_id, source_turn_id, entity_ids, areas, "
    "embedding_model, deleted_at, person_id"
)


def memory_record(row: Memory) -> MemoryRecord:
    """The record of an ORM row."""
    return record_of(
        MemoryRecord,
        row,
        kind=stored_kind(row.kind, row.id),
        conversation_id=row.source_conversation_id,
        turn_id=row.source_turn_id,
        entity_ids=tuple(row.entity_ids or ()),
        areas=tuple(row.areas or ()),
    )


def pack_vector(vector: Sequence[float] | NDArray[np.float32]) -> bytes:
    """The stored form of an embedding: float32, little-endian."""
    import numpy as np  # only where embeddings are on; see memory.retrieval.MemoryIndex

    return np.asarray(vector, dtype="<f4").tobytes()


def unpack_vector(data: bytes) -> NDArray[np.float32]:
    """An embedding read back from :func:`pack_vector`'s bytes."""
    import numpy as np

    return np.frombuffer(data, dtype="<f4")


def _check(kind: str, importance: float) -> None:
    if kind not in KINDS:
        raise ValueError(f"unknown memory kind {kind!r}; expected one of {', '.join(KINDS)}")
    if not 0.0 <= importance <= 1.0 or math.isnan(importance):
        raise ValueError(f"importance must be between 0 and 1, not {importance}")


async def add_memory(
    session: AsyncSession,
    content: str,
    *,
    kind: str = "fact",
    importance: float = 0.5,
    source: MemorySource = "manual",
    conversation_id: str | None = None,
    turn_id: int | None = None,
    entity_ids: Iterable[str] = (),
    areas: Iterable[str] = (),
    expires_at: datetime | None = None,
    pinned: bool = False,
    embedding: bytes | None = None,
    embedding_model: str | None = None,
    now: datetime | None = None,
    person_id: str | None = None,
) -> MemoryRecord:
    """Store a new memory and return it with its id (``person_id``: only theirs)."""
    _check(kind, importance)
    at = now or utcnow()
    row = Memory(
        content=content.strip(),
        kind=kind,
        importance=importance,
        created_at=at,
        updated_at=at,
        recall_count=0,
        expires_at=expires_at,
        pinned=pinned,
        source=source,
        source_conversation_id=conversation_id,
        source_turn_id=turn_id,
        entity_ids=list(entity_ids),
        areas=list(areas),
        embedding=embedding,
        embedding_model=embedding_model if embedding is not None else None,
        person_id=person_id,
    )
    session.add(row)
    await session.flush()
    return memory_record(row)


async def _row(session: AsyncSession, memory_id: int) -> Memory:
    return await stored_row(session, Memory, memory_id, f"no memory {memory_id}")


async def get_memory(session: AsyncSession, memory_id: int) -> MemoryRecord:
    """The memory ``memory_id``, deleted or not; :class:`NotFoundError` if there is none."""
    return memory_record(await _row(session, memory_id))


async def get_memories(session: AsyncSession, memory_ids: Iterable[int]) -> list[MemoryRecord]:
    """The live memories among ``memory_ids``, in the order asked for."""
    ids = [int(memory_id) for memory_id in memory_ids]
    if not ids:
        return []
    rows = await fetch_rows(
        session,
        f"SELECT {RAW_COLUMNS} FROM memories WHERE deleted_at IS NULL "
        f"AND id IN ({', '.join('?' * len(ids))})",
        ids,
    )
    by_id = {record.id: record for record in map(raw_record, rows)}
    return [by_id[memory_id] for memory_id in ids if memory_id in by_id]


async def update_memory(
    session: AsyncSession,
    memory_id: int,
    *,
    content: str | _Keep = KEEP,
    kind: str | _Keep = KEEP,
    importance: float | _Keep = KEEP,
    expires_at: datetime | _Keep | None = KEEP,
    pinned: bool | _Keep = KEEP,
    embedding: bytes | _Keep | None = KEEP,
    embedding_model: str | _Keep | None = KEEP,
    now: datetime | None = None,
) -> MemoryRecord:
    """Change what is given (text, kind, importance, expiry, pin, embedding); return the result.

    New text without a new embedding drops the old one, which described the old text.
    """
    row = await _row(session, memory_id)
    _check(_given(kind, row.kind), _given(importance, row.importance))
    if not isinstance(content, _Keep) and content.strip() != row.content:
        row.content = content.strip()
        if isinstance(embedding, _Keep):
            row.embedding, row.embedding_model = None, None
    row.kind = _given(kind, row.kind)
    row.importance = _given(importance, row.importance)
    row.expires_at = _given(expires_at, row.expires_at)
    row.pinned = _given(pinned, row.pinned)
    row.embedding = _given(embedding, row.embedding)
    row.embedding_model = _given(embedding_model, row.embedding_model)
    row.updated_at = now or utcnow()
    await session.flush()
    return memory_record(row)


async def list_memories(
    session: AsyncSession,
    *,
    query: str = "",
    kind: str | None = None,
    source: str | None = None,
    pinned: bool | None = None,
    expiring_before: datetime | None = None,
    deleted: bool = False,
    limit: int = 100,
    offset: int = 0,
    person: str | None = None,
) -> list[MemoryRecord]:
    """Memories for the panel, newest change first: every word of ``query``, and the filters.

    ``expiring_before`` keeps those with an expiry up to that time; ``deleted`` lists the
    deleted ones instead of the live ones; ``person`` one person's (:data:`HOUSEHOLD`: the
    household's, which belong to nobody).
    """
    statement = select(Memory)
    match = fts_query(query)
    if match:
        hits = text("SELECT rowid FROM memories_fts WHERE memories_fts MATCH :match")
        statement = statement.where(Memory.id.in_(hits.bindparams(match=match).columns(Memory.id)))
    statement = statement.where(
        Memory.deleted_at.is_not(None) if deleted else Memory.deleted_at.is_(None)
    )
    if kind is not None:
        statement = statement.where(Memory.kind == kind)
    if source is not None:
        statement = statement.where(Memory.source == source)
    if pinned is not None:
        statement = statement.where(Memory.pinned.is_(pinned))
    if person == HOUSEHOLD:
        statement = statement.where(Memory.person_id.is_(None))
    elif person is not None:
        statement = statement.where(Memory.person_id == person)
    if expiring_before is not None:
        statement = statement.where(
            Memory.expires_at.is_not(None), Memory.expires_at <= expiring_before
        )
    statement = statement.order_by(Memory.updated_at.desc(), Memory.id.desc())
    rows = await session.scalars(statement.limit(limit).offset(offset))
    return [memory_record(row) for row in rows]


HOUSEHOLD = "household"
"""The person filter that lists the memories of no one person (recalled for everyone)."""


async def memory_people(session: AsyncSession) -> list[str]:
    """Every person some memory belongs to, in order: what the panel's person filter offers."""
    rows = await session.scalars(
        select(Memory.person_id).where(Memory.person_id.is_not(None)).distinct()
    )
    return sorted(person for person in rows if person is not None)


async def count_memories(session: AsyncSession) -> int:
    """How many memories are live."""
    count = await session.scalar(select(func.count(Memory.id)).where(Memory.deleted_at.is_(None)))
    return int(count or 0)


async def delete_memory(
    session: AsyncSession, memory_id: int, *, now: datetime | None = None
) -> MemoryRecord:
    """Soft-delete: hidden from recall and the list, kept for :func:`restore_memory`."""
    row = await _row(session, memory_id)
    if row.deleted_at is None:
        row.deleted_at = now or utcnow()
    await session.flush()
    return memory_record(row)


async def restore_memory(session: AsyncSession, memory_id: int) -> MemoryRecord:
    """Undo a delete."""
    row = await _row(session, memory_id)
    row.deleted_at = None
    await session.flush()
    return memory_record(row)


async def forget_everything(session: AsyncSession) -> int:
    """Remove every memory for good, deleted or not, with its recalls; return how many."""
    result = await session.execute(delete(Memory))
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


async def credit_source(
    session: AsyncSession, memory_ids: Iterable[int], *, conversation_id: str, turn_id: int
) -> None:
    """Name the turn that told these memories, where none is named yet.

    The memory tools store what the user asks for while the turn is still being answered, before
    the turn is in the store; once it is, the memories are credited to it.
    """
    ids = sorted(set(memory_ids))
    if not ids:
        return
    await session.execute(
        update(Memory)
        .where(Memory.id.in_(ids), Memory.source == "conversation", Memory.source_turn_id.is_(None))
        .values(source_conversation_id=conversation_id, source_turn_id=turn_id)
    )
