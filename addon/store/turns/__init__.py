"""The agent's turns and their writer.

The agent sees ``ConversationRecords`` (``records``) and the records it hands over
(``conversations``: ``TurnRecord``, ``LLMCallRecord``, ``ToolCallRecord``, ``OutcomeUpdate``).
Behind them the one ``TurnWriter`` (``writer``) queues (``write_queue``) and batches (``batches``,
on its own ``sqlite3`` connections, ``driver``, with its statements compiled once in
``prepared``) the writes of ``turn_writes``, with ids reserved ahead (``ids``) and prompts and
tool lists stored once (``payloads``); an answer waits for its turn's ``journal`` entry, the
rows following after it.
"""

from addon.store.turns.conversations import (
    LLMCallRecord,
    NumberedTurn,
    OutcomeUpdate,
    ToolCallRecord,
    TurnRecord,
)
from addon.store.turns.ids import reserve
from addon.store.turns.payloads import SentRequest, sent_requests
from addon.store.turns.records import ConversationRecords
from addon.store.turns.turn_writes import write_search_index, write_turns
from addon.store.turns.write_queue import AddedTurn
from addon.store.turns.writer import TurnWriter

__all__ = [
    "AddedTurn",
    "ConversationRecords",
    "LLMCallRecord",
    "NumberedTurn",
    "OutcomeUpdate",
    "SentRequest",
    "ToolCallRecord",
    "TurnRecord",
    "TurnWriter",
    "reserve",
    "sent_requests",
    "write_search_index",
    "write_turns",
]
