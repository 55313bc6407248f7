"""Conversation history: recent turns per conversation, cached in memory, persisted in the store.

A restart loses nothing: on a cache miss the turns' stored messages are replayed. History is
bounded twice, by turns (the ``history_turns`` option) and by an estimate of tokens, because one
turn that read a whole home's live context can be larger than ten ordinary ones.

Over the token budget, history shrinks in this order (:func:`fit_history`): older turns' tool
results are shortened, oldest first, to an excerpt with a note saying so; then the oldest turns
are dropped; the newest exchange is always kept, its tool results shortened only as far as the
budget needs. Only whole turns are dropped and tool messages are shortened, never removed, so
every assistant tool call keeps its result, as the OpenAI protocol requires.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import Sequence

from addon.llm.messages import ChatMessage, ToolMessage, from_wire, wire_messages
from addon.llm.outside_text import as_data
from addon.store.turns import ConversationRecords

# About a third of an 8k-context local model, leaving room for the prompt and tools. A constant,
# not an option: DOCS.md (under ``history_turns``) says what it bounds.
HISTORY_TOKEN_BUDGET = 3000
CACHED_CONVERSATIONS = 512
CHARS_PER_TOKEN = 4
# An older turn's tool result is cut to this many characters (note included) once history is
# over budget: enough for a short answer or the start of a long one, while its question and the
# reply that used it stay whole.
OLDER_RESULT_CHARS = 300
# The newest exchange's tool results are never cut below this, even if older turns must go.
NEWEST_RESULT_MIN_CHARS = 1000
SHORTENED_NOTE = (
    "\n[Shortened for the conversation history from {total} characters. "
    "Call the tool again for current data.]"
)

Turn = list[ChatMessage]


def estimate_tokens(messages: Sequence[ChatMessage]) -> int:
    """A cheap, tokenizer-free estimate (of the messages as sent); good enough to bound history."""
    return len(json.dumps(wire_messages(messages), ensure_ascii=False)) // CHARS_PER_TOKEN + 1


def fit_history(turns: list[Turn], budget: int) -> list[ChatMessage]:
    """The messages of ``turns`` (oldest first), shrunk to about ``budget`` tokens.

    The newest turn is always in the result, whole except for shortened tool results, even when
    it alone is over the budget: the next request is most likely about it.
    """
    if not turns:
        return []
    costs = [estimate_tokens(turn) for turn in turns]
    if sum(costs) <= budget:
        return _flatten(turns)
    older, older_costs, newest = list(turns[:-1]), costs[:-1], turns[-1]
    total = sum(older_costs)
    for index, turn in enumerate(older):
        older[index] = shorten_tool_results(turn, OLDER_RESULT_CHARS)
        cost = estimate_tokens(older[index])
        total, older_costs[index] = total - older_costs[index] + cost, cost
        if total + costs[-1] <= budget:
            return _flatten([*older, newest])
    smallest_newest = estimate_tokens(shorten_tool_results(newest, NEWEST_RESULT_MIN_CHARS))
    first = 0
    while first < len(older) and total + smallest_newest > budget:
        total -= older_costs[first]
        first += 1
    return _flatten([*older[first:], _shrink_to(newest, budget - total)])


def shorten_tool_results(turn: Turn, limit: int) -> Turn:
    """``turn`` with each tool result longer than ``limit`` characters cut to ``limit``."""
    return [
        ToolMessage(message.tool_call_id, _shorten(message.content, limit))
        if isinstance(message, ToolMessage)
        else message
        for message in turn
    ]


def _results_as_data(turn: Turn) -> Turn:
    """A stored turn with its tool results' markup broken: turns kept before it was, are not."""
    return [
        ToolMessage(message.tool_call_id, as_data(message.content))
        if isinstance(message, ToolMessage)
        else message
        for message in turn
    ]


def _shorten(content: str, limit: int) -> str:
    if len(content) <= limit:
        return content
    note = SHORTENED_NOTE.format(total=len(content))
    return content[: max(limit - len(note), 0)] + note


def _shrink_to(turn: Turn, budget: int) -> Turn:
    """``turn`` with its tool results cut as little as fits ``budget``, never below the minimum."""
    if estimate_tokens(turn) <= budget:
        return turn
    longest = max((len(m.content) for m in turn if isinstance(m, ToolMessage)), default=0)
    low, high = NEWEST_RESULT_MIN_CHARS, max(longest, NEWEST_RESULT_MIN_CHARS)
    while low < high:  # the largest limit that fits; the cost grows with the limit
        middle = (low + high + 1) // 2
        if estimate_tokens(shorten_tool_results(turn, middle)) <= budget:
            low = middle
        else:
            high = middle - 1
    return shorten_tool_results(turn, low)


def _flatten(turns: list[Turn]) -> list[ChatMessage]:
    return [message for turn in turns for message in turn]


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
        self._turns: OrderedDict[str, list[Turn]] = OrderedDict()
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

    async def messages(self, conversation_id: str) -> list[ChatMessage]:
        """The history to send before a new user message, within both bounds."""
        turns = self._turns.get(conversation_id)
        if turns is None:
            # The store keeps a turn's messages as they are sent (its payload column).
            stored = await self._records.history(conversation_id, max_turns=self._max_turns)
            turns = [_results_as_data(from_wire(turn)) for turn in stored]
            self._remember(conversation_id, turns)
        else:
            self._turns.move_to_end(conversation_id)
        return fit_history(turns[-self._max_turns :] if self._max_turns else [], self._token_budget)

    def append(self, conversation_id: str, turn_messages: Turn) -> None:
        """Add a finished turn's messages (handed to the store by the caller)."""
        turns = self._turns.get(conversation_id, [])
        turns.append(turn_messages)
        self._remember(conversation_id, turns[-max(self._max_turns, 1) :])

    def _remember(self, conversation_id: str, turns: list[Turn]) -> None:
        self._turns[conversation_id] = turns
        self._turns.move_to_end(conversation_id)
        while len(self._turns) > CACHED_CONVERSATIONS:
            self._turns.popitem(last=False)
