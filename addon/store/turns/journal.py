"""An answered turn made durable in one row before its own rows are written: the turn journal.

An answered turn is a stored turn, even through a power cut, so the answer waits for a commit
synced to the disk. It used to wait for the turn's rows themselves: a conversation (a new one
for most voice requests), the turn, its model calls and its tool calls, each in its table and in
every index on it, about twenty pages of the WAL written on the event loop before the answer
(half a millisecond of the agent's three for a model turn, ``bench/agent_overhead.py``). Now the
answer waits for one row of ``turn_journal`` holding the whole turn as JSON, three or four pages;
its system prompt and tool list are stored once, as payloads, exactly as for a written call
(:mod:`addon.store.turns.payloads`). The writer's task writes the turn's rows once the answer is
out (at the next moment no turn is being answered, as for outcome checks) and deletes the entry
in the same transaction, so an entry exists exactly while its turn's rows do not. A start after a
crash writes the entries left (:func:`recover`) before anything else reads or writes.

The body is written with the JSON columns' own encoder (:func:`addon.store.file.encoding.dumps`),
so a turn holding a value those columns cannot hold (a set, say) fails here, before its answer,
and takes the writer's ordinary path, which reports it unstorable to whoever waits. A body that
cannot be read back (written by a version that stored turns otherwise) is logged and left where
it is at every start, never dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass, fields, replace
from datetime import datetime
from typing import Final

from pydantic import TypeAdapter, ValidationError
from sqlalchemy import select
from sqlalchemy.engine import Connection

from addon.store.file import encoding
from addon.store.models import LLMPayload, Turn, TurnJournalEntry
from addon.store.turns.conversations import (
    LLMCallRecord,
    NumberedTurn,
    ToolCallRecord,
    TurnRecord,
)
from addon.store.turns.driver import DriverConnection
from addon.store.turns.payloads import Detacher, PayloadRefs, attached
from addon.store.turns.prepared import Statements
from addon.store.turns.turn_writes import Writable, insert_payloads, write_turns
from addon.text import JsonObject

_LOGGER = logging.getLogger(__name__)

FORMAT: Final = 1
"""The body's layout; an entry of another layout is left for the version that wrote it."""
INSERT_ENTRY: Final = "INSERT INTO turn_journal (turn_id, body) VALUES (?, ?)"
DELETE_ENTRY: Final = "DELETE FROM turn_journal WHERE turn_id = ?"
_TURN_FIELDS: Final = tuple(field.name for field in fields(TurnRecord))
_CALL_FIELDS: Final = tuple(field.name for field in fields(LLMCallRecord))
_TOOL_CALL_FIELDS: Final = tuple(field.name for field in fields(ToolCallRecord))


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """A numbered turn as its journal row holds it, each call's shared parts by reference."""

    format: int
    turn_id: int
    llm_call_ids: list[int]
    turn: TurnRecord
    """The turn, each model call's system prompt and tool list replaced by ``payloads``."""
    payloads: list[PayloadRefs]


def write_journal(
    connection: DriverConnection, turns: Sequence[NumberedTurn], statements: Statements
) -> None:
    """Put ``turns`` in the journal, in the caller's transaction, with the payloads they name.

    Raises what the JSON columns would raise for a value they cannot hold.
    """
    detacher = Detacher()
    rows = [(numbered.turn_id, encoding.dumps(_body(numbered, detacher))) for numbered in turns]
    insert_payloads(connection, detacher, statements)
    connection.run(INSERT_ENTRY, rows)


def delete_entries(connection: Writable, turn_ids: Collection[int]) -> None:
    """Drop the journal entries of ``turn_ids``, whose rows are written in this transaction."""
    if not turn_ids:
        return
    rows = [(turn_id,) for turn_id in turn_ids]
    if isinstance(connection, DriverConnection):
        connection.run(DELETE_ENTRY, rows)
    else:
        connection.exec_driver_sql(DELETE_ENTRY, rows if len(rows) > 1 else rows[0])


def journaled(connection: Connection) -> list[NumberedTurn]:
    """The turns a crash left in the journal, as they were handed over, oldest first.

    At start, before ids are reserved or anything is read; each is then written in a
    transaction of its own (:func:`write_recovered`). An entry whose turn is stored already (it
    cannot be, but a copy of the file may be odd) is dropped here; one that cannot be read is
    logged and left.
    """
    query = select(TurnJournalEntry.turn_id, TurnJournalEntry.body)
    rows = connection.execute(query.order_by(TurnJournalEntry.turn_id)).all()
    if not rows:
        return []
    ids = [int(turn_id) for turn_id, _body in rows]
    stored = set(connection.scalars(select(Turn.id).where(Turn.id.in_(ids))))
    delete_entries(connection, stored)
    adapter = TypeAdapter(JournalEntry)
    entries = [
        entry
        for turn_id, body in rows
        if turn_id not in stored and (entry := _read(adapter, turn_id, body)) is not None
    ]
    return _attached(connection, entries)


def write_recovered(connection: Connection, numbered: NumberedTurn) -> None:
    """Write a turn left in the journal and drop its entry, in the caller's transaction."""
    write_turns(connection, [numbered])
    delete_entries(connection, [numbered.turn_id])


def _body(numbered: NumberedTurn, detacher: Detacher) -> dict[str, object]:
    """The journal's JSON for ``numbered``: plain values, times as ISO text, payloads by hash."""
    record = numbered.record
    turn: dict[str, object] = {name: getattr(record, name) for name in _TURN_FIELDS}
    turn["created_at"] = record.created_at.isoformat()
    calls: list[dict[str, object]] = []
    refs: list[dict[str, object]] = []
    for call in record.llm_calls:
        request = detacher.detach(call.request_messages, call.request_tools)
        plain = _plain(call, _CALL_FIELDS, call.started_at)
        plain["request_messages"] = request.messages
        plain["request_tools"] = []
        calls.append(plain)
        refs.append({"system_prompt": request.system_prompt_hash, "tools": request.tools_hash})
    turn["llm_calls"] = calls
    turn["tool_calls"] = [
        _plain(call, _TOOL_CALL_FIELDS, call.started_at) for call in record.tool_calls
    ]
    return {
        "format": FORMAT,
        "turn_id": numbered.turn_id,
        "llm_call_ids": numbered.llm_call_ids,
        "turn": turn,
        "payloads": refs,
    }


def _plain(record: object, names: tuple[str, ...], started_at: datetime) -> dict[str, object]:
    """A call record's fields by name, its start as ISO text."""
    plain = {name: getattr(record, name) for name in names}
    plain["started_at"] = started_at.isoformat()
    return plain


def _read(adapter: TypeAdapter[JournalEntry], turn_id: int, body: object) -> JournalEntry | None:
    """The entry in ``body``, or None (logged) when it is not one this version reads."""
    try:
        entry = adapter.validate_json(str(body))
    except (ValueError, ValidationError) as err:
        _LOGGER.error(
            "The journal entry of turn %d cannot be read; it is left in turn_journal: %s",
            turn_id,
            err,
        )
        return None
    if entry.format != FORMAT or entry.turn_id != turn_id:
        _LOGGER.error(
            "The journal entry of turn %d has layout %d (this version reads %d) or another id; "
            "it is left in turn_journal",
            turn_id,
            entry.format,
            FORMAT,
        )
        return None
    return entry


def _attached(connection: Connection, entries: Sequence[JournalEntry]) -> list[NumberedTurn]:
    """The entries' turns with each call's system prompt and tool list put back from payloads.

    A payload that is gone (pruned meanwhile, which retention never does to a recent one) leaves
    the call's reference as it is (:func:`~addon.store.turns.payloads.attached`).
    """
    hashes = {
        digest
        for entry in entries
        for refs in entry.payloads
        for digest in (refs.system_prompt, refs.tools)
        if digest is not None
    }
    query = select(LLMPayload.hash, LLMPayload.content).where(LLMPayload.hash.in_(hashes))
    contents = dict(connection.execute(query).all()) if hashes else {}
    parsed_tools: dict[str, list[JsonObject]] = {}
    turns: list[NumberedTurn] = []
    for entry in entries:
        calls = []
        for call, refs in zip(entry.turn.llm_calls, entry.payloads, strict=True):
            sent = attached(call.request_messages, [], refs, contents, parsed_tools)
            calls.append(replace(call, request_messages=sent.messages, request_tools=sent.tools))
        turns.append(
            NumberedTurn(replace(entry.turn, llm_calls=calls), entry.turn_id, entry.llm_call_ids)
        )
    return turns
