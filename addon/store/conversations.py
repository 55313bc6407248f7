"""Writing turns and reading conversation history: the agent's side of the store.

Functions take the session first and run inside the caller's transaction, so a turn, its model
calls and its tool calls land together or not at all.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from sqlalchemy import (
    ScalarSelect,
    String,
    bindparam,
    func,
    insert,
    literal_column,
    select,
    update,
)
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from addon.store.models import Conversation, LLMCall, LLMPayload, ToolCall, Turn, utcnow
from addon.store.payloads import Detacher, KnownPayloads, Payload

_LOGGER = logging.getLogger(__name__)

TITLE_LENGTH = 120


@dataclass(slots=True)
class LLMCallRecord:
    """One model call of a turn, ready to store."""

    started_at: datetime
    model: str
    streamed: bool
    request_messages: list[dict[str, Any]]
    request_tools: list[dict[str, Any]]
    response: dict[str, Any]
    prompt_tokens: int
    completion_tokens: int
    ttft_ms: float | None
    duration_ms: float
    finish_reason: str | None
    error: str | None


@dataclass(slots=True)
class ToolCallRecord:
    """One tool call of a turn; ``llm_call`` indexes the turn's model calls (None if local)."""

    started_at: datetime
    call_id: str
    name: str
    arguments: dict[str, Any]
    result: dict[str, Any]
    duration_ms: float
    executor: str
    error: str | None
    llm_call: int | None


@dataclass(slots=True)
class TurnRecord:
    """A finished turn with everything it did."""

    conversation_id: str
    source: str
    device_id: str | None
    satellite_id: str | None
    language: str
    created_at: datetime
    user_text: str
    reply_text: str
    handled_by: str
    dry_run: bool
    error: str | None
    duration_ms: float
    messages: list[dict[str, Any]]
    timings: dict[str, float]
    llm_calls: list[LLMCallRecord] = field(default_factory=list)
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    outcome: str = "unchecked"
    outcome_detail: dict[str, Any] = field(default_factory=dict)
    flagged: bool = False


async def record_turn(session: AsyncSession, record: TurnRecord) -> int:
    """Store a turn (creating its conversation on first use); returns the turn id.

    This runs on the reply's path, so it is a handful of Core statements over the session's
    connection, each one trip to the driver's thread whatever the number of rows: upsert the
    conversation, insert the turn, the system prompts and tool lists not known to be stored
    (:mod:`addon.store.payloads`), the model calls and the tool calls. ORM objects would cost a
    flush per dependency level and the bookkeeping of a unit of work nobody reads; in exchange,
    the rows written here are not in the session's identity map. Everything stays in the
    caller's transaction.
    """
    connection = await session.connection()
    await connection.execute(UPSERT_CONVERSATION, _conversation_row(record))
    inserted = await connection.execute(INSERT_TURN, _turn_row(record))
    turn_id = int(inserted.lastrowid)
    llm_ids = await _insert_llm_calls(connection, turn_id, record.llm_calls)
    if record.tool_calls:
        await connection.execute(
            insert(ToolCall),
            [
                {
                    "turn_id": turn_id,
                    "llm_call_id": llm_ids[tool.llm_call] if tool.llm_call is not None else None,
                    "seq": seq_no,
                    "call_id": tool.call_id,
                    "started_at": tool.started_at,
                    "name": tool.name,
                    "arguments": tool.arguments,
                    "result": tool.result,
                    "duration_ms": tool.duration_ms,
                    "executor": tool.executor,
                    "error": tool.error,
                }
                for seq_no, tool in enumerate(record.tool_calls, start=1)
            ],
        )
    return turn_id


# A conversation's first turn creates it; every later one bumps its counters.
_upsert = sqlite_insert(Conversation)
UPSERT_CONVERSATION: Final = _upsert.on_conflict_do_update(
    index_elements=[Conversation.id],
    set_={
        Conversation.turn_count: Conversation.turn_count + 1,
        Conversation.updated_at: _upsert.excluded.updated_at,
        Conversation.error_count: Conversation.error_count + _upsert.excluded.error_count,
        Conversation.flagged_count: Conversation.flagged_count + _upsert.excluded.flagged_count,
    },
)
# The turn's number is the count the upsert just left, read inside the insert; the id comes
# from the cursor's lastrowid. Neither needs rows fetched back, which would cost a round trip.
INSERT_TURN: Final = insert(Turn).values(
    seq=select(Conversation.turn_count)
    .where(Conversation.id == bindparam("numbered_in"))
    .scalar_subquery()
)
INSERT_PAYLOADS: Final = sqlite_insert(LLMPayload).on_conflict_do_nothing(
    index_elements=[LLMPayload.hash]
)


def _stored_payloads() -> ScalarSelect[int]:
    """How many of the payloads a new ``llm_calls`` row references exist, for its RETURNING.

    The row's columns are named in raw SQL because SQLAlchemy does not correlate a subquery
    inside RETURNING (it would add ``llm_calls`` to the subquery's FROM). A count rather than
    ``hash IS NULL OR EXISTS (...)``: SQLite 3.40 answers ``IS NULL`` wrongly inside RETURNING
    on a table whose rowid alias is declared NOT NULL, as ``llm_calls.id`` is.
    """
    table = LLMCall.__tablename__
    referenced = [
        literal_column(f"{table}.{column.key}", String())
        for column in (LLMCall.system_prompt_hash, LLMCall.tools_hash)
    ]
    return (
        select(func.count())
        .select_from(LLMPayload)
        .where(LLMPayload.hash.in_(referenced))
        .scalar_subquery()
    )


# The ids come back for the tool calls to point at; the count of stored payloads each row
# references catches a wrong KnownPayloads at no extra round trip.
INSERT_LLM_CALLS: Final = insert(LLMCall).returning(LLMCall.id, LLMCall.seq, _stored_payloads())


def _conversation_row(record: TurnRecord) -> dict[str, Any]:
    """The conversation as its first turn creates it (later turns take only the counters)."""
    return {
        "id": record.conversation_id,
        "started_at": record.created_at,
        "updated_at": record.created_at,
        "source": record.source,
        "device_id": record.device_id,
        "satellite_id": record.satellite_id,
        "language": record.language,
        "title": record.user_text[:TITLE_LENGTH],
        "turn_count": 1,
        "error_count": 0 if record.error is None else 1,
        "flagged_count": 1 if record.flagged else 0,
    }


def _turn_row(record: TurnRecord) -> dict[str, Any]:
    return {
        "conversation_id": record.conversation_id,
        "numbered_in": record.conversation_id,
        "created_at": record.created_at,
        "user_text": record.user_text,
        "reply_text": record.reply_text,
        "handled_by": record.handled_by,
        "language": record.language,
        "dry_run": record.dry_run,
        "error": record.error,
        "duration_ms": record.duration_ms,
        "prompt_tokens": sum(call.prompt_tokens for call in record.llm_calls),
        "completion_tokens": sum(call.completion_tokens for call in record.llm_calls),
        "messages": record.messages,
        "timings": record.timings,
        "outcome": record.outcome,
        "outcome_detail": record.outcome_detail,
        "flagged": record.flagged,
    }


async def _insert_llm_calls(
    connection: AsyncConnection, turn_id: int, calls: list[LLMCallRecord]
) -> list[int]:
    """Store a turn's model calls, their system prompts and tool lists once; returns their ids."""
    if not calls:
        return []
    detacher = Detacher()
    requests = [detacher.detach(call.request_messages, call.request_tools) for call in calls]
    known = KnownPayloads.of(connection)
    unknown = [payload for digest, payload in detacher.payloads.items() if digest not in known]
    if unknown:
        await _store_payloads(connection, unknown, known)
    result = await connection.execute(
        INSERT_LLM_CALLS,
        [
            {
                "turn_id": turn_id,
                "seq": seq_no,
                "started_at": call.started_at,
                "model": call.model,
                "streamed": call.streamed,
                "request_messages": request.messages,
                "request_tools": request.tools,
                "system_prompt_hash": request.system_prompt_hash,
                "tools_hash": request.tools_hash,
                "response": call.response,
                "prompt_tokens": call.prompt_tokens,
                "completion_tokens": call.completion_tokens,
                "ttft_ms": call.ttft_ms,
                "duration_ms": call.duration_ms,
                "finish_reason": call.finish_reason,
                "error": call.error,
            }
            for seq_no, (call, request) in enumerate(zip(calls, requests, strict=True), start=1)
        ],
    )
    ids: dict[int, int] = {}
    all_stored = True
    for call_id, seq_no, stored in result:
        ids[seq_no] = call_id
        request = requests[seq_no - 1]
        referenced = {request.system_prompt_hash, request.tools_hash} - {None}
        all_stored = all_stored and stored == len(referenced)
    if not all_stored:
        # Remembered as stored, yet gone: rolled back or pruned since. Storing them now, in
        # this transaction, leaves no call pointing at nothing.
        _LOGGER.debug("Payloads believed stored were missing; storing them again")
        await _store_payloads(connection, list(detacher.payloads.values()), known)
    return [ids[seq_no] for seq_no in range(1, len(calls) + 1)]


async def _store_payloads(
    connection: AsyncConnection, payloads: list[Payload], known: KnownPayloads
) -> None:
    """Insert the payloads that are not stored yet (an existing hash is left as it is)."""
    created_at = utcnow()
    await connection.execute(
        INSERT_PAYLOADS, [payload.row() | {"created_at": created_at} for payload in payloads]
    )
    known.add(payload.hash for payload in payloads)


async def set_outcome(
    session: AsyncSession, turn_id: int, outcome: str, detail: dict[str, Any], *, flagged: bool
) -> None:
    """Record the outcome check of a turn; a flag also counts on its conversation."""
    turn = await session.get(Turn, turn_id)
    if turn is None:
        return
    newly_flagged = flagged and not turn.flagged
    turn.outcome, turn.outcome_detail, turn.flagged = outcome, detail, flagged
    if newly_flagged:
        await session.execute(
            update(Conversation)
            .where(Conversation.id == turn.conversation_id)
            .values(flagged_count=Conversation.flagged_count + 1)
        )


async def recent_conversation(
    session: AsyncSession, *, device_id: str | None, satellite_id: str | None, since: datetime
) -> str | None:
    """The conversation a device or satellite last used after ``since``, if any."""
    if device_id is None and satellite_id is None:
        return None
    query = select(Conversation.id).where(Conversation.updated_at >= since)
    if device_id is not None:
        query = query.where(Conversation.device_id == device_id)
    else:
        query = query.where(Conversation.satellite_id == satellite_id)
    query = query.order_by(Conversation.updated_at.desc()).limit(1)
    return (await session.execute(query)).scalar_one_or_none()


async def history_messages(
    session: AsyncSession, conversation_id: str, *, max_turns: int
) -> list[list[dict[str, Any]]]:
    """The messages of the last ``max_turns`` turns, oldest turn first."""
    if max_turns <= 0:
        return []
    query = (
        select(Turn.messages)
        .where(Turn.conversation_id == conversation_id)
        .order_by(Turn.seq.desc())
        .limit(max_turns)
    )
    rows = (await session.execute(query)).scalars().all()
    return [list(messages) for messages in reversed(rows)]


async def conversation_exists(session: AsyncSession, conversation_id: str) -> bool:
    """Whether a conversation id is known."""
    query = select(func.count()).select_from(Conversation).where(Conversation.id == conversation_id)
    return bool((await session.execute(query)).scalar_one())


def now() -> datetime:
    """The store's notion of now (UTC, aware)."""
    return utcnow()
