"""Aggregates for the dashboard: activity counts, who answered, latency and tokens over time.

Percentiles are computed in SQL with window functions (nearest rank within each time bucket), so
a busy month is summarised by SQLite in C instead of shipping every duration to Python. Buckets
are labelled in the home's local time: the caller passes the UTC offset to shift by (one offset
for the whole window, so a DST change inside it shifts older buckets by an hour; the plots are an
overview, not an audit).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import Integer, case, cast, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from addon.store.models import Conversation, Turn

Resolution = Literal["hour", "day"]
_BUCKET_FORMAT: dict[Resolution, str] = {"hour": "%Y-%m-%d %H:00:00", "day": "%Y-%m-%d 00:00:00"}


@dataclass(frozen=True, slots=True)
class HandledShare:
    """How many turns each path answered in a window."""

    local: int
    llm: int
    failed: int

    @property
    def total(self) -> int:
        """Every turn in the window."""
        return self.local + self.llm + self.failed

    def percent(self, part: int) -> float:
        """``part`` as a percentage of all turns (0 when there were none)."""
        return 100.0 * part / self.total if self.total else 0.0


@dataclass(frozen=True, slots=True)
class Bucket:
    """One time bucket: its local start (naive), turn count, latency percentiles, tokens."""

    start: datetime
    turns: int
    p50_ms: float
    p95_ms: float
    tokens: int


@dataclass(frozen=True, slots=True)
class TurnSummary:
    """A turn as the dashboard lists it (failures and flags)."""

    id: int
    conversation_id: str
    seq: int
    created_at: datetime
    user_text: str
    reply_text: str
    handled_by: str
    error: str | None
    outcome: str
    outcome_detail: dict[str, Any]


async def conversations_since(session: AsyncSession, since: datetime) -> int:
    """Conversations started at or after ``since`` (on the ``started_at`` index)."""
    query = select(func.count()).select_from(Conversation).where(Conversation.started_at >= since)
    return int((await session.execute(query)).scalar_one())


async def handled_share(session: AsyncSession, since: datetime) -> HandledShare:
    """Turns since ``since`` by who answered them."""
    query = (
        select(Turn.handled_by, func.count())
        .where(Turn.created_at >= since)
        .group_by(Turn.handled_by)
    )
    counts = {str(name): int(count) for name, count in (await session.execute(query)).all()}
    return HandledShare(counts.get("local", 0), counts.get("llm", 0), counts.get("failed", 0))


async def latency_buckets(
    session: AsyncSession, since: datetime, resolution: Resolution, utc_offset_minutes: int
) -> list[Bucket]:
    """Per hour or day since ``since``: turns, p50 and p95 of turn duration, tokens used.

    Only buckets with turns are returned; the caller fills the gaps for plotting.
    """
    shift = f"{utc_offset_minutes:+d} minutes"
    bucket = func.strftime(_BUCKET_FORMAT[resolution], Turn.created_at, shift)
    ranked = (
        select(
            bucket.label("bucket"),
            Turn.duration_ms.label("duration_ms"),
            (Turn.prompt_tokens + Turn.completion_tokens).label("tokens"),
            func.row_number()
            .over(partition_by=bucket, order_by=Turn.duration_ms)
            .label("rank"),
            func.count().over(partition_by=bucket).label("n"),
        )
        .where(Turn.created_at >= since)
        .subquery()
    )

    def nearest_rank(fraction: float) -> Any:
        wanted = cast(fraction * (ranked.c.n - 1), Integer) + 1
        return func.max(case((ranked.c.rank == wanted, ranked.c.duration_ms)))

    query = (
        select(
            ranked.c.bucket,
            func.count(),
            nearest_rank(0.50),
            nearest_rank(0.95),
            func.sum(ranked.c.tokens),
        )
        .group_by(ranked.c.bucket)
        .order_by(ranked.c.bucket)
    )
    return [
        Bucket(
            start=datetime.fromisoformat(str(label)),
            turns=int(count),
            p50_ms=float(p50 or 0.0),
            p95_ms=float(p95 or 0.0),
            tokens=int(tokens or 0),
        )
        for label, count, p50, p95, tokens in (await session.execute(query)).all()
    ]


async def recent_failures(
    session: AsyncSession, since: datetime, limit: int = 10
) -> list[TurnSummary]:
    """The latest turns since ``since`` that failed or recorded an error, newest first."""
    condition = or_(Turn.handled_by == "failed", Turn.error.is_not(None))
    return await _recent(session, since, condition, limit)


async def recent_flags(session: AsyncSession, since: datetime, limit: int = 10) -> list[TurnSummary]:
    """The latest turns since ``since`` that the outcome check flagged, newest first."""
    return await _recent(session, since, Turn.flagged.is_(True), limit)


async def _recent(
    session: AsyncSession, since: datetime, condition: Any, limit: int
) -> list[TurnSummary]:
    # Bounded by ``since`` so a home with no failures does not scan its whole history.
    query = (
        select(
            Turn.id,
            Turn.conversation_id,
            Turn.seq,
            Turn.created_at,
            Turn.user_text,
            Turn.reply_text,
            Turn.handled_by,
            Turn.error,
            Turn.outcome,
            Turn.outcome_detail,
        )
        .where(Turn.created_at >= since, condition)
        .order_by(Turn.created_at.desc(), Turn.id.desc())
        .limit(limit)
    )
    return [TurnSummary(*row) for row in (await session.execute(query)).all()]


def utc(moment: datetime) -> datetime:
    """``moment`` as an aware UTC datetime (naive values are taken as UTC)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
