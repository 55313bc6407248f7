"""Text SQLite cannot encode (lone surrogates) is stored with U+FFFD in its place, not dropped."""

from __future__ import annotations

from sqlalchemy import select

from addon.store.database import Store
from addon.store.models import LLMCall, LLMPayload, ToolCall, Turn
from addon.store.turns import LLMCallRecord, OutcomeUpdate, ToolCallRecord, sent_requests
from tests.store.data import NOW
from tests.store.turns.build import model_call, tools, turn

BROKEN = "bad \ud800 text"
CLEANED = "bad \ufffd text"


def broken_turn() -> tuple[LLMCallRecord, ToolCallRecord]:
    """A model call and a tool call with a lone surrogate in every text they carry."""
    call = model_call(
        [{"role": "system", "content": f"prompt {BROKEN}"}, {"role": "user", "content": BROKEN}],
        tools(),
    )
    call.response = {"role": "assistant", "content": BROKEN}
    call.error = BROKEN
    tool = ToolCallRecord(
        started_at=NOW,
        call_id="call_1",
        name="HassTurnOn",
        arguments={"name": BROKEN},
        result={"speech": BROKEN},
        duration_ms=1.0,
        executor="live",
        error=BROKEN,
        llm_call=0,
    )
    return call, tool


async def test_a_turn_with_a_lone_surrogate_is_stored_with_the_replacement_character(
    store: Store,
) -> None:
    """Every text field of the turn reaches the file, each bad character as U+FFFD."""
    call, tool = broken_turn()
    record = turn("c1", user_text=BROKEN, error=BROKEN, llm_calls=[call], tool_calls=[tool])
    record.reply_text = BROKEN
    record.messages = [{"role": "user", "content": BROKEN}]
    turn_id = store.writer.submit(record)
    store.writer.submit_outcome(OutcomeUpdate(turn_id, "mismatch", {"claim": BROKEN}, True))
    assert await store.writer.flush()
    async with store.sessionmaker() as session:
        stored = await session.get(Turn, turn_id)
        [stored_call] = await session.scalars(select(LLMCall).where(LLMCall.turn_id == turn_id))
        [stored_tool] = await session.scalars(select(ToolCall).where(ToolCall.turn_id == turn_id))
        [payload] = await session.scalars(
            select(LLMPayload).where(LLMPayload.kind == "system_prompt")
        )
        [request] = (await sent_requests(session, [stored_call])).values()
    assert stored is not None
    assert (stored.user_text, stored.reply_text, stored.error) == (CLEANED, CLEANED, CLEANED)
    assert stored.messages == [{"role": "user", "content": CLEANED}]
    assert stored.outcome_detail == {"claim": CLEANED}
    assert stored_call.response["content"] == CLEANED
    assert stored_call.error == CLEANED
    assert request.messages[0]["content"] == f"prompt {CLEANED}"
    assert request.messages[1]["content"] == CLEANED
    assert payload.content == f"prompt {CLEANED}"
    assert stored_tool.arguments == {"name": CLEANED}
    assert stored_tool.result == {"speech": CLEANED}
    assert stored_tool.error == CLEANED
    assert (await store.health()).status == "ok"


async def test_a_surrogate_pair_in_two_code_points_is_joined(store: Store) -> None:
    """A valid pair that arrived as two code points is stored as the character it encodes."""
    turn_id = store.writer.submit(turn("c1", user_text="smile \ud83d\ude00"))
    assert await store.writer.flush()
    async with store.sessionmaker() as session:
        stored = await session.get(Turn, turn_id)
    assert stored is not None
    assert stored.user_text == "smile \U0001f600"
