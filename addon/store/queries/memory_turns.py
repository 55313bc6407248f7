"""The turns a memory points at, as the Memories page names them: in one query for them all.

A memory cites the turn it was learned from and the turns it was recalled into by id; the page
shows each as a link labelled with what was said, so the user sees why without opening it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from addon.store.models import Turn


@dataclass(frozen=True, slots=True)
class TurnSummary:
    """Enough of a turn to link to it in its conversation's trace and say what it was."""

    id: int
    conversation_id: str
    seq: int
    created_at: datetime
    user_text: str


async def turn_summaries(session: AsyncSession, turn_ids: Iterable[int]) -> dict[int, TurnSummary]:
    """The stored turns among ``turn_ids`` by id; turns pruned by retention are simply absent."""
    ids = sorted(set(turn_ids))
    if not ids:
        return {}
    rows = await session.execute(
        select(Turn.id, Turn.conversation_id, Turn.seq, Turn.created_at, Turn.user_text).where(
            Turn.id.in_(ids)
        )
    )
    return {row[0]: TurnSummary(*row) for row in rows}
