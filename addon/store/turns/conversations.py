"""The agent's turns as the store takes them, and reading conversation history back.

A finished turn is handed over as a :class:`TurnRecord` with its model and tool calls; the
writer (:mod:`addon.store.turns.writer`) numbers it (:class:`TurnIds`) and writes it in a batch with
the statements of :mod:`addon.store.turns.turn_writes`. The JSON fields hold what the store's JSON
columns hold, in the form they are stored in: the agent renders the messages to OpenAI's format
(``addon.agent.recording``), and the store keeps them as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncSession

from addon.store.models import Conversation, Turn, utcnow
from addon.store.turns.ids import BLOCK, Claim, Ids
from addon.text import JsonObject


@dataclass(slots=True)
class LLMCallRecord:
    """One model call of a turn, ready to store."""

    started_at: datetime
    model: str
    streamed: bool
    request_messages: list[JsonObject]
    request_tools: list[JsonObject]
    response: JsonObject
    prompt_tokens: int
    completion_tokens: int
    ttft_ms: float | None
    duration_ms: float
    finish_reason: str | None
    error: str | None
    endpoint: str = "primary"
    """Who answered: ``primary``, ``backup`` or ``expert``."""
    tool_call_id: str | None = None
    """For a call a tool made (the expert's), the model's id of that tool call."""
    note: str | None = None
    """Why this endpoint was asked, when it was the backup."""


@dataclass(slots=True)
class ToolCallRecord:
    """One tool call of a turn; ``llm_call`` indexes the turn's model calls (None if local)."""

    started_at: datetime
    call_id: str
    name: str
    arguments: JsonObject
    result: JsonObject
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
    messages: list[JsonObject]
    timings: dict[str, float]
    llm_calls: list[LLMCallRecord] = field(default_factory=list)
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    outcome: str = "unchecked"
    outcome_detail: JsonObject = field(default_factory=dict)
    flagged: bool = False
    error_kind: str | None = None
    context: JsonObject | None = None
    """A large home's selected entities and the reasons for each (``addon.agent.context``)."""
    states: JsonObject | None = None
    """The acted-on entities' states before and after (``addon.agent.state_record``)."""
    actor: JsonObject | None = None
    """Who asked: person, satellite and endpoint (``addon.home.actions.actor``)."""


@dataclass(slots=True)
class NumberedTurn:
    """A turn with the row ids it will be stored under, given out before it is written.

    Ids handed out up front let the agent answer with the turn's id (and the outcome check refer to
    it) while the row itself is written later, in a batch (:mod:`addon.store.turns.writer`).
    """

    record: TurnRecord
    turn_id: int
    llm_call_ids: list[int]


@dataclass(frozen=True, slots=True)
class LaterCall:
    """A model call made for a turn after it ended, with the id it will be stored under.

    Memory's extraction after a turn is traced like any call of the turn and linked from it;
    it goes through the writer like the turn, numbered after the turn's own calls when written.
    """

    turn_id: int
    call: LLMCallRecord
    call_id: int
    purpose: str
    """What the call was for (``memory``), shown in the trace."""


@dataclass(frozen=True, slots=True)
class OutcomeUpdate:
    """The outcome check's verdict on a stored turn."""

    turn_id: int
    outcome: str
    detail: JsonObject
    flagged: bool


class TurnIds:
    """Gives out turn and model-call ids from reservations in the database.

    Ids are reserved a block at a time before they are given out (:mod:`addon.store.turns.ids`), so
    no other writer of the file can take one. Only one writer may hold one: the store's
    writer, for the process's lifetime.
    """

    def __init__(self, *, block: int = BLOCK) -> None:
        self.turns = Ids("turns", block=block)
        self.llm_calls = Ids("llm_calls", block=block)

    def number(self, record: TurnRecord) -> NumberedTurn:
        """The next ids for ``record`` and its model calls."""
        [turn_id] = self.turns.take(1)
        return NumberedTurn(record, turn_id, self.llm_calls.take(len(record.llm_calls)))

    def number_later(self, turn_id: int, call: LLMCallRecord, purpose: str) -> LaterCall:
        """The next model-call id for ``call``, made for turn ``turn_id`` after it ended."""
        [call_id] = self.llm_calls.take(1)
        return LaterCall(turn_id, call, call_id, purpose)

    def wants_reservation(self) -> bool:
        """Whether either table's reservation runs low or ids given out on trust wait."""
        return self.turns.wants_reservation() or self.llm_calls.wants_reservation()

    def reserve(self, connection: Connection) -> tuple[Claim, Claim]:
        """Reserve more of what runs low, in the caller's transaction; :meth:`settle` after."""
        nothing = Claim(range(0), range(0))
        return (
            self.turns.reserve(connection) if self.turns.wants_reservation() else nothing,
            self.llm_calls.reserve(connection) if self.llm_calls.wants_reservation() else nothing,
        )

    def settle(self, claims: tuple[Claim, Claim]) -> tuple[range, range]:
        """Take in committed reservations; returns the lost turn and model-call ids, if any."""
        turns, llm_calls = claims
        return self.turns.settle(turns), self.llm_calls.settle(llm_calls)

    def give_back(self, connection: Connection) -> None:
        """Return the unused reservations at a stop (see :meth:`Ids.give_back`)."""
        self.turns.give_back(connection)
        self.llm_calls.give_back(connection)


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
) -> list[list[JsonObject]]:
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


def now() -> datetime:
    """The store's notion of now (UTC, aware)."""
    return utcnow()
