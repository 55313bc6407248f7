"""Aggregates for the dashboard: activity counts, who answered, latency and tokens over time.

Latency percentiles come from a histogram SQLite builds per time bucket: durations are grouped by
their first two significant digits (10, 11, … 99, 100, 110, … ms, so within 10 %), and the
nearest-rank percentile is read off the counts. A month of turns thus arrives as a few hundred
rows instead of one per turn, and no window function has to sort them (which cost seconds at
hundreds of thousands of turns; a ``GROUP BY`` costs one pass). Buckets
are labelled in the home's local time: the caller passes the UTC offset to shift by (one offset
for the whole window, so a DST change inside it shifts older buckets by an hour; the plots are an
overview, not an audit).

Evaluation runs are left out of every figure and list: their turns test the agent, they are not
the home's use of it (the Evaluate page has their own figures). A turn's source is its
conversation's, so each query skips the turns of the evaluation conversations active in its
window, found on the ``updated_at`` index.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import ColumnElement, Integer, String, cast, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from addon.store.models import Conversation, ToolCall, Turn
from addon.store.queries.conversations import EVALUATION_SOURCE
from addon.store.queries.turn_links import TurnLink
from addon.text import JsonObject

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
class TurnSummary(TurnLink):
    """A turn as the dashboard lists it (failures and flags): its link and what went wrong."""

    reply_text: str
    handled_by: str
    error: str | None
    outcome: str
    outcome_detail: JsonObject


def _not_evaluation(since: datetime) -> ColumnElement[bool]:
    """Turns since ``since`` that are not an evaluation's.

    A conversation with a turn at or after ``since`` was updated then too, so the evaluation
    conversations to skip are read on the ``updated_at`` index, within the window.
    """
    evaluation = select(Conversation.id).where(
        Conversation.updated_at >= since, Conversation.source == EVALUATION_SOURCE
    )
    return Turn.conversation_id.not_in(evaluation)


async def conversations_since(session: AsyncSession, since: datetime) -> int:
    """Conversations started at or after ``since`` (on the ``started_at`` index), no evaluation."""
    query = (
        select(func.count())
        .select_from(Conversation)
        .where(Conversation.started_at >= since, Conversation.source != EVALUATION_SOURCE)
    )
    return int((await session.execute(query)).scalar_one())


CONFIRMATION_CALL = "confirmation"
"""The name and call id the agent records a held action's steps under (``addon.agent``)."""


async def confirmations_since(session: AsyncSession, since: datetime) -> dict[str, int]:
    """Held actions since ``since`` by what became of them: held, confirmed, cancelled, expired.

    The home's own, as the rest of the dashboard: an evaluation run's questions are left out.
    """
    status = func.json_extract(ToolCall.result, "$.confirmation")
    query = (
        select(status, func.count())
        .join(Turn, Turn.id == ToolCall.turn_id)
        .where(
            ToolCall.started_at >= since,
            ToolCall.name == CONFIRMATION_CALL,
            ToolCall.call_id == CONFIRMATION_CALL,
            _not_evaluation(since),
        )
        .group_by(status)
    )
    names = {
        "Held for confirmation": "held",
        "Confirmed": "confirmed",
        "Cancelled": "cancelled",
        "Locked out": "cancelled",
        "Cancelled by a new request": "cancelled",
        "Expired": "expired",
    }
    counts = dict.fromkeys(names.values(), 0)
    for found, count in (await session.execute(query)).all():
        if found in names:
            counts[names[found]] += int(count)
    return counts


async def handled_share(session: AsyncSession, since: datetime) -> HandledShare:
    """Turns since ``since`` by who answered them."""
    query = (
        select(Turn.handled_by, func.count())
        .where(Turn.created_at >= since, _not_evaluation(since))
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
    whole_ms = cast(cast(Turn.duration_ms, Integer), String)
    digits = func.length(whole_ms)
    leading = cast(func.substr(whole_ms, 1, 2), Integer)
    query = (
        select(
            bucket,
            digits,
            leading,
            func.count(),
            func.sum(Turn.prompt_tokens + Turn.completion_tokens),
        )
        .where(Turn.created_at >= since, _not_evaluation(since))
        .group_by(bucket, digits, leading)
    )
    histograms: dict[str, list[tuple[float, int]]] = {}
    tokens: dict[str, int] = {}
    for label, width, lead, count, used in (await session.execute(query)).all():
        value = float(lead) * 10.0 ** max(int(width) - 2, 0)
        histograms.setdefault(str(label), []).append((value, int(count)))
        tokens[str(label)] = tokens.get(str(label), 0) + int(used or 0)
    buckets = []
    for label in sorted(histograms):
        bins = sorted(histograms[label])
        buckets.append(
            Bucket(
                start=datetime.fromisoformat(label),
                turns=sum(count for _, count in bins),
                p50_ms=_percentile(bins, 0.50),
                p95_ms=_percentile(bins, 0.95),
                tokens=tokens[label],
            )
        )
    return buckets


def _percentile(bins: list[tuple[float, int]], fraction: float) -> float:
    """Nearest-rank percentile of a histogram given as sorted (value, count) pairs."""
    total = sum(count for _, count in bins)
    wanted = max(1, math.ceil(fraction * total))
    seen = 0
    for value, count in bins:
        seen += count
        if seen >= wanted:
            return value
    return bins[-1][0] if bins else 0.0


async def recent_failures(
    session: AsyncSession, since: datetime, limit: int = 10
) -> list[TurnSummary]:
    """The latest turns since ``since`` that failed or recorded an error, newest first."""
    condition = or_(Turn.handled_by == "failed", Turn.error.is_not(None))
    return await _recent(session, since, condition, limit)


async def recent_flags(
    session: AsyncSession, since: datetime, limit: int = 10
) -> list[TurnSummary]:
    """The latest turns since ``since`` that the outcome check flagged, newest first."""
    return await _recent(session, since, Turn.flagged.is_(True), limit)


async def _recent(
    session: AsyncSession, since: datetime, condition: ColumnElement[bool], limit: int
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
        .where(Turn.created_at >= since, condition, _not_evaluation(since))
        .order_by(Turn.created_at.desc(), Turn.id.desc())
        .limit(limit)
    )
    return [
        TurnSummary(id_, conversation_id, seq, created_at, user, reply, by, error, outcome, detail)
        for (
            id_,
            conversation_id,
            seq,
            created_at,
            user,
            reply,
            by,
            error,
            outcome,
            detail,
        ) in (await session.execute(query)).all()
    ]
