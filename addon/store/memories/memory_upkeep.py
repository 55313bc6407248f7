"""How memories age and what they were used for: recalls counted and linked to turns, and pruning.

Times that decide anything (expiry, decay, deletion) come from a ``now`` argument, so tests
inject the clock. Every function takes the session first and leaves committing to the caller.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from addon.store.memories.memories import MemoryRecord, memory_record
from addon.store.models import Memory, MemoryRecall, Turn, utcnow


@dataclass(frozen=True, slots=True)
class RecallRecord:
    """A turn a memory was recalled into."""

    turn_id: int
    conversation_id: str
    recalled_at: datetime


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
    live = [memory_record(row) for row in rows]
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
