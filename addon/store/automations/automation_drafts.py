"""Drafted automations: kept as drafts, approved, discarded or deleted, never lost.

The only writer of ``automation_drafts``. A draft is written when the agent drafts it and
changes state when a person approves, discards or deletes it (on the Automations page, or by a
spoken "yes"); a deleted automation keeps its row, so the page and the trace can say what was
approved and by whom. The configuration is kept as the plain mapping Home Assistant stores:
the store imports nothing above it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from addon.store.models import AutomationDraft, utcnow
from addon.store.rows import record_of, stored_row
from addon.text import JsonValue

STATES = ("draft", "approved", "discarded", "deleted")
CONFIRM_BY = ("yes", "pin", "panel")


@dataclass(frozen=True, slots=True)
class StoredDraft:
    """One draft as the page, the agent and the trace read it."""

    id: int
    created_at: datetime
    updated_at: datetime
    conversation_id: str | None
    summary: str
    config: Mapping[str, JsonValue]
    entities: tuple[str, ...]
    covered: str | None
    confirm_by: str
    state: str
    automation_id: str | None
    approved_by: str | None
    approved_at: datetime | None


class DraftRecords:
    """The drafts' rows: added, read, changed; each write in its own transaction."""

    def __init__(self, sessionmaker: async_sessionmaker[AsyncSession]) -> None:
        self._sessionmaker = sessionmaker

    async def add(
        self,
        summary: str,
        config: Mapping[str, JsonValue],
        entities: Sequence[str],
        *,
        covered: str | None,
        confirm_by: str,
        conversation_id: str | None,
    ) -> StoredDraft:
        """Keep a new draft (state ``draft``)."""
        now = utcnow()
        row = AutomationDraft(
            created_at=now,
            updated_at=now,
            conversation_id=conversation_id,
            summary=summary,
            config=dict(config),
            entities=list(entities),
            covered=covered,
            confirm_by=_confirm_by(confirm_by),
            state="draft",
        )
        async with self._sessionmaker.begin() as session:
            session.add(row)
            await session.flush()
            return _stored(row)

    async def get(self, draft_id: int) -> StoredDraft:
        """The draft ``draft_id``; NotFoundError when there is none."""
        async with self._sessionmaker() as session:
            return _stored(await _row(session, draft_id))

    async def listed(self, states: Sequence[str] = STATES) -> list[StoredDraft]:
        """The drafts in ``states``, the newest first."""
        async with self._sessionmaker() as session:
            rows = await session.scalars(
                select(AutomationDraft)
                .where(AutomationDraft.state.in_(list(states)))
                .order_by(AutomationDraft.id.desc())
            )
            return [_stored(row) for row in rows]

    async def revise(
        self,
        draft_id: int,
        summary: str,
        config: Mapping[str, JsonValue],
        entities: Sequence[str],
        *,
        covered: str | None,
        confirm_by: str,
    ) -> StoredDraft:
        """Replace a draft's configuration (an edit on the page), judged again by the caller."""
        async with self._sessionmaker.begin() as session:
            row = await _row(session, draft_id)
            row.summary, row.config, row.entities = summary, dict(config), list(entities)
            row.covered, row.confirm_by = covered, _confirm_by(confirm_by)
            row.updated_at = utcnow()
            return _stored(row)

    async def set_state(
        self,
        draft_id: int,
        state: str,
        *,
        automation_id: str | None = None,
        approved_by: str | None = None,
    ) -> StoredDraft:
        """Move a draft to ``state``; an approval records the id and who approved it."""
        if state not in STATES:
            raise ValueError(f"unknown draft state {state!r}")
        async with self._sessionmaker.begin() as session:
            row = await _row(session, draft_id)
            row.state = state
            row.updated_at = utcnow()
            if state == "approved":
                row.automation_id = automation_id
                row.approved_by = approved_by
                row.approved_at = row.updated_at
            return _stored(row)


async def _row(session: AsyncSession, draft_id: int) -> AutomationDraft:
    return await stored_row(session, AutomationDraft, draft_id, f"no automation draft {draft_id}")


def _confirm_by(value: str) -> str:
    if value not in CONFIRM_BY:
        raise ValueError(f"a draft is approved by one of {', '.join(CONFIRM_BY)}")
    return value


def _stored(row: AutomationDraft) -> StoredDraft:
    return record_of(
        StoredDraft, row, config=dict(row.config or {}), entities=tuple(row.entities or ())
    )
