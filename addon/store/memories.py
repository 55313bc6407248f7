"""Long-term memories as the store keeps them: writes, reads, BM25 search, recalls and pruning.

Every function takes the session first and leaves committing to the caller. Deleting is soft
(``deleted_at``) and undone by :func:`restore_memory`; only :func:`forget_everything` and the
purge of long-deleted rows in :func:`prune` remove rows. Times that decide anything (expiry,
decay, deletion) come from a ``now`` argument, so tests inject the clock.

An embedding is stored as little-endian float32 bytes beside the model that made it; the
vector math on the reply's path is :mod:`addon.memory.retrieval`'s in-memory index, which loads
them once through :func:`stored_embeddings`.
"""

from __future__ import annotations

import enum
import json
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import delete, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from addon.errors import NotFoundError, StoreError
from addon.store.models import Memory, MemoryRecall, Turn, utcnow

if TYPE_CHECKING:
    import numpy as np
from addon.store.search import fts_query

MemoryKind = Literal["fact", "preference", "context", "event"]
KINDS: tuple[MemoryKind, ...] = ("fact", "preference", "context", "event")
MemorySource = Literal["conversation", "manual"]
_WORD = re.compile(r"\w+")
# Recall leaves out words held by more than this share of the memories (or COMMON_FLOOR of them).
COMMON_SHARE = 0.05
COMMON_FLOOR = 50
MAX_QUERY_TERMS = 64
STEM_CHARS = 5


class _Keep(enum.Enum):
    KEEP = 0


KEEP = _Keep.KEEP
"""Passed to :func:`update_memory` for a field that stays as it is (``None`` clears expiry)."""


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    """One memory as readers see it; the embedding itself stays in the store."""

    id: int
    content: str
    kind: str
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


@dataclass(frozen=True, slots=True)
class ScoredId:
    """A memory id with its search score; higher is better."""

    id: int
    score: float


@dataclass(frozen=True, slots=True)
class RecallRecord:
    """A turn a memory was recalled into."""

    turn_id: int
    conversation_id: str
    recalled_at: datetime


@dataclass(frozen=True, slots=True)
class SearchableMemory:
    """What recall keeps in memory of a live memory; ``vector`` only if made by the model asked."""

    record: MemoryRecord
    vector: bytes | None


@dataclass(frozen=True, slots=True)
class StoredEmbedding:
    """A live memory's embedding as stored: float32 little-endian bytes."""

    id: int
    vector: bytes


@dataclass(frozen=True, slots=True)
class PrunePolicy:
    """How memories age: a TTL and an importance half-life per kind, and a limit per home.

    A memory expires at its ``expires_at`` or, without one, ``ttl`` after its last update. Its
    importance halves every ``half_life`` since it was last updated or recalled; below
    ``forget_below`` it is forgotten. Past ``max_count`` live memories the least important
    (then the oldest) go. Pinned memories are exempt from all three. Rows deleted for longer
    than ``purge_after`` are removed for good.
    """

    ttl: Mapping[str, timedelta | None] = field(
        default_factory=lambda: {
            "fact": None,
            "preference": None,
            "context": timedelta(days=30),
            "event": timedelta(days=7),
        }
    )
    half_life: Mapping[str, timedelta | None] = field(
        default_factory=lambda: {
            "fact": timedelta(days=365),
            "preference": timedelta(days=180),
            "context": timedelta(days=14),
            "event": timedelta(days=3),
        }
    )
    forget_below: float = 0.05
    max_count: int = 1000
    purge_after: timedelta = timedelta(days=30)


@dataclass(frozen=True, slots=True)
class PruneResult:
    """What one prune did: ids soft-deleted by reason, and how many rows were purged."""

    expired: tuple[int, ...]
    decayed: tuple[int, ...]
    over_limit: tuple[int, ...]
    purged: int


async def _fetch(session: AsyncSession, sql: str, params: Sequence[object]) -> list[Any]:
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


def _raw_record(row: Sequence[Any]) -> MemoryRecord:
    """A record from a row of ``_RAW_COLUMNS``, parsed as the models' types would."""
    return MemoryRecord(
        id=int(row[0]),
        content=str(row[1]),
        kind=str(row[2]),
        importance=float(row[3]),
        created_at=_time(row[4]) or datetime.min.replace(tzinfo=UTC),
        updated_at=_time(row[5]) or datetime.min.replace(tzinfo=UTC),
        last_recalled_at=_time(row[6]),
        recall_count=int(row[7]),
        expires_at=_time(row[8]),
        pinned=bool(row[9]),
        source=str(row[10]),
        conversation_id=row[11],
        turn_id=row[12],
        entity_ids=tuple(json.loads(row[13] or "[]")),
        areas=tuple(json.loads(row[14] or "[]")),
        embedding_model=row[15],
        deleted_at=_time(row[16]),
    )


_RAW_COLUMNS = (
    "id, content, kind, importance, created_at, updated_at, last_recalled_at, recall_count, "
    "expires_at, pinned, source, source_conversation_id, source_turn_id, entity_ids, areas, "
    "embedding_model, deleted_at"
)


def _record(row: Memory) -> MemoryRecord:
    return MemoryRecord(
        id=row.id,
        content=row.content,
        kind=row.kind,
        importance=row.importance,
        created_at=row.created_at,
        updated_at=row.updated_at,
        last_recalled_at=row.last_recalled_at,
        recall_count=row.recall_count,
        expires_at=row.expires_at,
        pinned=row.pinned,
        source=row.source,
        conversation_id=row.source_conversation_id,
        turn_id=row.source_turn_id,
        entity_ids=tuple(row.entity_ids or ()),
        areas=tuple(row.areas or ()),
        embedding_model=row.embedding_model,
        deleted_at=row.deleted_at,
    )


def pack_vector(vector: Sequence[float] | np.ndarray) -> bytes:
    """The stored form of an embedding: float32, little-endian."""
    import numpy as np  # only where embeddings are on; see memory.retrieval.MemoryIndex

    return np.asarray(vector, dtype="<f4").tobytes()


def unpack_vector(data: bytes) -> np.ndarray:
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
) -> MemoryRecord:
    """Store a new memory and return it with its id."""
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
    )
    session.add(row)
    await session.flush()
    return _record(row)


async def _row(session: AsyncSession, memory_id: int) -> Memory:
    row = await session.get(Memory, memory_id)
    if row is None:
        raise NotFoundError(f"no memory {memory_id}")
    return row


async def get_memory(session: AsyncSession, memory_id: int) -> MemoryRecord:
    """The memory ``memory_id``, deleted or not; :class:`NotFoundError` if there is none."""
    return _record(await _row(session, memory_id))


async def get_memories(session: AsyncSession, memory_ids: Iterable[int]) -> list[MemoryRecord]:
    """The live memories among ``memory_ids``, in the order asked for."""
    ids = [int(memory_id) for memory_id in memory_ids]
    if not ids:
        return []
    rows = await _fetch(
        session,
        f"SELECT {_RAW_COLUMNS} FROM memories WHERE deleted_at IS NULL "
        f"AND id IN ({', '.join('?' * len(ids))})",
        ids,
    )
    by_id = {record.id: record for record in map(_raw_record, rows)}
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
    _check(
        row.kind if isinstance(kind, _Keep) else kind,
        row.importance if isinstance(importance, _Keep) else importance,
    )
    if not isinstance(content, _Keep) and content.strip() != row.content:
        row.content = content.strip()
        if isinstance(embedding, _Keep):
            row.embedding, row.embedding_model = None, None
    if not isinstance(kind, _Keep):
        row.kind = kind
    if not isinstance(importance, _Keep):
        row.importance = importance
    if not isinstance(expires_at, _Keep):
        row.expires_at = expires_at
    if not isinstance(pinned, _Keep):
        row.pinned = pinned
    if not isinstance(embedding, _Keep):
        row.embedding = embedding
    if not isinstance(embedding_model, _Keep):
        row.embedding_model = embedding_model
    row.updated_at = now or utcnow()
    await session.flush()
    return _record(row)


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
) -> list[MemoryRecord]:
    """Memories for the panel, newest change first: every word of ``query``, and the filters.

    ``expiring_before`` keeps those with an expiry up to that time; ``deleted`` lists the
    deleted ones instead of the live ones.
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
    if expiring_before is not None:
        statement = statement.where(
            Memory.expires_at.is_not(None), Memory.expires_at <= expiring_before
        )
    statement = statement.order_by(Memory.updated_at.desc(), Memory.id.desc())
    rows = await session.scalars(statement.limit(limit).offset(offset))
    return [_record(row) for row in rows]


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
    return _record(row)


async def restore_memory(session: AsyncSession, memory_id: int) -> MemoryRecord:
    """Undo a delete."""
    row = await _row(session, memory_id)
    row.deleted_at = None
    await session.flush()
    return _record(row)


async def forget_everything(session: AsyncSession) -> int:
    """Remove every memory for good, deleted or not, with its recalls; return how many."""
    result = await session.execute(delete(Memory))
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


def _terms(query: str) -> list[str]:
    """The query's words as the index's tokenizer (unicode61, diacritics removed) sees them."""
    folded = unicodedata.normalize("NFKD", query.casefold())
    plain = "".join(char for char in folded if not unicodedata.combining(char))
    return list(dict.fromkeys(_WORD.findall(plain)))


def word_stems(text: str) -> list[str]:
    """Every word of ``text`` as recall matches it: folded like the index, cut by :func:`_stem`.

    Repeats stay (a word's count is its term frequency). A stem of ``STEM_CHARS`` characters
    matches every word it begins, so indexing words by stem and matching stems exactly finds
    what the FTS5 query of :func:`_telling_terms` finds.
    """
    folded = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(char for char in folded if not unicodedata.combining(char))
    return [_stem(term) for term in _WORD.findall(plain)]


def _stem(term: str) -> str:
    """A word cut to its first ``STEM_CHARS`` characters, matched as a prefix ("allerg*")."""
    return term[:STEM_CHARS] if len(term) > STEM_CHARS else term


def _prefix(stem: str) -> bool:
    """Whether ``stem`` is matched as a prefix (it may be a cut word) rather than a whole word."""
    return len(stem) == STEM_CHARS


async def _telling_terms(session: AsyncSession, query: str) -> str:
    """The FTS5 query for recall: the words of ``query`` some memory holds, ORed, as stems.

    Each word longer than ``STEM_CHARS`` is matched as a prefix of its first characters, a
    stemmer for every language at once ("allergy" finds "allergic"). A stem in more than
    ``COMMON_SHARE`` of the memories ("the", "is") ranks nothing but costs BM25 a score for each
    of those rows, so it is left out; if every stem is that common, the rarest one stays.
    """
    stems = list(dict.fromkeys(_stem(term) for term in _terms(query)))[:MAX_QUERY_TERMS]
    if not stems:
        return ""
    # One round trip: each stem's count (summed over the words it begins) and the total.
    ranges = " UNION ALL ".join(
        f"SELECT {i} AS stem, doc FROM memories_fts_terms WHERE "
        + ("term >= ?1 AND term < ?1 || char(1114111)" if _prefix(stem) else "term = ?1").replace(
            "?1", f"?{i + 1}"
        )
        for i, stem in enumerate(stems)
    )
    rows = await _fetch(
        session,
        f"SELECT stem, sum(doc), (SELECT count(*) FROM memories) FROM ({ranges}) GROUP BY stem",
        stems,
    )
    if not rows:
        return ""
    counts = {stems[int(index)]: int(doc) for index, doc, _total in rows}
    limit = max(COMMON_FLOOR, int(rows[0][2]) * COMMON_SHARE)
    present = [stem for stem in stems if counts.get(stem)]
    telling = [stem for stem in present if counts[stem] <= limit] or [
        min(present, key=lambda stem: counts[stem])
    ]
    return " OR ".join(fts_query(stem) + ("*" if _prefix(stem) else "") for stem in telling)


async def search_memories(session: AsyncSession, query: str, *, limit: int = 20) -> list[ScoredId]:
    """Live memories sharing any telling word stem with ``query``, best BM25 first.

    The score is ``-bm25()`` (FTS5 gives lower-is-better negatives), so higher is better. Any
    text is safe: :func:`addon.store.search.fts_query` quotes every term.
    """
    return [hit.scored for hit in await search_memory_records(session, query, limit=limit)]


@dataclass(frozen=True, slots=True)
class ScoredRecord:
    """A search hit with its memory, read in the same query (recall saves a round trip)."""

    scored: ScoredId
    record: MemoryRecord


async def search_memory_records(
    session: AsyncSession, query: str, *, limit: int = 20
) -> list[ScoredRecord]:
    """:func:`search_memories` with each hit's memory."""
    match = await _telling_terms(session, query)
    if not match:
        return []
    columns = ", ".join(f"m.{column.strip()}" for column in _RAW_COLUMNS.split(","))
    rows = await _fetch(
        session,
        f"SELECT bm25(memories_fts) AS rank, {columns} FROM memories_fts f "
        "JOIN memories m ON m.id = f.rowid "
        "WHERE memories_fts MATCH ? AND m.deleted_at IS NULL "
        "ORDER BY rank LIMIT ?",
        (match, limit),
    )
    return [
        ScoredRecord(ScoredId(int(row[1]), -float(row[0])), _raw_record(row[1:])) for row in rows
    ]


async def mark_recalled(
    session: AsyncSession,
    memory_ids: Iterable[int],
    *,
    turn_id: int | None,
    now: datetime | None = None,
) -> None:
    """Count a recall of each memory, at ``now``, linked to ``turn_id`` when there is one."""
    ids = sorted(set(memory_ids))
    if not ids:
        return
    at = now or utcnow()
    await session.execute(
        update(Memory)
        .where(Memory.id.in_(ids))
        .values(recall_count=Memory.recall_count + 1, last_recalled_at=at)
    )
    if turn_id is not None:
        session.add_all(
            MemoryRecall(memory_id=memory_id, turn_id=turn_id, recalled_at=at) for memory_id in ids
        )
    await session.flush()


async def recalled_into(session: AsyncSession, memory_id: int) -> list[RecallRecord]:
    """The turns ``memory_id`` was recalled into, latest first."""
    rows = await session.execute(
        select(MemoryRecall.turn_id, Turn.conversation_id, MemoryRecall.recalled_at)
        .join(Turn, Turn.id == MemoryRecall.turn_id)
        .where(MemoryRecall.memory_id == memory_id)
        .order_by(MemoryRecall.recalled_at.desc(), MemoryRecall.id.desc())
    )
    return [RecallRecord(turn, conversation, at) for turn, conversation, at in rows]


async def stored_embeddings(session: AsyncSession, model: str) -> list[StoredEmbedding]:
    """Every live memory's embedding made by ``model`` (others are stale for it)."""
    rows = await session.execute(
        select(Memory.id, Memory.embedding).where(
            Memory.deleted_at.is_(None),
            Memory.embedding.is_not(None),
            Memory.embedding_model == model,
        )
    )
    return [StoredEmbedding(memory_id, vector) for memory_id, vector in rows if vector]


async def searchable_memories(session: AsyncSession, model: str | None) -> list[SearchableMemory]:
    """Every live memory, with its embedding if ``model`` made it (recall's copy, at start)."""
    rows = await _fetch(
        session,
        f"SELECT {_RAW_COLUMNS}, CASE WHEN embedding_model = ? THEN embedding END "
        "FROM memories WHERE deleted_at IS NULL ORDER BY id",
        (model,),
    )
    return [SearchableMemory(_raw_record(row), bytes(row[-1]) if row[-1] else None) for row in rows]


async def nearest_ids(
    session: AsyncSession, vector: Sequence[float] | np.ndarray, model: str, *, limit: int = 20
) -> list[ScoredId]:
    """The live memories whose ``model`` embedding is closest to ``vector`` by cosine.

    Reads every embedding: for tools and tests. The reply's path uses the retrieval's index.
    """
    import numpy as np

    stored = await stored_embeddings(session, model)
    query = np.asarray(vector, dtype=np.float32)
    if not stored or not query.any():
        return []
    matrix = np.stack([unpack_vector(item.vector) for item in stored])
    norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(query))
    scores = (matrix @ query) / np.where(norms == 0, 1.0, norms)
    order = np.argsort(-scores)[:limit]
    return [ScoredId(stored[i].id, float(scores[i])) for i in order]


def decayed_importance(record: MemoryRecord, now: datetime, half_life: timedelta | None) -> float:
    """Importance halved per ``half_life`` since the memory was last updated or recalled."""
    if half_life is None or record.pinned:
        return record.importance
    since = max(record.updated_at, record.last_recalled_at or record.updated_at)
    age = max((now - since).total_seconds(), 0.0)
    return float(record.importance * 0.5 ** (age / half_life.total_seconds()))


def is_expired(record: MemoryRecord, now: datetime, ttl: timedelta | None) -> bool:
    """Past its expiry, or without one past its kind's TTL since its last update; never pinned."""
    if record.pinned:
        return False
    if record.expires_at is not None:
        return record.expires_at <= now
    return ttl is not None and record.updated_at + ttl <= now


async def prune(session: AsyncSession, policy: PrunePolicy, *, now: datetime) -> PruneResult:
    """Soft-delete what has expired, decayed away or is over the limit; purge old deletes."""
    rows = await session.scalars(select(Memory).where(Memory.deleted_at.is_(None)))
    live = [_record(row) for row in rows]
    expired: list[int] = []
    decayed: list[int] = []
    kept: list[tuple[float, datetime, int]] = []
    for record in live:
        if is_expired(record, now, policy.ttl.get(record.kind)):
            expired.append(record.id)
            continue
        importance = decayed_importance(record, now, policy.half_life.get(record.kind))
        if not record.pinned and importance < policy.forget_below:
            decayed.append(record.id)
            continue
        # Pinned sort as most important, so the limit removes them last and never.
        kept.append((math.inf if record.pinned else importance, record.updated_at, record.id))
    kept.sort(reverse=True)
    over_limit = [
        memory_id
        for importance, _updated, memory_id in kept[policy.max_count :]
        if importance != math.inf
    ]
    gone = expired + decayed + over_limit
    if gone:
        await session.execute(update(Memory).where(Memory.id.in_(gone)).values(deleted_at=now))
    purged = await session.execute(
        delete(Memory).where(
            Memory.deleted_at.is_not(None), Memory.deleted_at <= now - policy.purge_after
        )
    )
    await session.flush()
    return PruneResult(
        tuple(expired),
        tuple(decayed),
        tuple(over_limit),
        int(purged.rowcount or 0),  # type: ignore[attr-defined]
    )


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
