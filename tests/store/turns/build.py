"""Turns as the agent records them, through ``record_turn``, for store tests."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from addon.store.database import Store
from addon.store.turns import LLMCallRecord, ToolCallRecord, TurnRecord
from devtools.recording import record_turn
from tests.store.data import NOW

PROMPT = "You are a voice assistant for Home Assistant.\nStatic Context:\n" + "- light\n" * 2000
TOOLS_JSON = json.dumps(
    [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": "Turns on/opens a device.",
                "parameters": {"type": "object", "properties": {"name": {"type": "string"}}},
            },
        }
        for name in ("HassTurnOn", "HassTurnOff", "GetLiveContext")
    ]
)


def tools() -> list[dict[str, Any]]:
    """The tool list, a new but equal object each time, as the agent builds it per turn."""
    result: list[dict[str, Any]] = json.loads(TOOLS_JSON)
    return result


def model_call(messages: list[dict[str, Any]], offered: list[dict[str, Any]]) -> LLMCallRecord:
    """A successful model call that was sent ``messages`` and ``offered``."""
    return LLMCallRecord(
        started_at=NOW,
        model="test-model",
        streamed=False,
        request_messages=messages,
        request_tools=offered,
        response={"role": "assistant", "content": "Done."},
        prompt_tokens=100,
        completion_tokens=5,
        ttft_ms=None,
        duration_ms=300.0,
        finish_reason="stop",
        error=None,
    )


def tool_call(llm_call: int | None) -> ToolCallRecord:
    """A tool call asked for by model call ``llm_call`` (None: by the local path)."""
    return ToolCallRecord(
        started_at=NOW,
        call_id="call_1",
        name="HassTurnOn",
        arguments={"name": "Lamp"},
        result={"response_type": "action_done"},
        duration_ms=10.0,
        executor="live",
        error=None,
        llm_call=llm_call,
    )


def turn(
    conversation_id: str = "c1",
    *,
    user_text: str = "turn on the lamp",
    minutes: int = 0,
    error: str | None = None,
    system: str = PROMPT,
    llm_calls: list[LLMCallRecord] | None = None,
    tool_calls: list[ToolCallRecord] | None = None,
) -> TurnRecord:
    """A turn sent to the model twice (one system prompt object, one tool list object)."""
    if llm_calls is None:
        system_message = {"role": "system", "content": system[:]}
        offered = tools()
        user = {"role": "user", "content": user_text}
        asked = {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1"}]}
        answered = {"role": "tool", "tool_call_id": "call_1", "content": "{}"}
        llm_calls = [
            model_call([system_message, user], offered),
            model_call([system_message, user, asked, answered], offered),
        ]
    return TurnRecord(
        conversation_id=conversation_id,
        source="http",
        device_id=None,
        satellite_id=None,
        language="en",
        created_at=NOW + timedelta(minutes=minutes),
        user_text=user_text,
        reply_text="Done.",
        handled_by="llm",
        dry_run=False,
        error=error,
        duration_ms=500.0,
        messages=[{"role": "user", "content": user_text}],
        timings={"total": 500.0},
        llm_calls=llm_calls,
        tool_calls=[tool_call(0)] if tool_calls is None else tool_calls,
    )


async def record(store: Store, *records: TurnRecord) -> list[int]:
    """Record each turn in its own transaction, as the agent does; returns the turn ids."""
    ids = []
    for one in records:
        async with store.sessionmaker.begin() as session:
            ids.append(await record_turn(session, one))
    return ids


def next_statement(store: Store, beginning: str) -> asyncio.Event:
    """An event set when the writer next runs a statement so beginning (loop or thread).

    Watches the writer's own connections through ``sqlite3``'s trace hook, without sleeping.
    """
    seen_it = asyncio.Event()
    loop = asyncio.get_running_loop()

    def seen(statement: str) -> None:
        if statement.startswith(beginning):
            loop.call_soon_threadsafe(seen_it.set)

    for connection in store.writer.batch_connections:
        connection.dbapi.set_trace_callback(seen)
    return seen_it


async def as_a_kill_leaves_it(store: Store, copy: Path) -> Store:
    """The store opened again on a copy of its file as it is now: what a kill now leaves.

    A consistent copy of everything committed (``VACUUM INTO``); what only the process held
    (the writer's queue) is gone, as it would be.
    """
    async with store.engine.connect() as connection:
        await connection.exec_driver_sql(f"VACUUM INTO '{copy}'")
    return await Store.open(copy)
