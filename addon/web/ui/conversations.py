"""The conversation list (filters, search, keyset pages) and one conversation's trace."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, tzinfo
from typing import get_args

from aiohttp import web
from multidict import MultiMapping

from addon import keys
from addon.agent.conversation import Source
from addon.store.queries import (
    HANDLED_BY,
    ConversationFilters,
    Cursor,
    conversation_detail,
    known_devices,
    list_conversations,
)
from addon.web.ui.templating import home_timezone, render

MAX_SEARCH_LENGTH = 200
SOURCES: tuple[str, ...] = get_args(Source)
FILTER_FIELDS = (
    "q",
    "source",
    "device",
    "since",
    "until",
    "handled_by",
    "error",
    "flagged",
    "evaluation",
)


async def conversations_view(request: web.Request) -> web.Response:
    """A page of conversations, newest activity first, narrowed by the query string."""
    tz = home_timezone(request)
    filters = parse_filters(request.query, tz)
    after = _cursor(request.query.get("after"))
    before = _cursor(request.query.get("before"))
    store = request.app[keys.STORE]
    await store.writer.flush()  # turns just answered are shown too
    async with store.sessionmaker() as session:
        page = await list_conversations(session, filters, after=after, before=before)
        devices = await known_devices(session)
    form = {name: request.query.get(name, "") for name in FILTER_FIELDS}
    return render(
        request,
        "conversations.html",
        {
            "page": page,
            "form": form,
            "newer_query": _page_query(form, page.newer, "before") if page.newer else None,
            "older_query": _page_query(form, page.older, "after") if page.older else None,
            "filtered": any(form.values()),
            "sources": SOURCES,
            "devices": devices,
            "handled_by_choices": HANDLED_BY,
        },
    )


async def conversation_view(request: web.Request) -> web.Response:
    """Every turn of one conversation as a timeline; 404 for an unknown id."""
    conversation_id = request.match_info["conversation_id"]
    store = request.app[keys.STORE]
    await store.writer.flush()  # turns just answered are shown too
    async with store.sessionmaker() as session:
        detail = await conversation_detail(session, conversation_id)
    return render(
        request, "conversation.html", {"conversation": detail.conversation, "sent": detail.sent}
    )


def parse_filters(query: MultiMapping[str], tz: tzinfo) -> ConversationFilters:
    """The list's filters from the query string; 400 for a value the form cannot produce.

    Dates are days in the home's time zone, ``until`` inclusive. Evaluation runs are shown only
    with ``evaluation=1`` or ``source=eval``.
    """
    handled_by = query.get("handled_by") or None
    if handled_by is not None and handled_by not in HANDLED_BY:
        raise web.HTTPBadRequest(text=f"handled_by must be one of {', '.join(HANDLED_BY)}")
    since = _day(query.get("since"), tz, "since")
    until = _day(query.get("until"), tz, "until")
    return ConversationFilters(
        search=query.get("q", "")[:MAX_SEARCH_LENGTH],
        source=query.get("source") or None,
        evaluation=query.get("evaluation") == "1",
        device=query.get("device") or None,
        since=since,
        until=until + timedelta(days=1) if until is not None else None,
        handled_by=handled_by,
        has_error=query.get("error") == "1",
        flagged=query.get("flagged") == "1",
    )


def _page_query(form: dict[str, str], cursor: Cursor, direction: str) -> dict[str, str]:
    """The query string of a neighbouring page: the same filters plus its cursor."""
    query = {name: value for name, value in form.items() if value}
    query[direction] = cursor.encode()
    return query


def _day(value: str | None, tz: tzinfo, name: str) -> datetime | None:
    if not value:
        return None
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise web.HTTPBadRequest(text=f"{name} must be a date like 2026-11-22") from None
    return datetime.combine(day, time.min, tzinfo=tz)


def _cursor(value: str | None) -> Cursor | None:
    if not value:
        return None
    try:
        return Cursor.decode(value)
    except ValueError:
        raise web.HTTPBadRequest(
            text="that page link is damaged; start from the first page"
        ) from None
