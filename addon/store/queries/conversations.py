"""The conversation list: filters, full-text search and keyset pagination over (updated_at, id).

Keyset rather than OFFSET pagination because a page deep in a year of conversations must cost
the same as the first: the ``(updated_at, id)`` index is walked from the cursor, never counted
from the top. Search goes through the FTS5 index (:mod:`addon.store.search`); the best
:data:`SEARCH_TURN_LIMIT` matching turns decide which conversations qualify, and those are then
listed newest first like any other filter, so paging through results uses the same cursor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Select, and_, exists, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from addon.store.models import Conversation, Turn
from addon.store.search import search_turn_ids

PAGE_SIZE = 50
# How many matching turns a search considers. A home's searches are specific ("garage door");
# a word in every other turn still answers at once, and the page says the results were capped.
SEARCH_TURN_LIMIT = 1000
HANDLED_BY = ("local", "llm", "failed")
_CURSOR_SEPARATOR = "_"


@dataclass(frozen=True, slots=True)
class ConversationFilters:
    """What the list is narrowed to; every field left at its default filters nothing."""

    search: str = ""
    source: str | None = None
    device: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    handled_by: str | None = None
    has_error: bool = False
    flagged: bool = False


@dataclass(frozen=True, slots=True)
class Cursor:
    """A position in the list: the (updated_at, id) of the row next to it."""

    updated_at: datetime
    id: str

    def encode(self) -> str:
        """The cursor as a URL parameter: naive UTC ISO time, ``_``, the conversation id."""
        stamp = self.updated_at.astimezone(UTC).replace(tzinfo=None).isoformat()
        return f"{stamp}{_CURSOR_SEPARATOR}{self.id}"

    @classmethod
    def decode(cls, text: str) -> Cursor:
        """Parse :meth:`encode`'s output; raises ValueError for anything else."""
        stamp, separator, conversation_id = text.partition(_CURSOR_SEPARATOR)
        if not separator or not conversation_id:
            raise ValueError(f"not a list cursor: {text[:80]!r}")
        return cls(datetime.fromisoformat(stamp).replace(tzinfo=UTC), conversation_id)


@dataclass(frozen=True, slots=True)
class SearchMatch:
    """The best-ranked turn of a conversation that matched the search."""

    turn_id: int
    seq: int
    user_text: str
    reply_text: str


@dataclass(frozen=True, slots=True)
class ConversationRow:
    """One line of the list."""

    id: str
    started_at: datetime
    updated_at: datetime
    source: str
    device_id: str | None
    satellite_id: str | None
    title: str
    turn_count: int
    error_count: int
    flagged_count: int
    match: SearchMatch | None = None


@dataclass(frozen=True, slots=True)
class ConversationPage:
    """A page of rows plus the cursors of the pages on either side (None at either end)."""

    rows: list[ConversationRow]
    newer: Cursor | None
    older: Cursor | None
    search_capped: bool = False


async def list_conversations(
    session: AsyncSession,
    filters: ConversationFilters,
    *,
    after: Cursor | None = None,
    before: Cursor | None = None,
    limit: int = PAGE_SIZE,
) -> ConversationPage:
    """A page of conversations, newest activity first.

    ``after`` gives the page of older rows following a cursor, ``before`` the page of newer rows
    preceding one; with neither, the newest page.
    """
    query = _filtered(filters)
    search_ids: list[int] = []
    if filters.search.strip():
        search_ids = await search_turn_ids(session, filters.search, SEARCH_TURN_LIMIT)
        if not search_ids:
            return ConversationPage([], None, None)
        query = query.where(
            Conversation.id.in_(select(Turn.conversation_id).where(Turn.id.in_(search_ids)))
        )
    backwards = before is not None and after is None
    if after is not None:
        query = query.where(_older_than(after))
    elif before is not None:
        query = query.where(_newer_than(before))
    if backwards:
        query = query.order_by(Conversation.updated_at.asc(), Conversation.id.asc())
    else:
        query = query.order_by(Conversation.updated_at.desc(), Conversation.id.desc())
    found = list((await session.execute(query.limit(limit + 1))).scalars())
    more = len(found) > limit
    found = found[:limit]
    if backwards:
        found.reverse()
    matches = await _matches(session, search_ids, [c.id for c in found]) if search_ids else {}
    rows = [_row(conversation, matches.get(conversation.id)) for conversation in found]
    if not rows:
        return ConversationPage([], None, None)
    first, last = found[0], found[-1]
    # Going forwards there is a newer page exactly when we started from a cursor; going
    # backwards there is an older one, and a newer one only if more rows were found.
    has_newer = more if backwards else after is not None
    has_older = True if backwards else more
    return ConversationPage(
        rows,
        newer=Cursor(first.updated_at, first.id) if has_newer else None,
        older=Cursor(last.updated_at, last.id) if has_older else None,
        search_capped=len(search_ids) >= SEARCH_TURN_LIMIT,
    )


async def known_sources_and_devices(session: AsyncSession) -> tuple[list[str], list[str]]:
    """The sources and device ids that occur, for the filter form's choices.

    Both come from small indexes (``device_id`` leads one; sources are few), so this stays cheap
    on a large database.
    """
    sources = await session.execute(select(Conversation.source).distinct().limit(20))
    devices = await session.execute(
        select(Conversation.device_id)
        .where(Conversation.device_id.is_not(None))
        .distinct()
        .order_by(Conversation.device_id)
        .limit(200)
    )
    return sorted(str(s) for s in sources.scalars()), [str(d) for d in devices.scalars()]


def _filtered(filters: ConversationFilters) -> Select[tuple[Conversation]]:
    query = select(Conversation)
    if filters.source:
        query = query.where(Conversation.source == filters.source)
    if filters.device:
        query = query.where(
            or_(Conversation.device_id == filters.device, Conversation.satellite_id == filters.device)
        )
    if filters.since is not None:
        query = query.where(Conversation.updated_at >= filters.since)
    if filters.until is not None:
        query = query.where(Conversation.updated_at < filters.until)
    if filters.handled_by:
        query = query.where(
            exists().where(
                Turn.conversation_id == Conversation.id, Turn.handled_by == filters.handled_by
            )
        )
    if filters.has_error:
        query = query.where(Conversation.error_count > 0)
    if filters.flagged:
        query = query.where(Conversation.flagged_count > 0)
    return query


def _older_than(cursor: Cursor) -> object:
    # Written as a range on updated_at plus a tie-break, which SQLite walks on the index.
    return and_(
        Conversation.updated_at <= cursor.updated_at,
        or_(Conversation.updated_at < cursor.updated_at, Conversation.id < cursor.id),
    )


def _newer_than(cursor: Cursor) -> object:
    return and_(
        Conversation.updated_at >= cursor.updated_at,
        or_(Conversation.updated_at > cursor.updated_at, Conversation.id > cursor.id),
    )


async def _matches(
    session: AsyncSession, turn_ids: Sequence[int], conversation_ids: Sequence[str]
) -> dict[str, SearchMatch]:
    """The best-ranked matching turn of each listed conversation."""
    if not conversation_ids:
        return {}
    rank = {turn_id: position for position, turn_id in enumerate(turn_ids)}
    result = await session.execute(
        select(Turn.id, Turn.conversation_id, Turn.seq, Turn.user_text, Turn.reply_text).where(
            Turn.id.in_(turn_ids), Turn.conversation_id.in_(conversation_ids)
        )
    )
    best: dict[str, SearchMatch] = {}
    for turn_id, conversation_id, seq, user_text, reply_text in result.all():
        current = best.get(conversation_id)
        if current is None or rank[turn_id] < rank[current.turn_id]:
            best[conversation_id] = SearchMatch(turn_id, seq, user_text, reply_text)
    return best


def _row(conversation: Conversation, match: SearchMatch | None) -> ConversationRow:
    return ConversationRow(
        id=conversation.id,
        started_at=conversation.started_at,
        updated_at=conversation.updated_at,
        source=conversation.source,
        device_id=conversation.device_id,
        satellite_id=conversation.satellite_id,
        title=conversation.title,
        turn_count=conversation.turn_count,
        error_count=conversation.error_count,
        flagged_count=conversation.flagged_count,
        match=match,
    )
