"""What the agent needs of the store, and nothing more: the conversations it records and recalls.

The agent hands over finished turns and outcome verdicts and reads a conversation's history back.
How the writes are queued and batched (:class:`~addon.store.turns.writer.TurnWriter`), and when a
read must first wait for them, is the store's business: the agent says what it means (a turn is
being answered, here is a finished turn, what was said before in this conversation) and never drives
the writer itself.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING

from addon.store.turns.conversations import (
    OutcomeUpdate,
    TurnRecord,
    history_messages,
    recent_conversation,
)
from addon.store.turns.write_queue import AddedTurn
from addon.text import JsonObject

if TYPE_CHECKING:
    # Only a type here: the Store builds the turns' writer, and importing the writer loads this
    # package's face, so importing the Store at run time would be a cycle.
    from addon.store.database import Store


class ConversationRecords:
    """The agent's view of the store."""

    __slots__ = ("_store",)

    def __init__(self, store: Store) -> None:
        self._store = store

    def answering(self) -> AbstractContextManager[None]:
        """Mark a turn being answered; what nobody waits for is written when none is."""
        return self._store.writer.turn_in_progress()

    def known(self, conversation_id: str) -> bool:
        """Whether ``conversation_id`` has turns, stored or on their way; a new id has none."""
        return self._store.writer.knows(conversation_id)

    async def add_turn(self, record: TurnRecord) -> AddedTurn:
        """Hand over a finished turn (waiting for room); its id now, its commit to await.

        The reply goes out only once ``committed`` says the turn is in the file (its journal
        entry, its rows following when no turn is being answered).
        """
        return await self._store.writer.add(record)

    async def add_outcome(self, update: OutcomeUpdate) -> None:
        """Hand over the outcome check's verdict on a turn added before (waiting for room)."""
        await self._store.writer.room()
        self._store.writer.submit_outcome(update)

    async def history(self, conversation_id: str, *, max_turns: int) -> list[list[JsonObject]]:
        """The messages of the conversation's last ``max_turns`` turns, oldest turn first.

        Turns still waiting to be written are written first, so none is missing.
        """
        if self._store.writer.waiting_for(conversation_id):
            await self._store.writer.flush()
        async with self._store.sessionmaker() as session:
            return await history_messages(session, conversation_id, max_turns=max_turns)

    async def recent_conversation(
        self, *, device_id: str | None, satellite_id: str | None, since: datetime
    ) -> str | None:
        """The stored conversation a device or satellite last used after ``since``, if any."""
        async with self._store.sessionmaker() as session:
            return await recent_conversation(
                session, device_id=device_id, satellite_id=satellite_id, since=since
            )

    async def settle(self) -> bool:
        """Wait until every turn and verdict handed over is stored; False if storing failed.

        What failed stays queued and is retried by the store.
        """
        return await self._store.writer.flush()
