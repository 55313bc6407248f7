"""The statements that write the agent's turns, their model and tool calls and outcome checks.

Functions run inside the caller's transaction, so a turn, its model calls and its tool calls land
together or not at all. The agent's turns are written in batches by the store's writer
(:mod:`addon.store.turns.writer`); ``devtools/recording.py`` writes one at once, for tests and
benchmarks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection

from addon.store.models import Conversation, LLMCall, LLMPayload, ToolCall, Turn, utcnow
from addon.store.turns.conversations import (
    LaterCall,
    LLMCallRecord,
    NumberedTurn,
    OutcomeUpdate,
    TurnRecord,
)
from addon.store.turns.driver import DriverConnection
from addon.store.turns.payloads import Detached, Detacher
from addon.store.turns.prepared import Statements

TITLE_LENGTH = 120

# A statement's parameters for one row, by column (or bound parameter) name.
type Row = dict[str, object]
# The writer's own connection, or a SQLAlchemy one (tools and tests writing turns themselves).
type Writable = Connection | DriverConnection


def write_turns(
    connection: Writable, turns: Sequence[NumberedTurn], statements: Statements | None = None
) -> None:
    """Store a batch of turns (creating their conversations on first use), in order.

    One statement per table whatever the batch size, each one trip to the driver's thread: upsert
    the conversations, insert the turns, the system prompts and tool lists they reference, the model
    calls and the tool calls. Core statements with ids given out in advance: ORM objects would cost
    a flush per dependency level and a unit of work nobody reads, and ids read back would cost a
    round trip per row. Everything stays in the caller's transaction. Synchronous: the writer runs
    it on its own connection (:mod:`addon.store.turns.batches`); an async caller passes it to
    ``AsyncConnection.run_sync``. The writer passes its ``statements``, compiled once
    (:mod:`addon.store.turns.prepared`); without, they are compiled for this call.
    """
    if not turns:
        return
    statements = statements or Statements(connection.dialect)
    conversations: dict[str, _NewTurns] = {}
    later: list[int] = []
    for numbered in turns:
        record = numbered.record
        counts = conversations.get(record.conversation_id)
        if counts is None:
            conversations[record.conversation_id] = _NewTurns(record)
        else:
            counts.add(record)
    # A turn's number is its conversation's count after the upsert, less the turns of the same
    # conversation that come after it in this batch.
    remaining = {cid: counts.turns for cid, counts in conversations.items()}
    for numbered in turns:
        cid = numbered.record.conversation_id
        remaining[cid] -= 1
        later.append(remaining[cid])
    statements.execute(
        connection, UPSERT_CONVERSATION, [counts.row() for counts in conversations.values()]
    )
    statements.execute(
        connection,
        INSERT_TURN,
        [_turn_row(numbered, after) for numbered, after in zip(turns, later, strict=True)],
    )
    _insert_llm_calls(connection, turns, statements)
    tool_rows = [
        {
            "turn_id": numbered.turn_id,
            "llm_call_id": (
                numbered.llm_call_ids[tool.llm_call] if tool.llm_call is not None else None
            ),
            "seq": seq_no,
            "call_id": tool.call_id,
            "started_at": tool.started_at,
            "name": tool.name,
            "arguments": tool.arguments,
            "result": tool.result,
            "duration_ms": tool.duration_ms,
            "executor": tool.executor,
            "error": tool.error,
        }
        for numbered in turns
        for seq_no, tool in enumerate(numbered.record.tool_calls, start=1)
    ]
    statements.execute(connection, INSERT_TOOL_CALL, tool_rows)


# A conversation's first turn creates it; every later batch adds its turns to the counters.
_upsert = sqlite_insert(Conversation)
UPSERT_CONVERSATION: Final = _upsert.on_conflict_do_update(
    index_elements=[Conversation.id],
    set_={
        Conversation.turn_count: Conversation.turn_count + _upsert.excluded.turn_count,
        Conversation.updated_at: _upsert.excluded.updated_at,
        Conversation.error_count: Conversation.error_count + _upsert.excluded.error_count,
        Conversation.flagged_count: Conversation.flagged_count + _upsert.excluded.flagged_count,
    },
)
INSERT_LLM_CALL: Final = insert(LLMCall)
# A call made after its turn ended comes after the calls the turn has.
INSERT_LATER_CALL: Final = insert(LLMCall).values(
    seq=select(func.coalesce(func.max(LLMCall.seq), 0) + 1)
    .where(LLMCall.turn_id == bindparam("for_turn"))
    .scalar_subquery()
)
INSERT_TOOL_CALL: Final = insert(ToolCall)
INSERT_TURN: Final = insert(Turn).values(
    seq=select(Conversation.turn_count)
    .where(Conversation.id == bindparam("numbered_in"))
    .scalar_subquery()
    - bindparam("later")
)
# A payload that is already stored is left as it is: inserting it again costs one look-up in
# the primary key, and it cannot go missing between this and the calls that reference it
# (retention's pruning is another write transaction, and SQLite runs one at a time).
INSERT_PAYLOADS: Final = sqlite_insert(LLMPayload).on_conflict_do_nothing(
    index_elements=[LLMPayload.hash]
)
# A turn's words enter the search index (``turns_fts``) once, after its answer: the index's
# triggers fire only for deletes and updates (migration 6c2e8f4b0a71). The turn is looked up by
# id twice (its row, and whether the index holds it already), so indexing again does nothing.
INDEX_TURN: Final = (
    "INSERT INTO turns_fts(rowid, user_text, reply_text) "
    "SELECT id, user_text, reply_text FROM turns WHERE id = ? "
    "AND NOT EXISTS (SELECT 1 FROM turns_fts_docsize WHERE turns_fts_docsize.id = ?)"
)
# Every turn the index lacks (a crash between a turn's commit and its indexing): at start.
INDEX_MISSING: Final = (
    "INSERT INTO turns_fts(rowid, user_text, reply_text) "
    "SELECT id, user_text, reply_text FROM turns WHERE NOT EXISTS "
    "(SELECT 1 FROM turns_fts_docsize WHERE turns_fts_docsize.id = turns.id)"
)
# Flagging a turn counts once on its conversation, however often the turn is judged.
COUNT_FLAG: Final = (
    update(Conversation)
    .where(
        Conversation.id
        == select(Turn.conversation_id)
        .where(Turn.id == bindparam("turn"), Turn.flagged.is_(False))
        .scalar_subquery()
    )
    .values(flagged_count=Conversation.flagged_count + 1)
)
SET_OUTCOME: Final = (
    update(Turn)
    .where(Turn.id == bindparam("turn"))
    .values(
        outcome=bindparam("outcome"),
        outcome_detail=bindparam("detail", type_=Turn.outcome_detail.type),
        flagged=bindparam("flag", type_=Turn.flagged.type),
    )
)


class _NewTurns:
    """A conversation's turns in a batch: its row as the first creates it, the rest counted."""

    __slots__ = ("errors", "first", "flagged", "turns", "updated_at")

    def __init__(self, first: TurnRecord) -> None:
        self.first = first
        self.updated_at = first.created_at
        self.turns = 1
        self.errors = 0 if first.error is None else 1
        self.flagged = 1 if first.flagged else 0

    def add(self, record: TurnRecord) -> None:
        """Count a later turn of the same conversation in the batch."""
        self.updated_at = record.created_at
        self.turns += 1
        self.errors += 0 if record.error is None else 1
        self.flagged += 1 if record.flagged else 0

    def row(self) -> Row:
        """The conversation's row (a stored conversation takes only the counters from it)."""
        record = self.first
        return {
            "id": record.conversation_id,
            "started_at": record.created_at,
            "updated_at": self.updated_at,
            "source": record.source,
            "device_id": record.device_id,
            "satellite_id": record.satellite_id,
            "language": record.language,
            "title": record.user_text[:TITLE_LENGTH],
            "turn_count": self.turns,
            "error_count": self.errors,
            "flagged_count": self.flagged,
        }


def _turn_row(numbered: NumberedTurn, later: int) -> Row:
    record = numbered.record
    return {
        "id": numbered.turn_id,
        "conversation_id": record.conversation_id,
        "numbered_in": record.conversation_id,
        "later": later,
        "created_at": record.created_at,
        "user_text": record.user_text,
        "reply_text": record.reply_text,
        "handled_by": record.handled_by,
        "language": record.language,
        "dry_run": record.dry_run,
        "error": record.error,
        "error_kind": record.error_kind,
        "duration_ms": record.duration_ms,
        "prompt_tokens": sum(call.prompt_tokens for call in record.llm_calls),
        "completion_tokens": sum(call.completion_tokens for call in record.llm_calls),
        "messages": record.messages,
        "timings": record.timings,
        "outcome": record.outcome,
        "outcome_detail": record.outcome_detail,
        "flagged": record.flagged,
        "context": record.context,
        "states": record.states,
        "actor": record.actor,
    }


def _insert_llm_calls(
    connection: Writable, turns: Sequence[NumberedTurn], statements: Statements
) -> None:
    """Store the batch's model calls, and the system prompts and tool lists they reference."""
    detacher = Detacher()
    rows: list[Row] = []
    for numbered in turns:
        calls = numbered.record.llm_calls
        for seq_no, (call, call_id) in enumerate(
            zip(calls, numbered.llm_call_ids, strict=True), start=1
        ):
            request = detacher.detach(call.request_messages, call.request_tools)
            rows.append(_llm_call_row(call, request, call_id, numbered.turn_id, seq_no))
    if not rows:
        return
    insert_payloads(connection, detacher, statements)
    statements.execute(connection, INSERT_LLM_CALL, rows)


def _llm_call_row(
    call: LLMCallRecord,
    request: Detached,
    call_id: int,
    turn_id: int,
    seq: int,
    purpose: str | None = None,
) -> Row:
    """The ``llm_calls`` row of ``call``, sent as ``request`` (its shared parts detached)."""
    return {
        "id": call_id,
        "turn_id": turn_id,
        "seq": seq,
        "started_at": call.started_at,
        "model": call.model,
        "streamed": call.streamed,
        "request_messages": request.messages,
        "request_tools": request.tools,
        "system_prompt_hash": request.system_prompt_hash,
        "tools_hash": request.tools_hash,
        "response": call.response,
        "prompt_tokens": call.prompt_tokens,
        "completion_tokens": call.completion_tokens,
        "ttft_ms": call.ttft_ms,
        "duration_ms": call.duration_ms,
        "finish_reason": call.finish_reason,
        "error": call.error,
        "endpoint": call.endpoint,
        "tool_call_id": call.tool_call_id,
        "note": call.note,
        "purpose": purpose,
    }


def insert_payloads(connection: Writable, detacher: Detacher, statements: Statements) -> None:
    """Store the system prompts and tool lists ``detacher`` split off (each once, ever)."""
    if detacher.payloads:
        created_at = utcnow()
        statements.execute(
            connection,
            INSERT_PAYLOADS,
            [payload.row() | {"created_at": created_at} for payload in detacher.payloads.values()],
        )


def write_later_calls(
    connection: Writable, calls: Sequence[LaterCall], statements: Statements | None = None
) -> None:
    """Store model calls made for stored turns after they ended, each after its turn's calls.

    Memory's extraction is traced under the turn it read and linked from it; its system prompt
    is stored once, as a payload. Each call is numbered after the calls its turn already has
    (in the statement, so calls of one turn in one batch follow each other).
    """
    if not calls:
        return
    statements = statements or Statements(connection.dialect)
    detacher = Detacher()
    rows = []
    for later in calls:
        request = detacher.detach(later.call.request_messages, later.call.request_tools)
        row = _llm_call_row(later.call, request, later.call_id, later.turn_id, 0, later.purpose)
        del row["seq"]
        rows.append(row | {"for_turn": later.turn_id})
    insert_payloads(connection, detacher, statements)
    statements.execute(connection, INSERT_LATER_CALL, rows)


def write_search_index(connection: Writable, turn_ids: Sequence[int]) -> None:
    """Put the turns ``turn_ids`` in the search index, each once (a gone one is skipped).

    Apart from :func:`write_turns`: the writer indexes turns in a later transaction than the
    one an answer waits for (:mod:`addon.store.turns.batches`).
    """
    if not turn_ids:
        return
    rows = [(turn_id, turn_id) for turn_id in turn_ids]
    if isinstance(connection, DriverConnection):
        connection.run(INDEX_TURN, rows)
    else:
        connection.exec_driver_sql(INDEX_TURN, rows if len(rows) > 1 else rows[0])


def write_outcomes(
    connection: Writable, updates: Sequence[OutcomeUpdate], statements: Statements | None = None
) -> None:
    """Record outcome checks; a turn newly flagged also counts on its conversation.

    The last verdict on a turn wins; a turn flagged by any of them counts once, and only if it
    was not flagged before. A turn that is gone (pruned meanwhile) is skipped without complaint.
    """
    if not updates:
        return
    statements = statements or Statements(connection.dialect)
    latest = {update.turn_id: update for update in updates}
    flagged = dict.fromkeys(update.turn_id for update in updates if update.flagged)
    if flagged:
        statements.execute(connection, COUNT_FLAG, [{"turn": turn_id} for turn_id in flagged])
    statements.execute(
        connection,
        SET_OUTCOME,
        [
            {
                "turn": update.turn_id,
                "outcome": update.outcome,
                "detail": update.detail,
                "flag": update.flagged,
            }
            for update in latest.values()
        ],
    )
