"""Turn ids are reserved in the database: the id given out is the id the turn is stored under."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import select, text

from addon.store.database import Store
from addon.store.models import LLMCall, Turn
from addon.store.turns import OutcomeUpdate, TurnWriter
from tests.store.turns.build import model_call, record, turn

# Long enough that nothing is written before the test flushes while a turn is in progress.
HOLD_S = 3600.0


async def stored_ids(store: Store) -> dict[str, list[int]]:
    """Each conversation's stored turn ids, in order."""
    async with store.sessionmaker() as session:
        rows = await session.execute(select(Turn.conversation_id, Turn.id).order_by(Turn.id))
    found: dict[str, list[int]] = {}
    for conversation_id, turn_id in rows:
        found.setdefault(conversation_id, []).append(turn_id)
    return found


@pytest.fixture
async def small_blocks(store: Store) -> AsyncIterator[TurnWriter]:
    """A second writer of the store's file that reserves four ids at a time."""
    writer = TurnWriter(store.engine, max_delay_s=HOLD_S, id_block=4)
    await writer.start()
    try:
        yield writer
    finally:
        await writer.close()


async def test_a_turn_keeps_its_id_when_another_writer_records_meanwhile(store: Store) -> None:
    """Another writer's turn gets an id of its own; ours is stored under the one given out."""
    with store.writer.turn_in_progress():
        ours = store.writer.submit(turn("ours"))
        store.writer.submit_outcome(OutcomeUpdate(ours, "confirmed", {}, False))
        [theirs] = await record(store, turn("theirs"))
    assert await store.writer.flush()
    assert theirs != ours
    assert await stored_ids(store) == {"ours": [ours], "theirs": [theirs]}
    async with store.sessionmaker() as session:
        stored = await session.get(Turn, ours)
    assert stored is not None
    assert stored.outcome == "confirmed"


async def test_two_writers_of_one_file_never_give_out_the_same_id(
    store: Store, small_blocks: TurnWriter
) -> None:
    """Turns and model calls from two writers, interleaved past their blocks, keep their ids."""
    given: dict[str, list[int]] = {"first": [], "second": []}
    with store.writer.turn_in_progress(), small_blocks.turn_in_progress():
        for _ in range(3):
            given["first"].append(store.writer.submit(turn("first")))
            given["second"].append(small_blocks.submit(turn("second")))
    assert await store.writer.flush()
    assert await small_blocks.flush()
    with store.writer.turn_in_progress(), small_blocks.turn_in_progress():
        for _ in range(3):
            given["second"].append(small_blocks.submit(turn("second")))
            given["first"].append(store.writer.submit(turn("first")))
    assert await small_blocks.flush()
    assert await store.writer.flush()
    assert await stored_ids(store) == given
    async with store.sessionmaker() as session:
        calls = list(await session.scalars(select(LLMCall.turn_id)))
    assert sorted(calls) == sorted(2 * [*given["first"], *given["second"]])


async def test_ids_given_out_beyond_the_reservation_are_claimed(
    store: Store, small_blocks: TurnWriter
) -> None:
    """More turns than the block holds, handed out at once, are stored under the ids given."""
    with small_blocks.turn_in_progress():
        given = [small_blocks.submit(turn("burst")) for _ in range(7)]
    assert given == list(range(given[0], given[0] + 7))
    assert await small_blocks.flush()
    [after] = await record(store, turn("later"))
    assert await stored_ids(store) == {"burst": given, "later": [after]}
    assert after > given[-1]


async def test_ids_beyond_the_reservation_taken_meanwhile_are_given_again(
    store: Store, small_blocks: TurnWriter, caplog: pytest.LogCaptureFixture
) -> None:
    """The one case a turn changes id: given out on trust and taken before it could be claimed."""
    with small_blocks.turn_in_progress():
        given = [small_blocks.submit(turn("burst")) for _ in range(5)]
        small_blocks.submit_outcome(OutcomeUpdate(given[-1], "mismatch", {}, True))
        [theirs] = await record(store, turn("theirs"))
    assert theirs == given[-1]
    with caplog.at_level(logging.ERROR, logger="addon.store.turns.writer"):
        assert await small_blocks.flush()
    stored = await stored_ids(store)
    assert stored["theirs"] == [theirs]
    assert stored["burst"][:4] == given[:4]
    [moved] = stored["burst"][4:]
    assert moved not in given
    assert f"{theirs}→{moved}" in caplog.text
    async with store.sessionmaker() as session:
        flagged = await session.get(Turn, moved)
    assert flagged is not None
    assert flagged.outcome == "mismatch"


async def test_the_next_start_numbers_on_without_a_gap(tmp_path: Path) -> None:
    """A stop hands back the unused reservation: the next run's first turn follows the last."""
    path = tmp_path / "home_agent.db"
    store = await Store.open(path)
    last = store.writer.submit(turn("c1"))
    await store.close()
    store = await Store.open(path)
    try:
        assert store.writer.submit(turn("c1")) == last + 1
    finally:
        await store.close()


async def test_rows_written_past_the_counters_are_never_reused(tmp_path: Path) -> None:
    """A turn stored without a reservation (raw SQL) is stepped over by the next reservation."""
    path = tmp_path / "home_agent.db"
    store = await Store.open(path)
    [first] = await record(store, turn("c1"))
    await store.close()
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO turns (id, conversation_id, seq, created_at, user_text, reply_text,"
            " handled_by, language, dry_run, duration_ms, prompt_tokens, completion_tokens,"
            " messages, timings, outcome, outcome_detail, flagged)"
            " VALUES (?, 'c1', 99, '2026-01-01', 'raw', '', 'llm', 'en', 0, 0, 0, 0, '[]', '{}',"
            " 'unchecked', '{}', 0)",
            (first + 100,),
        )
    connection.close()
    store = await Store.open(path)
    try:
        given = store.writer.submit(turn("c1"))
        assert await store.writer.flush()
        assert given == first + 101
        assert await stored_ids(store) == {"c1": [first, first + 100, given]}
    finally:
        await store.close()


async def test_each_table_reserves_only_as_it_runs_low(
    store: Store, small_blocks: TurnWriter
) -> None:
    """Model calls (two a turn) running low do not make turns reserve more than they use."""
    given = []
    for _ in range(12):
        given.append(small_blocks.submit(turn("c1")))
        assert await small_blocks.flush()
    async with store.engine.connect() as connection:
        counters = dict((await connection.execute(text("SELECT * FROM id_counters"))).all())
    assert counters["turns"] - given[-1] <= 4 + 1  # a block, after at most one left


async def test_a_later_call_follows_its_renumbered_turn(
    store: Store, small_blocks: TurnWriter, caplog: pytest.LogCaptureFixture
) -> None:
    """A turn given a new id takes memory's call after it along.

    The call gets a new id too if its own was taken meanwhile, as the turn's calls do.
    """
    with small_blocks.turn_in_progress():
        given = [small_blocks.submit(turn("burst")) for _ in range(5)]
        await small_blocks.add_later_call(given[-1], model_call([], []), purpose="memory")
        await record(store, turn("theirs"))
    with caplog.at_level(logging.ERROR, logger="addon.store.turns.writer"):
        assert await small_blocks.flush()
    [moved] = (await stored_ids(store))["burst"][4:]
    async with store.sessionmaker() as session:
        calls = list(
            await session.scalars(
                select(LLMCall).where(LLMCall.turn_id == moved).order_by(LLMCall.seq)
            )
        )
    assert [(call.seq, call.purpose) for call in calls] == [(1, None), (2, None), (3, "memory")]
