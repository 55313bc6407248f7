"""Conversation history: recent turns per conversation, cached in memory, persisted in the store.

A restart loses nothing: on a cache miss the turns' stored messages are replayed. History is
bounded twice, by turns (the ``history_turns`` option) and by an estimate of tokens, because one
turn that read a whole home's live context can be larger than ten ordinary ones.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from typing import Any

from addon.store.records import ConversationRecords

# About a third of an 8k-context local model, leaving room for the prompt and tools.
HISTORY_TOKEN_BUDGET = 3000
CACHED_CONVERSATIONS = 512
CHARS_PER_TOKEN = 4


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """A cheap, tokenizer-free estimate; good enough to bound history."""
    return len(json.dumps(messages, ensure_ascii=False)) // CHARS_PER_TOKEN + 1


class ConversationHistory:
    """Turn messages by conversation id, newest last."""

    def __init__(
        self,
        records: ConversationRecords,
        *,
        max_turns: int,
        token_budget: int = HISTORY_TOKEN_BUDGET,
    ):
        self._records = records
        self._max_turns = max_turns
        self._token_budget = token_budget
        self._turns: OrderedDict[str, list[list[dict[str, Any]]]] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}

    def lock(self, conversation_id: str) -> asyncio.Lock:
        """Serialises turns of one conversation so each sees the one before it."""
        lock = self._locks.get(conversation_id)
        if lock is None:
            if len(self._locks) > CACHED_CONVERSATIONS * 2:
                for key in [k for k, v in self._locks.items() if not v.locked()]:
                    del self._locks[key]
            lock = self._locks[conversation_id] = asyncio.Lock()
        return lock

    async def messages(self, conversation_id: str) -> list[dict[str, Any]]:
        """The history to send before a new user message, within both bounds."""
        turns = self._turns.get(conversation_id)
        if turns is None:
            turns = await self._records.history(conversation_id, max_turns=self._max_turns)
            self._remember(conversation_id, turns)
        else:
            self._turns.move_to_end(conversation_id)
        kept: list[list[dict[str, Any]]] = []
        budget = self._token_budget
        for turn in reversed(turns[-self._max_turns :] if self._max_turns else []):
            cost = estimate_tokens(turn)
            if cost > budget:
                break
            budget -= cost
            kept.append(turn)
        return [message for turn in reversed(kept) for message in turn]

    def append(self, conversation_id: str, turn_messages: list[dict[str, Any]]) -> None:
        """Add a finished turn's messages (handed to the store by the caller)."""
        turns = self._turns.get(conversation_id, [])
        turns.append(turn_messages)
        self._remember(conversation_id, turns[-max(self._max_turns, 1) :])

    def _remember(self, conversation_id: str, turns: list[list[dict[str, Any]]]) -> None:
        self._turns[conversation_id] = turns
        self._turns.move_to_end(conversation_id)
        while len(self._turns) > CACHED_CONVERSATIONS:
            self._turns.popitem(last=False)
