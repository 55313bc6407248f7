"""The Memories page: search and filter what the agent remembers, edit, delete, restore, add.

Thin views over :mod:`addon.store.memories.memories`, in the custom tools pages' manner: every
change is a form POST answered with a redirect, or with the page again and the problem beside its
field (422), so all of it works without script. After each change the memory service, when memory is
on, is told (:data:`addon.keys.MEMORY_CHANGES`), so the next recall sees the change at once.

"Forget everything" is its own page, and works only with the words typed into its form: one
click anywhere cannot remove every memory.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import NoReturn

from aiohttp import web
from multidict import MultiMapping
from sqlalchemy.ext.asyncio import AsyncSession

from addon import keys
from addon.errors import NotFoundError
from addon.store.memories import KINDS, MemoryRecord, memory_upkeep
from addon.store.memories import memories as stored
from addon.store.queries import turn_summaries
from addon.web.ui import notices
from addon.web.ui.forms import text_fields
from addon.web.ui.templating import home_timezone, render
from addon.web.ui.urls import Urls

_LOGGER = logging.getLogger(__name__)

PAGE_SIZE = 100
MAX_SEARCH_LENGTH = 200
MAX_CONTENT = 2000
EXPIRING_WITHIN = timedelta(days=7)
"""The "expiring" filter: memories whose expiry is at most this far away (or already past)."""
CONFIRM_WORDS = "forget everything"
SOURCES = {"conversation": "from a conversation", "manual": "added by hand"}
PINNED: dict[str, bool | None] = {"": None, "1": True, "0": False}
FILTER_FIELDS = ("q", "kind", "source", "pinned", "expiring", "deleted", "person")
# SQLite's integers are 64-bit: a longer id in the URL names no memory.
_MAX_ID = 2**63 - 1


@dataclass(frozen=True, slots=True)
class MemoryFilters:
    """The list's search and filters, as read from its query string."""

    query: str = ""
    kind: str | None = None
    source: str | None = None
    pinned: bool | None = None
    expiring: bool = False
    deleted: bool = False
    offset: int = 0
    person: str | None = None
    """One person's memories (a person entity or user id), or ``household``'s."""


@dataclass(frozen=True, slots=True)
class MemoryEdit:
    """A memory's editable fields, read and checked from the form."""

    content: str
    kind: str
    importance: float
    expires_at: datetime | None
    pinned: bool


async def memories_view(request: web.Request) -> web.Response:
    """A page of memories, the last changed first, narrowed by the query string."""
    return await _list_page(request, parse_filters(request.query))


async def _list_page(
    request: web.Request,
    filters: MemoryFilters,
    *,
    values: Mapping[str, str] | None = None,
    problems: Mapping[str, str] | None = None,
    status: int = 200,
) -> web.Response:
    now = datetime.now(UTC)
    async with request.app[keys.STORE].sessionmaker() as session:
        found = await stored.list_memories(
            session,
            query=filters.query,
            kind=filters.kind,
            source=filters.source,
            pinned=filters.pinned,
            expiring_before=now + EXPIRING_WITHIN if filters.expiring else None,
            deleted=filters.deleted,
            limit=PAGE_SIZE + 1,
            offset=filters.offset,
            person=filters.person,
        )
        total = await stored.count_memories(session)
        people = await stored.memory_people(session)
    form = filter_form(request.query)
    more = len(found) > PAGE_SIZE
    return render(
        request,
        "memories.html",
        {
            "memories": found[:PAGE_SIZE],
            "total": total,
            "form": form,
            "filtered": any(form.values()),
            "older_query": form | {"offset": str(filters.offset + PAGE_SIZE)} if more else None,
            "newer_query": (
                form | {"offset": str(max(filters.offset - PAGE_SIZE, 0))}
                if filters.offset
                else None
            ),
            "kinds": KINDS,
            "sources": SOURCES,
            "people": people,
            "household": stored.HOUSEHOLD,
            "expiring_days": EXPIRING_WITHIN.days,
            "now": now,
            "soon": now + EXPIRING_WITHIN,
            "notice": notices.notice(request, notices.MEMORIES),
            "values": values or {"kind": "fact", "importance": "0.5"},
            "problems": problems or {},
        },
        status=status,
    )


async def memory_view(request: web.Request) -> web.Response:
    """One memory: its fields to edit, where it came from and the turns it was recalled into."""
    memory = await _get_memory(request)
    tz = home_timezone(request)
    return await _memory_page(request, memory, edit_values(memory, tz))


async def _memory_page(
    request: web.Request,
    memory: MemoryRecord,
    values: Mapping[str, str],
    *,
    problems: Mapping[str, str] | None = None,
    status: int = 200,
) -> web.Response:
    now = datetime.now(UTC)
    async with request.app[keys.STORE].sessionmaker() as session:
        recalls = await memory_upkeep.recalled_into(session, memory.id)
        cited = [recall.turn_id for recall in recalls]
        turns = await turn_summaries(
            session, [*cited, memory.turn_id] if memory.turn_id is not None else cited
        )
    return render(
        request,
        "memory.html",
        {
            "memory": memory,
            "source_turn": turns.get(memory.turn_id) if memory.turn_id is not None else None,
            "recalls": [(recall, turns.get(recall.turn_id)) for recall in recalls],
            "kinds": KINDS,
            "sources": SOURCES,
            "now": now,
            "soon": now + EXPIRING_WITHIN,
            "values": values,
            "problems": problems or {},
            "notice": notices.notice(request, notices.MEMORIES),
        },
        status=status,
    )


async def memory_add_view(request: web.Request) -> web.Response:
    """Store a memory written by hand, or show the list again with what is wrong."""
    form = await text_fields(request)
    edit, problems = read_edit(form, home_timezone(request))
    if edit is None:
        return await _list_page(
            request, MemoryFilters(), values=form, problems=problems, status=422
        )
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        memory = await stored.add_memory(
            session,
            edit.content,
            kind=edit.kind,
            importance=edit.importance,
            expires_at=edit.expires_at,
            pinned=edit.pinned,
            source="manual",
        )
    _LOGGER.info("Memory %d added by hand from the panel", memory.id)
    await _changed(request, [memory.id])
    raise web.HTTPSeeOther(_memory_url(request, memory.id, "added"))


async def memory_save_view(request: web.Request) -> web.Response:
    """Save the edited fields, or show the memory again with what is wrong."""
    memory = await _get_memory(request)
    form = await text_fields(request)
    edit, problems = read_edit(form, home_timezone(request))
    if edit is None:
        return await _memory_page(request, memory, form, problems=problems, status=422)
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        await stored.update_memory(
            session,
            memory.id,
            content=edit.content,
            kind=edit.kind,
            importance=edit.importance,
            expires_at=edit.expires_at,
            pinned=edit.pinned,
        )
    _LOGGER.info("Memory %d edited from the panel", memory.id)
    await _changed(request, [memory.id])
    raise web.HTTPSeeOther(_memory_url(request, memory.id, "saved"))


async def memory_delete_view(request: web.Request) -> web.Response:
    """Delete the memory, reversibly: recall stops using it at once."""
    await _mark(request, stored.delete_memory, "deleted")


async def memory_restore_view(request: web.Request) -> web.Response:
    """Bring a deleted memory back."""
    await _mark(request, stored.restore_memory, "restored")


async def _mark(
    request: web.Request,
    change: Callable[[AsyncSession, int], Awaitable[MemoryRecord]],
    done: str,
) -> NoReturn:
    """Apply ``change`` to the memory, tell recall, and go back to where the form came from."""
    memory_id = _id(request)
    form = await text_fields(request)
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        await change(session, memory_id)
    _LOGGER.info("Memory %d %s from the panel", memory_id, done)
    await _changed(request, [memory_id])
    raise web.HTTPSeeOther(_back_url(request, memory_id, done, form))


async def forget_view(request: web.Request) -> web.Response:
    """The confirmation step of "Forget everything": how many, and the words to type."""
    return await _forget_page(request)


async def _forget_page(
    request: web.Request, *, problem: str = "", status: int = 200
) -> web.Response:
    async with request.app[keys.STORE].sessionmaker() as session:
        total = await stored.count_memories(session)
    return render(
        request,
        "memories_forget.html",
        {"total": total, "confirm_words": CONFIRM_WORDS, "problem": problem},
        status=status,
    )


async def forget_confirm_view(request: web.Request) -> web.Response:
    """Remove every memory for good, if the confirmation words were typed."""
    form = await text_fields(request)
    typed = " ".join(form.get("confirm", "").split()).casefold()
    if typed != CONFIRM_WORDS:
        return await _forget_page(
            request,
            problem=f"Nothing was forgotten: type “{CONFIRM_WORDS}” to confirm.",
            status=422,
        )
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        removed = await stored.forget_everything(session)
    _LOGGER.warning("Every memory (%d) forgotten from the panel", removed)
    service = request.app.get(keys.MEMORY_CHANGES)
    if service is not None:
        await service.cleared()
    raise web.HTTPSeeOther(Urls.of(request).page("ui.memories", {notices.DONE: "forgotten"}))


def parse_filters(query: MultiMapping[str]) -> MemoryFilters:
    """The list's filters from the query string; 400 for a value its form cannot produce."""
    kind = query.get("kind") or None
    if kind is not None and kind not in KINDS:
        raise web.HTTPBadRequest(text=f"kind must be one of {', '.join(KINDS)}")
    source = query.get("source") or None
    if source is not None and source not in SOURCES:
        raise web.HTTPBadRequest(text=f"source must be one of {', '.join(SOURCES)}")
    pinned_value = query.get("pinned", "")
    if pinned_value not in PINNED:
        raise web.HTTPBadRequest(text="pinned must be 1 or 0")
    offset = query.get("offset", "0") or "0"
    if not offset.isdigit() or len(offset) > 9:
        raise web.HTTPBadRequest(text="offset must be a whole number")
    return MemoryFilters(
        query=query.get("q", "")[:MAX_SEARCH_LENGTH],
        kind=kind,
        source=source,
        pinned=PINNED[pinned_value],
        expiring=query.get("expiring") == "1",
        deleted=query.get("deleted") == "1",
        offset=int(offset),
        person=(query.get("person") or "")[:255] or None,
    )


def filter_form(query: Mapping[str, str]) -> dict[str, str]:
    """The filters as the form shows them (and links to other pages repeat them)."""
    return {name: query.get(name, "") for name in FILTER_FIELDS}


def read_edit(form: Mapping[str, str], tz: tzinfo) -> tuple[MemoryEdit | None, dict[str, str]]:
    """The edit the form asks for, or None and each field's problem in words."""
    problems: dict[str, str] = {}
    content = form.get("content", "").strip()
    if not content:
        problems["content"] = "Write what to remember."
    elif len(content) > MAX_CONTENT:
        problems["content"] = f"At most {MAX_CONTENT} characters (this is {len(content)})."
    kind = form.get("kind", "")
    if kind not in KINDS:
        problems["kind"] = f"Choose one of {', '.join(KINDS)}."
    importance = _importance(form.get("importance", ""))
    if importance is None:
        problems["importance"] = "A number from 0 to 1, such as 0.5."
    expires_at: datetime | None = None
    written = form.get("expires_at", "").strip()
    if written:
        expires_at = _when(written, tz)
        if expires_at is None:
            problems["expires_at"] = "A date and time such as 2026-12-01 18:00, or nothing."
    if problems or importance is None:
        return None, problems
    return MemoryEdit(content, kind, importance, expires_at, form.get("pinned") == "on"), {}


def edit_values(memory: MemoryRecord, tz: tzinfo) -> dict[str, str]:
    """The form's fields for ``memory``, as :func:`read_edit` reads them back."""
    return {
        "content": memory.content,
        "kind": memory.kind,
        "importance": f"{memory.importance:g}",
        "expires_at": (
            f"{memory.expires_at.astimezone(tz):%Y-%m-%dT%H:%M}" if memory.expires_at else ""
        ),
        "pinned": "on" if memory.pinned else "",
    }


def _importance(value: str) -> float | None:
    try:
        number = float(value.strip().replace(",", "."))
    except ValueError:
        return None
    return number if math.isfinite(number) and 0.0 <= number <= 1.0 else None


def _when(value: str, tz: tzinfo) -> datetime | None:
    """A time written in the home's zone (or with its own offset), in UTC."""
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=tz)
    try:
        return parsed.astimezone(UTC)
    except OverflowError:
        return None


async def _changed(request: web.Request, memory_ids: Sequence[int]) -> None:
    """Tell the memory service (when memory is on) which memories the panel just changed."""
    service = request.app.get(keys.MEMORY_CHANGES)
    if service is not None:
        await service.changed(memory_ids)


async def _get_memory(request: web.Request) -> MemoryRecord:
    async with request.app[keys.STORE].sessionmaker() as session:
        return await stored.get_memory(session, _id(request))


def _id(request: web.Request) -> int:
    raw = request.match_info["memory_id"]
    try:
        memory_id = int(raw)
    except ValueError:
        memory_id = _MAX_ID + 1  # more digits than Python reads: no such memory either
    if memory_id > _MAX_ID:
        raise NotFoundError(f"no memory {raw[:30]}")
    return memory_id


def _memory_url(request: web.Request, memory_id: int, done: str) -> str:
    return Urls.of(request).page("ui.memory", {notices.DONE: done}, memory_id=str(memory_id))


def _back_url(request: web.Request, memory_id: int, done: str, form: Mapping[str, str]) -> str:
    """Back to the list a row's button was pressed in (with its filters), else to the memory."""
    if form.get("back") != "list":
        return _memory_url(request, memory_id, done)
    query = filter_form({k[7:]: v for k, v in form.items() if k[:7] == "filter."})
    return Urls.of(request).page(
        "ui.memories", query | {notices.DONE: done}, fragment="memory-list"
    )
