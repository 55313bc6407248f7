"""Turns as links: what the pages need to link to a turn and say what was said.

A memory cites the turn it was learned from and the turns it was recalled into by id; the
Memories page shows each as a link labelled with what was said, so the user sees why without
opening it (:func:`turn_summaries`, one query for them all). The dashboard's lists of failures
and flags extend the same link with what went wrong (``dashboard.TurnSummary``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from addon.store.models import Turn


@dataclass(frozen=True, slots=True)
class TurnLink:
    """Enough of a turn to link to it in its conversation's trace and say what it was."""

    id: int
    conversation_id: str
    seq: int
    created_at: datetime
    user_text: str


async def turn_summaries(session: AsyncSession, turn_ids: Iterable[int]) -> dict[int, TurnLink]:
    """The stored turns among ``turn_ids`` by id; turns pruned by retention are simply absent."""
    ids = sorted(set(turn_ids))
    if not ids:
        return {}
    rows = await session.execute(
        select(Turn.id, Turn.conversation_id, Turn.seq, Turn.created_at, Turn.user_text).where(
            Turn.id.in_(ids)
        )
    )
    return {row[0]: TurnLink(*row) for row in rows}
