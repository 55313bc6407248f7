"""Writing turns and reading conversation history: the agent's side of the store.

Functions take the session first and run inside the caller's transaction, so a turn, its model
calls and its tool calls land together or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from addon.store.models import Conversation, LLMCall, ToolCall, Turn, utcnow

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


async def record_turn(session: AsyncSession, record: TurnRecord) -> int:
    """Store a turn (creating its conversation on first use); returns the turn id."""
    conversation = await session.get(Conversation, record.conversation_id)
    if conversation is None:
        conversation = Conversation(
            id=record.conversation_id,
            started_at=record.created_at,
            updated_at=record.created_at,
            source=record.source,
            device_id=record.device_id,
            satellite_id=record.satellite_id,
            language=record.language,
            title=record.user_text[:TITLE_LENGTH],
            turn_count=0,
            error_count=0,
            flagged_count=0,
        )
        session.add(conversation)
        await session.flush()
    seq = conversation.turn_count + 1
    conversation.turn_count = seq
    conversation.updated_at = record.created_at
    if record.error is not None:
        conversation.error_count += 1
    turn = Turn(
        conversation_id=record.conversation_id,
        seq=seq,
        created_at=record.created_at,
        user_text=record.user_text,
        reply_text=record.reply_text,
        handled_by=record.handled_by,
        language=record.language,
        dry_run=record.dry_run,
        error=record.error,
        duration_ms=record.duration_ms,
        prompt_tokens=sum(call.prompt_tokens for call in record.llm_calls),
        completion_tokens=sum(call.completion_tokens for call in record.llm_calls),
        messages=record.messages,
        timings=record.timings,
        outcome=record.outcome,
        outcome_detail={},
        flagged=False,
    )
    session.add(turn)
    await session.flush()
    llm_rows: list[LLMCall] = []
    for seq_no, call in enumerate(record.llm_calls, start=1):
        row = LLMCall(
            turn_id=turn.id,
            seq=seq_no,
            started_at=call.started_at,
            model=call.model,
            streamed=call.streamed,
            request_messages=call.request_messages,
            request_tools=call.request_tools,
            response=call.response,
            prompt_tokens=call.prompt_tokens,
            completion_tokens=call.completion_tokens,
            ttft_ms=call.ttft_ms,
            duration_ms=call.duration_ms,
            finish_reason=call.finish_reason,
            error=call.error,
        )
        llm_rows.append(row)
        session.add(row)
    if llm_rows:
        await session.flush()
    for seq_no, tool in enumerate(record.tool_calls, start=1):
        session.add(
            ToolCall(
                turn_id=turn.id,
                llm_call_id=llm_rows[tool.llm_call].id if tool.llm_call is not None else None,
                seq=seq_no,
                call_id=tool.call_id,
                started_at=tool.started_at,
                name=tool.name,
                arguments=tool.arguments,
                result=tool.result,
                duration_ms=tool.duration_ms,
                executor=tool.executor,
                error=tool.error,
            )
        )
    await session.flush()
    return turn.id


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
