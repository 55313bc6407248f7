"""Recording turns: the conversation's counters, the calls' links, and payloads stored once."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, select, text

from addon.store.database import Store
from addon.store.models import Conversation, LLMCall, LLMPayload, ToolCall, Turn
from addon.store.turns.payloads import CONTENT_REF, Payload, sent_requests
from addon.text import ToolSpecs
from tests.store.data import NOW
from tests.store.turns.build import PROMPT, model_call, record, tool_call, turn


async def count(store: Store, model: type[Any]) -> int:
    async with store.sessionmaker() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def calls(store: Store) -> list[LLMCall]:
    async with store.sessionmaker() as session:
        return list(await session.scalars(select(LLMCall).order_by(LLMCall.id)))


async def test_first_turn_creates_the_conversation(store: Store) -> None:
    """The first turn creates its conversation, titled by what was said, with one turn."""
    await record(store, turn(user_text="turn on the lamp", error="boom"))
    async with store.sessionmaker() as session:
        conversation = await session.get(Conversation, "c1")
    assert conversation is not None
    assert (conversation.title, conversation.turn_count, conversation.error_count) == (
        "turn on the lamp",
        1,
        1,
    )
    assert conversation.started_at == conversation.updated_at == NOW


async def test_later_turns_count_on_and_keep_the_title(store: Store) -> None:
    """Later turns are numbered on, bump the counters and the activity time, not the title."""
    await record(
        store,
        turn(user_text="first"),
        turn(user_text="second", minutes=1, error="boom"),
        turn(user_text="third", minutes=2),
    )
    async with store.sessionmaker() as session:
        conversation = await session.get(Conversation, "c1")
        seqs = list(await session.scalars(select(Turn.seq).order_by(Turn.id)))
    assert conversation is not None
    assert (conversation.title, conversation.turn_count, conversation.error_count) == (
        "first",
        3,
        1,
    )
    assert conversation.started_at == NOW
    assert conversation.updated_at == NOW + timedelta(minutes=2)
    assert seqs == [1, 2, 3]


async def test_record_turn_returns_the_stored_turns_id(store: Store) -> None:
    """The id returned is the turn's own, in each of two conversations."""
    ids = await record(store, turn("a", user_text="in a"), turn("b", user_text="in b"))
    async with store.sessionmaker() as session:
        said = dict((await session.execute(select(Turn.id, Turn.user_text))).all())
    assert [said[turn_id] for turn_id in ids] == ["in a", "in b"]


async def test_tool_calls_point_at_the_model_call_that_asked(store: Store) -> None:
    """A model's tool call links to that call; a local one links to none."""
    await record(store, turn(tool_calls=[tool_call(1), tool_call(None)]))
    async with store.sessionmaker() as session:
        links = list(await session.scalars(select(ToolCall.llm_call_id).order_by(ToolCall.seq)))
    second = (await calls(store))[1]
    assert links == [second.id, None]


async def test_payloads_are_stored_once_for_many_turns(store: Store) -> None:
    """Ten model calls over five turns store one system prompt and one tool list."""
    await record(store, *(turn(minutes=n, user_text=f"turn {n}") for n in range(5)))
    async with store.sessionmaker() as session:
        kinds = sorted(await session.scalars(select(LLMPayload.kind)))
    assert await count(store, LLMCall) == 10
    assert kinds == ["system_prompt", "tools"]


async def test_rows_keep_references_instead_of_the_payloads(store: Store) -> None:
    """The row's system message holds the prompt's hash and its tool list is empty."""
    await record(store, turn())
    call = (await calls(store))[0]
    expected = Payload.of("system_prompt", PROMPT).hash
    assert call.request_messages[0] == {"role": "system", CONTENT_REF: expected}
    assert (call.system_prompt_hash, call.request_tools) == (expected, [])
    assert call.tools_hash is not None


async def test_read_back_rebuilds_exactly_what_was_sent(store: Store) -> None:
    """Messages and tools come back equal to those recorded, keys in the order sent."""
    recorded = turn()
    await record(store, recorded)
    stored = await calls(store)
    async with store.sessionmaker() as session:
        sent = await sent_requests(session, stored)
    for call, original in zip(stored, recorded.llm_calls, strict=True):
        assert json.dumps(sent[call.id].messages) == json.dumps(original.request_messages)
        assert sent[call.id].tools == original.request_tools


async def test_a_new_connection_still_stores_each_payload_once(store: Store) -> None:
    """Reopened (nothing remembered), recording the same payloads adds no second copy."""
    await record(store, turn())
    reopened = await Store.open(store.path)
    try:
        await record(reopened, turn(minutes=1))
    finally:
        await reopened.close()
    assert await count(store, LLMPayload) == 2


async def test_a_payload_pruned_since_is_stored_again(store: Store) -> None:
    """Payloads deleted after an earlier turn used them come back with the next turn's calls."""
    await record(store, turn())
    async with store.sessionmaker.begin() as session:
        await session.execute(delete(LLMPayload))
    recorded = turn(minutes=1)
    await record(store, recorded)
    stored = await calls(store)
    async with store.sessionmaker() as session:
        sent = await sent_requests(session, stored)
    assert await count(store, LLMPayload) == 2
    latest = stored[-len(recorded.llm_calls) :]
    assert [sent[call.id].messages for call in latest] == [
        call.request_messages for call in recorded.llm_calls
    ]


async def test_requests_without_a_system_prompt_or_tools_stay_inline(store: Store) -> None:
    """No system message, structured content or no tools: nothing to share, no hashes."""
    parts = [{"type": "text", "text": "You are a voice assistant."}]
    await record(
        store,
        turn(
            llm_calls=[
                model_call([{"role": "user", "content": "hi"}], []),
                model_call([{"role": "system", "content": parts}], []),
            ],
            tool_calls=[],
        ),
    )
    stored = await calls(store)
    assert [(call.system_prompt_hash, call.tools_hash) for call in stored] == [(None, None)] * 2
    assert stored[1].request_messages == [{"role": "system", "content": parts}]
    assert await count(store, LLMPayload) == 0


async def test_rows_written_before_payloads_read_back_as_they_are(store: Store) -> None:
    """A call stored with its content inline (an older version) reads back unchanged."""
    await record(store, turn(llm_calls=[], tool_calls=[]))
    messages = [{"role": "system", "content": "inline prompt"}, {"role": "user", "content": "hi"}]
    offered = [{"type": "function", "function": {"name": "HassTurnOn"}}]
    async with store.sessionmaker.begin() as session:
        turn_id = await session.scalar(select(Turn.id))
        await session.execute(
            text(
                "INSERT INTO llm_calls (turn_id, seq, started_at, model, streamed, "
                "request_messages, request_tools, response, prompt_tokens, completion_tokens, "
                "duration_ms) VALUES (:turn, 1, '2026-11-22 12:00:00.000000', 'old', 0, "
                ":messages, :tools, '{}', 0, 0, 0.0)"
            ),
            {"turn": turn_id, "messages": json.dumps(messages), "tools": json.dumps(offered)},
        )
    [call] = await calls(store)
    async with store.sessionmaker() as session:
        sent = await sent_requests(session, [call])
    assert (sent[call.id].messages, sent[call.id].tools) == (messages, offered)


async def test_a_missing_payload_leaves_its_reference(store: Store) -> None:
    """Should a payload be gone, the trace keeps the reference instead of failing."""
    await record(store, turn())
    async with store.sessionmaker.begin() as session:
        await session.execute(text("DELETE FROM llm_payloads"))
    call = (await calls(store))[0]
    async with store.sessionmaker() as session:
        sent = await sent_requests(session, [call])
    assert sent[call.id].messages[0] == {"role": "system", CONTENT_REF: call.system_prompt_hash}
    assert sent[call.id].tools == []


async def test_a_tool_list_is_stored_as_the_text_the_model_was_sent(store: Store) -> None:
    """A turn's :class:`ToolSpecs` brings the text its request bodies used; it is stored as is.

    Equal lists, one plain and one with its text, hash alike: a tool list is one payload.
    """
    specs = ToolSpecs(turn().llm_calls[0].request_tools)
    with_text = turn(user_text="with its text")
    for call in with_text.llm_calls:
        call.request_tools = specs
    await record(store, turn(), with_text)
    async with store.sessionmaker() as session:
        stored = list(
            await session.scalars(select(LLMPayload.content).where(LLMPayload.kind == "tools"))
        )
    assert stored == [specs.json]
