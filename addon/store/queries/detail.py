"""One conversation with everything each turn did, loaded in a fixed number of queries.

``selectinload`` fetches the turns, then all their model calls, tool calls, memory recalls and
the recalled memories, in one ``IN`` query each, and one more query fetches the system prompts
and tool lists the model calls reference: seven queries whatever the length of the conversation,
where lazy loading would cost several per turn (and is impossible under asyncio anyway).
``raiseload`` makes any other relationship a loud error instead of a hidden query from a
template.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import raiseload, selectinload

from addon.errors import NotFoundError
from addon.store.models import Conversation, MemoryRecall, Turn
from addon.store.turns import SentRequest, sent_requests


@dataclass(frozen=True, slots=True)
class ConversationDetail:
    """A conversation as its trace page shows it, with what each model call was sent.

    ``sent`` maps each model call's id to its messages and tools as they were sent: the rows
    keep the system prompt and the tool list by reference (:mod:`addon.store.turns.payloads`).
    """

    conversation: Conversation
    sent: dict[int, SentRequest]


async def conversation_detail(session: AsyncSession, conversation_id: str) -> ConversationDetail:
    """The conversation with its turns (in order), their model and tool calls, and requests.

    Raises :class:`NotFoundError` for an unknown id.
    """
    turns = selectinload(Conversation.turns)
    query = (
        select(Conversation)
        .where(Conversation.id == conversation_id)
        .options(
            turns.selectinload(Turn.llm_calls),
            turns.selectinload(Turn.tool_calls),
            turns.selectinload(Turn.memory_recalls).selectinload(MemoryRecall.memory),
            turns.raiseload("*"),
            raiseload("*"),
        )
    )
    conversation = (await session.execute(query)).scalar_one_or_none()
    if conversation is None:
        raise NotFoundError(f"no conversation with id {conversation_id!r}")
    calls = [call for turn in conversation.turns for call in turn.llm_calls]
    return ConversationDetail(conversation, await sent_requests(session, calls))


async def conversation_turns(session: AsyncSession, conversation_id: str) -> list[Turn]:
    """The turns of a conversation without their calls, for the chat page's transcript.

    An unknown id has no turns (the chat then starts that conversation afresh).
    """
    query = (
        select(Turn)
        .where(Turn.conversation_id == conversation_id)
        .order_by(Turn.seq)
        .options(raiseload("*"))
    )
    return list((await session.execute(query)).scalars())
