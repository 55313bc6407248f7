"""Cost of recording a turn: through the store's writer, as the agent does, and per transaction.

The turn is what the model path records: two model calls that both carry the same 40 KB system
prompt (a home overview) and the same 9 KB tool list, the conversation so far, and one tool call
between them. As in the agent, the system prompt and the tool list are the same objects for both
calls of a turn and are rebuilt, equal, for the next turn. Conversations run to ten turns, so
later requests also carry the history.

Three ways, into real SQLite files opened through ``Store.open``, the commit included:

- the agent's way when turns come one at a time: ``store.writer.submit`` then ``flush`` (a batch
  of one; off the reply's path, so this is CPU and disk time, not reply latency);
- the agent's way when many turns finish together: 100 submitted, then one ``flush`` (one
  transaction for the batch), per turn;
- ``record_turn`` inside ``sessionmaker.begin()``, one transaction per turn, the form tools and
  tests use (it also reserves its ids first, which the writer does a block at a time).

Growth is the database's used pages (page count less free pages) after a checkpoint, before and
after, per turn, measured on the one-at-a-time run.

Then throughput under load, agent and writer together: 20 clients at once, each sending
``CLIENT_TURNS`` commands the local path answers (``bench/local_path.py``'s demo home and
sentences, ``Agent.process`` with no model, a real store), each answer awaiting its turn's
commit, as every endpoint does. ``turns_per_s_20_clients`` counts answered (so stored) turns per
second; ``agent_alone_turns_per_s_20_clients`` is the same agent whose turns are handed to
records that store nothing, the rate the writer has to keep up with. The ``cpu_ms_per_turn``
pair is the process's CPU time per turn (all threads) for the two, steadier than the rates when
other work shares the machine (the 1-minute load average is reported too). Medians over
``THROUGHPUT_ROUNDS`` alternating rounds. The last line printed is one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

# The repository in place of bench/ itself, where bench/mcp.py would hide the mcp package.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

from addon.agent.conversation import ConversationRequest
from addon.agent.service import Agent
from addon.config.settings import Options
from addon.home.actions.virtual import VirtualExecutor
from addon.local.matcher import LocalMatcher
from addon.store.database import Store
from addon.store.turns import (
    AddedTurn,
    ConversationRecords,
    LLMCallRecord,
    OutcomeUpdate,
    ToolCallRecord,
    TurnRecord,
)
from bench.local_path import SENTENCES, StaticHome, demo_home
from devtools.recording import record_turn

TURNS = 400
WARMUP = 20
TURNS_PER_CONVERSATION = 10
BATCH = 100
PROMPT_BYTES = 40_000
TOOLS_BYTES = 9_000
START = datetime(2026, 11, 22, 8, 0, tzinfo=UTC)
CLIENTS = 20
CLIENT_TURNS = 60
CLIENT_CONVERSATION_TURNS = 5
THROUGHPUT_ROUNDS = 3


def system_prompt() -> str:
    """About PROMPT_BYTES of overview-like YAML, built afresh (a new, equal string) per turn."""
    lines = ["You are a voice assistant for Home Assistant.", "Static Context:"]
    number = 0
    while sum(len(line) + 1 for line in lines) < PROMPT_BYTES:
        lines.append(f"- names: Ceiling Light {number}, Lamp {number}\n  domain: light")
        lines.append(f"  areas: Room {number % 40}, Zone {number % 7}")
        number += 1
    return "\n".join(lines) + "\n"


def tools() -> list[dict[str, Any]]:
    """About TOOLS_BYTES of OpenAI tool specs, built afresh (a new, equal list) per turn."""
    specs: list[dict[str, Any]] = []
    number = 0
    while len(json.dumps(specs)) < TOOLS_BYTES:
        specs.append(
            {
                "type": "function",
                "function": {
                    "name": f"HassTool{number}",
                    "description": "Turns on/opens/presses a device or entity. " * 2,
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "area": {"type": "string"},
                            "domain": {"type": "array", "items": {"type": "string"}},
                        },
                    },
                },
            }
        )
        number += 1
    return specs


def turn(number: int, history: list[dict[str, Any]]) -> TurnRecord:
    """Turn ``number``: two model calls with a tool call between them."""
    at = START + timedelta(seconds=30 * number)
    system = {"role": "system", "content": system_prompt()}
    specs = tools()
    user = {"role": "user", "content": f"turn on lamp number {number}"}
    asked = {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": f"call_{number}",
                "type": "function",
                "function": {"name": "HassTurnOn", "arguments": '{"name": "Lamp"}'},
            }
        ],
    }
    result = {"response_type": "action_done", "data": {"success": [{"id": "light.lamp"}]}}
    answered = {"role": "tool", "tool_call_id": f"call_{number}", "content": json.dumps(result)}
    reply = {"role": "assistant", "content": f"Turned on lamp {number}."}

    def call(messages: list[dict[str, Any]], response: dict[str, Any]) -> LLMCallRecord:
        return LLMCallRecord(
            started_at=at,
            model="bench-model",
            streamed=True,
            request_messages=messages,
            request_tools=specs,
            response=response,
            prompt_tokens=12_000,
            completion_tokens=20,
            ttft_ms=150.0,
            duration_ms=600.0,
            finish_reason="stop",
            error=None,
        )

    return TurnRecord(
        conversation_id=f"bench-{number // TURNS_PER_CONVERSATION:04d}",
        source="wyoming",
        device_id="kitchen-satellite",
        satellite_id=None,
        language="en",
        created_at=at,
        user_text=user["content"],
        reply_text=reply["content"],
        handled_by="llm",
        dry_run=False,
        error=None,
        duration_ms=1300.0,
        messages=[user, asked, answered, reply],
        timings={"total": 1300.0, "loop": 1250.0},
        llm_calls=[
            call([system, *history, user], asked),
            call([system, *history, user, asked, answered], reply),
        ],
        tool_calls=[
            ToolCallRecord(
                started_at=at,
                call_id=f"call_{number}",
                name="HassTurnOn",
                arguments={"name": "Lamp"},
                result=result,
                duration_ms=20.0,
                executor="live",
                error=None,
                llm_call=0,
            )
        ],
    )


async def used_bytes(store: Store) -> int:
    """Bytes of the database's pages in use, after folding the WAL in."""
    await store.checkpoint()
    async with store.engine.connect() as connection:
        page_size = (await connection.exec_driver_sql("PRAGMA page_size")).scalar_one()
        pages = (await connection.exec_driver_sql("PRAGMA page_count")).scalar_one()
        free = (await connection.exec_driver_sql("PRAGMA freelist_count")).scalar_one()
    return int(page_size) * (int(pages) - int(free))


def records(count: int) -> list[TurnRecord]:
    """``count`` turns in conversations of TURNS_PER_CONVERSATION, history growing in each."""
    history: list[dict[str, Any]] = []
    made = []
    for number in range(count):
        if number % TURNS_PER_CONVERSATION == 0:
            history = []
        record = turn(number, history)
        made.append(record)
        history = [*history, *record.messages]
    return made


async def through_writer(path: Path, size: int) -> tuple[list[float], float]:
    """Per-turn times of ``size`` turns submitted together then flushed, and growth per turn."""
    store = await Store.open(path)
    per_turn: list[float] = []
    try:
        all_turns = records(WARMUP + TURNS)
        for record in all_turns[:WARMUP]:
            store.writer.submit(record)
        await store.writer.flush()
        before = await used_bytes(store)
        measured = all_turns[WARMUP:]
        for first in range(0, len(measured), size):
            batch = measured[first : first + size]
            started = time.perf_counter()
            with store.writer.turn_in_progress():
                for record in batch:
                    store.writer.submit(record)
            await store.writer.flush()
            per_turn.append((time.perf_counter() - started) * 1000 / len(batch))
        growth = (await used_bytes(store) - before) / TURNS
    finally:
        await store.close()
    return per_turn, growth


async def transactions(directory: Path) -> list[float]:
    """Per-turn times of ``record_turn``, one transaction each."""
    store = await Store.open(directory / "record_turn.db")
    times: list[float] = []
    try:
        for number, record in enumerate(records(WARMUP + TURNS)):
            started = time.perf_counter()
            async with store.sessionmaker.begin() as session:
                await record_turn(session, record)
            if number >= WARMUP:
                times.append((time.perf_counter() - started) * 1000)
    finally:
        await store.close()
    return times


class StoringNothing(ConversationRecords):
    """Records that keep nothing: the agent alone, with no writer to keep up with it."""

    __slots__ = ("_next_id",)

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._next_id = 0

    def known(self, conversation_id: str) -> bool:
        """Nothing is ever stored, so nothing is known."""
        return False

    async def add_turn(self, record: TurnRecord) -> AddedTurn:
        """An id, and a commit that has already happened."""
        self._next_id += 1
        committed = asyncio.get_running_loop().create_future()
        committed.set_result(True)
        return AddedTurn(self._next_id, committed)

    async def add_outcome(self, update: OutcomeUpdate) -> None:
        """Kept nowhere."""


async def clients_at_once(path: Path, *, storing: bool) -> tuple[float, float]:
    """Turns per second of CLIENTS clients sending local commands at once, each awaited.

    Also the process's CPU time per turn (every thread), which other load on the machine
    inflates less than the wall time.
    """
    store = await Store.open(path)
    try:
        home = demo_home()
        matcher = LocalMatcher("en")
        matcher.prepare()
        agent = Agent(
            options=Options.model_validate({"local_first": True}),
            records=ConversationRecords(store) if storing else StoringNothing(store),
            home=StaticHome(home),
            live_executor=VirtualExecutor(home),
            llm=None,
            local=matcher,
            outcome_delay=0.0,
        )
        sentences = [text for text in SENTENCES if "time" not in text]

        async def client(number: int, turns: int) -> None:
            for turn_no in range(turns):
                conversation = f"client-{number}-{turn_no // CLIENT_CONVERSATION_TURNS}"
                text = sentences[(number + turn_no) % len(sentences)]
                result = await agent.process(
                    ConversationRequest(text, source="http", conversation_id=conversation)
                )
                if result.handled_by != "local":
                    raise SystemExit(f"the agent did not answer {text!r} locally: {result}")

        await asyncio.gather(*(client(n, 2) for n in range(CLIENTS)))  # warm-up
        await agent.drain()
        started, cpu_started = time.perf_counter(), time.process_time()
        await asyncio.gather(*(client(100 + n, CLIENT_TURNS) for n in range(CLIENTS)))
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        await agent.drain()
        turns = CLIENTS * CLIENT_TURNS
        return turns / elapsed, cpu * 1000 / turns
    finally:
        await store.close()


async def throughput(directory: Path) -> dict[str, float]:
    """Medians over rounds, agent and writer together, then the agent alone, side by side."""
    rounds: dict[str, list[float]] = {}
    for round_no in range(THROUGHPUT_ROUNDS):
        for key, storing in (("", True), ("agent_alone_", False)):
            rate, cpu = await clients_at_once(directory / f"{key}{round_no}.db", storing=storing)
            rounds.setdefault(f"{key}turns_per_s_20_clients", []).append(rate)
            rounds.setdefault(f"{key}cpu_ms_per_turn_20_clients", []).append(cpu)
    return {key: round(statistics.median(values), 3) for key, values in rounds.items()}


async def main() -> None:
    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        single, growth = await through_writer(directory / "single.db", 1)
        batched, _ = await through_writer(directory / "batches.db", BATCH)
        direct = await transactions(directory)
        loaded = await throughput(directory)
    single.sort()
    direct.sort()
    summary = {
        "bench": "record_turn",
        "turns": TURNS,
        "writer_ms_per_turn_single": round(statistics.median(single), 3),
        "writer_ms_per_turn_batch": round(statistics.median(batched), 3),
        "record_turn_ms_median": round(statistics.median(direct), 3),
        "record_turn_ms_p95": round(direct[int(len(direct) * 0.95) - 1], 3),
        "growth_bytes_per_turn": round(growth),
        **loaded,
        "load_average_1min": round(os.getloadavg()[0], 2),
    }
    print(f"{'way':<44} {'median ms/turn':>14}")
    print(f"{'writer, one turn at a time (submit + flush)':<44} {statistics.median(single):>14.3f}")
    print(f"{f'writer, {BATCH} turns per batch':<44} {statistics.median(batched):>14.3f}")
    print(f"{'record_turn, one transaction per turn':<44} {statistics.median(direct):>14.3f}")
    print(
        f"ratio, batch / one at a time: "
        f"{statistics.median(batched) / statistics.median(single):.2f}; "
        f"database growth {growth / 1024:.1f} KiB per turn over {TURNS} turns"
    )
    together, alone = loaded["turns_per_s_20_clients"], loaded["agent_alone_turns_per_s_20_clients"]
    print(
        f"{CLIENTS} clients at once, local path: {together:.0f} turns/s answered and stored, "
        f"{alone:.0f} turns/s the agent alone ({together / alone:.0%}); CPU per turn "
        f"{loaded['cpu_ms_per_turn_20_clients']:.2f} ms against "
        f"{loaded['agent_alone_cpu_ms_per_turn_20_clients']:.2f} ms"
    )
    print(json.dumps(summary))


if __name__ == "__main__":
    asyncio.run(main())
