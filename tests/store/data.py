"""Rows for store tests, written through the real models and sessions."""

from __future__ import annotations

from datetime import UTC, datetime

from addon.store.database import Store
from addon.store.models import Conversation, LLMCall, Memory, ToolCall, Turn
from addon.store.turns import write_search_index

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


async def add_conversation(
    store: Store,
    conversation_id: str,
    *,
    updated_at: datetime = NOW,
    turns: tuple[tuple[str, str], ...] = (("turn on the kitchen light", "Done."),),
) -> list[int]:
    """A conversation with one turn per (user text, reply) pair, each with a model and tool call.

    Returns the turn ids; the turns are in the search index.
    """
    async with store.sessionmaker.begin() as session:
        conversation = Conversation(
            id=conversation_id, source="http", started_at=updated_at, updated_at=updated_at
        )
        for seq, (user_text, reply_text) in enumerate(turns):
            turn = Turn(
                seq=seq,
                user_text=user_text,
                reply_text=reply_text,
                handled_by="llm",
                created_at=updated_at,
            )
            turn.llm_calls.append(LLMCall(seq=0, model="test-model"))
            turn.tool_calls.append(ToolCall(seq=0, name="HassTurnOn", executor="live"))
            conversation.turns.append(turn)
        session.add(conversation)
        await session.flush()
        turn_ids = [turn.id for turn in conversation.turns]
        # As the store's writer does after the answers (store/turns/batches.py).
        await (await session.connection()).run_sync(write_search_index, turn_ids)
        return turn_ids


async def add_memory(store: Store, content: str, source_conversation_id: str | None) -> int:
    """A memory learnt in ``source_conversation_id``; returns its id."""
    async with store.sessionmaker.begin() as session:
        memory = Memory(content=content, source_conversation_id=source_conversation_id)
        session.add(memory)
        await session.flush()
        return memory.id
