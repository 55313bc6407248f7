"""Turns written through the store's own write path, as the agent records them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from addon.store.database import Store
from addon.store.turns import (
    LLMCallRecord,
    OutcomeUpdate,
    ToolCallRecord,
    TurnRecord,
)
from addon.store.turns.turn_writes import write_outcomes
from devtools.recording import record_turn

T0 = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


async def set_outcome(
    session: AsyncSession, turn_id: int, outcome: str, detail: dict[str, Any], *, flagged: bool
) -> None:
    """Record one outcome check in the caller's transaction, as the writer records it."""
    update = OutcomeUpdate(turn_id, outcome, detail, flagged)
    await (await session.connection()).run_sync(write_outcomes, [update])


def model_call(
    user_text: str, reply: str, *, at: datetime, error: str | None = None
) -> LLMCallRecord:
    """A model call that was sent a system prompt and the user's words."""
    return LLMCallRecord(
        started_at=at,
        model="scripted-model",
        streamed=True,
        request_messages=[
            {"role": "system", "content": "You are a voice assistant for a home."},
            {"role": "user", "content": user_text},
        ],
        request_tools=[{"type": "function", "function": {"name": "HassTurnOn"}}],
        response={"role": "assistant", "content": reply},
        prompt_tokens=412,
        completion_tokens=23,
        ttft_ms=180.0,
        duration_ms=640.0,
        finish_reason="stop",
        error=error,
    )


def tool_call(
    name: str,
    arguments: dict[str, Any],
    result: dict[str, Any],
    *,
    at: datetime,
    llm_call: int | None,
    error: str | None = None,
) -> ToolCallRecord:
    """A tool call, from the model (``llm_call`` index) or the local path (None)."""
    return ToolCallRecord(
        started_at=at,
        call_id=f"call_{name.lower()}",
        name=name,
        arguments=arguments,
        result=result,
        duration_ms=12.5,
        executor="virtual",
        error=error,
        llm_call=llm_call,
    )


async def seed_turn(
    store: Store,
    conversation_id: str,
    user_text: str,
    reply: str,
    *,
    at: datetime,
    source: str = "wyoming",
    device_id: str | None = None,
    handled_by: str = "llm",
    error: str | None = None,
    error_kind: str | None = None,
    flagged: bool = False,
    llm_calls: list[LLMCallRecord] | None = None,
    tool_calls: list[ToolCallRecord] | None = None,
    context: dict[str, Any] | None = None,
    timings: dict[str, float] | None = None,
) -> int:
    """Record one turn (and its outcome check, if flagged); returns its id."""
    async with store.sessionmaker.begin() as session:
        turn_id = await record_turn(
            session,
            TurnRecord(
                conversation_id=conversation_id,
                source=source,
                device_id=device_id,
                satellite_id=None,
                language="en",
                created_at=at,
                user_text=user_text,
                reply_text=reply,
                handled_by=handled_by,
                dry_run=False,
                error=error,
                duration_ms=700.0 if handled_by == "llm" else 40.0,
                messages=[{"role": "user", "content": user_text}],
                timings={"total": 700.0, **(timings or {})},
                llm_calls=llm_calls or [],
                tool_calls=tool_calls or [],
                outcome="confirmed",
                error_kind=error_kind,
                context=context,
            ),
        )
        if flagged:
            await set_outcome(
                session,
                turn_id,
                "mismatch",
                {"reason": "the reply claims an action but no tool acted", "reply": reply},
                flagged=True,
            )
    return turn_id


async def seed_many(store: Store, count: int, *, start: datetime = T0) -> list[str]:
    """``count`` one-turn conversations a minute apart, oldest first; returns their ids."""
    ids = []
    for number in range(count):
        conversation_id = f"conv-{number:04d}"
        await seed_turn(
            store,
            conversation_id,
            f"turn on lamp number {number}",
            f"Turned on lamp {number}.",
            at=start + timedelta(minutes=number),
            handled_by="local",
        )
        ids.append(conversation_id)
    return ids


async def seed_trace(store: Store, *, at: datetime = T0) -> tuple[str, int]:
    """A conversation whose turn went to the model, which called a tool on a real entity."""
    conversation_id = "trace-0001"
    turn_id = await seed_turn(
        store,
        conversation_id,
        "switch on the kitchen lights please",
        "I've turned on the kitchen lights.",
        at=at,
        device_id="kitchen-satellite",
        llm_calls=[
            model_call("switch on the kitchen lights please", "I've turned on the lights.", at=at)
        ],
        tool_calls=[
            tool_call(
                "HassTurnOn",
                {"name": "Kitchen Lights"},
                {
                    "response_type": "action_done",
                    "data": {
                        "success": [
                            {
                                "name": "Kitchen Lights",
                                "type": "entity",
                                "id": "light.kitchen_lights",
                            }
                        ],
                        "failed": [],
                    },
                },
                at=at,
                llm_call=0,
            )
        ],
    )
    return conversation_id, turn_id
