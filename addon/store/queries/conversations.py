"""The conversation list: filters, full-text search and keyset pagination over (updated_at, id).

Keyset rather than OFFSET pagination because a page deep in a year of conversations must cost
the same as the first: the ``(updated_at, id)`` index is walked from the cursor, never counted
from the top.

Search goes through the FTS5 index ``turns_fts`` with the query built by
:func:`addon.store.file.search.fts_query` (every term quoted, so user input is never FTS syntax). A
conversation matches when one of its turns contains every term, and results keep the list's
order (latest activity first) and cursor. Matching turns are read newest first, in windows of
:data:`SEARCH_WINDOW` rowids (the rowid is the turn id, which grows with time), starting at the
page's cursor, until a page is full or :data:`SEARCH_MAX_WINDOWS` windows were read. Ranked
search is not used: ``ORDER BY rank`` scores every match before the first row comes back, which
took half a second for a word in one turn out of eight in a million, while a rowid-ordered read
stops after the window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from sqlalchemy import ColumnElement, Select, and_, exists, func, or_, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from addon.store.file import fts_query
from addon.store.models import Conversation, ToolCall, Turn
from addon.store.rows import record_of

PAGE_SIZE = 50
# Matching turns read per step of a search, and how many steps a page may take: 20,000 matching
# turns at most, which keeps a page well under 100 ms on a million turns. A search so broad
# that filters then discard all of those says so on the page (``search_capped``).
SEARCH_WINDOW = 1000
SEARCH_MAX_WINDOWS = 20
# Turns finish (and get their ids) in roughly the order they start; a cursor's time is mapped to
# a turn id through the latest this many turns that started before it, allowing for overlap.
_BOUND_LOOKBACK = 200
HANDLED_BY = ("local", "llm", "failed", "tool")
_CURSOR_SEPARATOR = "_"
_DISTINCT_DEVICES = text(
    """
    WITH RECURSIVE device(id) AS (
        SELECT min(device_id) FROM conversations
        UNION ALL
        SELECT (SELECT min(device_id) FROM conversations WHERE device_id > device.id)
        FROM device WHERE device.id IS NOT NULL
    )
    SELECT id FROM device WHERE id IS NOT NULL LIMIT :limit
    """
)
_NEWEST_MATCHES = text(
    "SELECT rowid FROM turns_fts WHERE turns_fts MATCH :match ORDER BY rowid DESC LIMIT :limit"
)
_OLDER_MATCHES = text(
    "SELECT rowid FROM turns_fts WHERE turns_fts MATCH :match AND rowid <= :bound "
    "ORDER BY rowid DESC LIMIT :limit"
)
_NEWER_MATCHES = text(
    "SELECT rowid FROM turns_fts WHERE turns_fts MATCH :match AND rowid >= :bound "
    "ORDER BY rowid ASC LIMIT :limit"
)


EVALUATION_SOURCE = "eval"
"""The source of the turns an evaluation run asks of the agent: tests, not the home's use."""


@dataclass(frozen=True, slots=True)
class ConversationFilters:
    """What the list is narrowed to; every field left at its default filters nothing.

    Except evaluation: its conversations are left out unless ``evaluation`` is set or ``source``
    asks for them, so a run of a hundred tasks does not bury what the household said.
    """

    search: str = ""
    source: str | None = None
    evaluation: bool = False
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


LastStatus = Literal["waiting", "confirmed", "cancelled", "failed", "answered"]
"""How a conversation's latest turn ended, as the list shows it (see :class:`LastTurn`)."""


@dataclass(frozen=True, slots=True)
class LastTurn:
    """A conversation's latest turn as the list shows it: the reply and what came of it.

    ``status`` is a :data:`LastStatus`: "waiting" (a question the gate asked is still
    open), "confirmed" or "cancelled" (a question answered; one set aside by a new request
    gives way to that request's own status), "failed" (nothing the turn tried happened, or it
    broke), or "answered". Four conversations that all say "unlock the front door" then read
    apart at a glance.
    """

    reply_text: str
    status: LastStatus
    who: str = ""
    """Who asked it: the person and the satellite, "unknown" for what the path could not tell;
    empty for a turn stored before the actor was recorded."""


_GATE_STATUS: dict[str, LastStatus] = {
    "Held for confirmation": "waiting",
    "Confirmed": "confirmed",
    "Cancelled": "cancelled",
    "Wrong PIN": "waiting",
    "Expired": "cancelled",
    "Locked out": "cancelled",
}


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
    direct_call: bool = False
    """A tool an MCP client called directly: its title is the tool and its arguments."""
    last: LastTurn | None = None
    """How the conversation ended so far: its last turn's reply and what came of it."""


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
    """A page of conversations, latest activity first.

    ``after`` gives the page of older rows following a cursor, ``before`` the page of newer rows
    preceding one; with neither, the newest page.
    """
    backwards = before is not None and after is None
    query = _filtered(filters)
    if after is not None:
        query = query.where(_older_than(after))
    elif before is not None:
        query = query.where(_newer_than(before))
    if backwards:
        query = query.order_by(Conversation.updated_at.asc(), Conversation.id.asc())
    else:
        query = query.order_by(Conversation.updated_at.desc(), Conversation.id.desc())
    query = query.limit(limit + 1)
    match_ids: list[int] = []
    capped = False
    if filters.search.strip():
        found, match_ids, capped = await _search(
            session,
            query,
            fts_query(filters.search),
            after or before,
            wanted=limit + 1,
            backwards=backwards,
        )
    else:
        found = list((await session.execute(query)).scalars())
    more = len(found) > limit
    found = found[:limit]
    if backwards:
        found.reverse()
    if not found:
        return ConversationPage([], None, None, capped)
    matches = await _matches(session, match_ids, [c.id for c in found]) if match_ids else {}
    direct = await _direct_calls(session, [c.id for c in found])
    endings = await _last_turns(session, [c.id for c in found])
    first, last = found[0], found[-1]
    # Going forwards there is a newer page exactly when we started from a cursor; going
    # backwards there is an older one, and a newer one only if more rows were found.
    has_newer = more if backwards else after is not None
    has_older = True if backwards else more
    return ConversationPage(
        [
            _row(
                conversation,
                matches.get(conversation.id),
                conversation.id in direct,
                endings.get(conversation.id),
            )
            for conversation in found
        ],
        newer=Cursor(first.updated_at, first.id) if has_newer else None,
        older=Cursor(last.updated_at, last.id) if has_older else None,
        search_capped=capped,
    )


async def _search(
    session: AsyncSession,
    query: Select[Conversation],
    match: str,
    cursor: Cursor | None,
    *,
    wanted: int,
    backwards: bool,
) -> tuple[list[Conversation], list[int], bool]:
    """Run ``query`` over conversations with a matching turn, widening the window as needed.

    Returns the conversations, the matching turn ids read, and whether the window limit stopped
    the search before ``wanted`` conversations were found.
    """
    if not match:
        return [], [], False
    bound: int | None = None
    if cursor is not None:
        low, high = await _turn_bounds(session, cursor)
        bound = low if backwards else high
    turn_ids: list[int] = []
    found: list[Conversation] = []
    for _ in range(SEARCH_MAX_WINDOWS):
        window = await _matching_turns(session, match, bound, backwards=backwards)
        turn_ids.extend(window)
        if window:
            matching = select(Turn.conversation_id).where(Turn.id.in_(turn_ids))
            found = list(
                (await session.execute(query.where(Conversation.id.in_(matching)))).scalars()
            )
        if len(window) < SEARCH_WINDOW or len(found) >= wanted:
            return found, turn_ids, False
        bound = window[-1] + (1 if backwards else -1)
    return found, turn_ids, True


async def _matching_turns(
    session: AsyncSession, match: str, bound: int | None, *, backwards: bool
) -> list[int]:
    """One window of matching turn ids from ``bound`` on, in the direction of the page."""
    params: dict[str, object] = {"match": match, "limit": SEARCH_WINDOW}
    if bound is None:
        statement = _NEWEST_MATCHES
    else:
        statement = _NEWER_MATCHES if backwards else _OLDER_MATCHES
        params["bound"] = bound
    return [int(turn_id) for turn_id in (await session.execute(statement, params)).scalars()]


async def _turn_bounds(session: AsyncSession, cursor: Cursor) -> tuple[int, int]:
    """The lowest and highest ids of the latest turns started by the cursor's time.

    Every turn of a conversation older than the cursor started by then, so its id is at most
    the high bound; newer conversations' turns are looked for from the low bound on (a turn that
    started long before its conversation's latest activity may be missed there, which only
    affects the "newer" direction of a search).
    """
    latest = (
        select(Turn.id)
        .where(Turn.created_at <= cursor.updated_at)
        .order_by(Turn.created_at.desc(), Turn.id.desc())
        .limit(_BOUND_LOOKBACK)
        .subquery()
    )
    result = await session.execute(select(func.min(latest.c.id), func.max(latest.c.id)))
    low, high = result.one()
    return (int(low), int(high)) if low is not None else (0, 0)


async def known_devices(session: AsyncSession, limit: int = 200) -> list[str]:
    """The device ids that occur, for the filter form's suggestions.

    A loose index scan (one index seek per distinct value, on the index led by ``device_id``),
    so it costs the same with a hundred conversations per device as with one.
    """
    result = await session.execute(_DISTINCT_DEVICES, {"limit": limit})
    return [str(device) for device in result.scalars()]


def _filtered(filters: ConversationFilters) -> Select[Conversation]:
    query = select(Conversation)
    if filters.source:
        query = query.where(Conversation.source == filters.source)
    elif not filters.evaluation:
        query = query.where(Conversation.source != EVALUATION_SOURCE)
    if filters.device:
        query = query.where(
            or_(
                Conversation.device_id == filters.device,
                Conversation.satellite_id == filters.device,
            )
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


def _older_than(cursor: Cursor) -> ColumnElement[bool]:
    # Written as a range on updated_at plus a tie-break, which SQLite walks on the index.
    return and_(
        Conversation.updated_at <= cursor.updated_at,
        or_(Conversation.updated_at < cursor.updated_at, Conversation.id < cursor.id),
    )


def _newer_than(cursor: Cursor) -> ColumnElement[bool]:
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


async def _direct_calls(session: AsyncSession, conversation_ids: Sequence[str]) -> set[str]:
    """Which of the listed conversations record a tool an MCP client called directly."""
    result = await session.execute(
        select(Turn.conversation_id)
        .where(Turn.conversation_id.in_(conversation_ids), Turn.handled_by == "tool")
        .distinct()
    )
    return set(result.scalars())


async def _last_turns(
    session: AsyncSession, conversation_ids: Sequence[str]
) -> dict[str, LastTurn]:
    """Each listed conversation's latest turn: its reply and status (two indexed reads)."""
    latest = (
        select(Turn.conversation_id, func.max(Turn.seq).label("seq"))
        .where(Turn.conversation_id.in_(conversation_ids))
        .group_by(Turn.conversation_id)
        .subquery()
    )
    turns = (
        await session.execute(
            select(
                Turn.id,
                Turn.conversation_id,
                Turn.reply_text,
                Turn.handled_by,
                Turn.error,
                Turn.outcome,
                Turn.actor,
            ).join(
                latest,
                and_(Turn.conversation_id == latest.c.conversation_id, Turn.seq == latest.c.seq),
            )
        )
    ).all()
    gate: dict[int, LastStatus] = {}
    if turns:
        records = await session.execute(
            select(ToolCall.turn_id, ToolCall.result)
            .where(
                ToolCall.turn_id.in_([row.id for row in turns]),
                ToolCall.name == "confirmation",
                ToolCall.call_id == "confirmation",
            )
            .order_by(ToolCall.seq)
        )
        for turn_id, result in records.all():
            said = _GATE_STATUS.get(str((result or {}).get("confirmation")))
            if said is not None:
                gate[turn_id] = said  # the turn's last word from the gate
    last: dict[str, LastTurn] = {}
    for row in turns:
        failed = row.handled_by == "failed" or row.error is not None or row.outcome == "failed"
        status: LastStatus = gate.get(row.id) or ("failed" if failed else "answered")
        last[row.conversation_id] = LastTurn(row.reply_text, status, _who(row.actor))
    return last


def _who(actor: object) -> str:
    """The stored actor as the list names it: "person Anna · satellite Kids Room Speaker"."""
    if not isinstance(actor, dict):
        return ""
    names = []
    for part in ("person", "satellite"):
        value = actor.get(part)
        name = value.get("name", "unknown") if isinstance(value, dict) else "unknown"
        names.append(f"{part} {name}")
    return " · ".join(names)


def _row(
    conversation: Conversation,
    match: SearchMatch | None,
    direct_call: bool,
    last: LastTurn | None = None,
) -> ConversationRow:
    return record_of(ConversationRow, conversation, match=match, direct_call=direct_call, last=last)
