"""Retention: old conversations go, with their turns and search entries; memories stay."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import delete, func, select

from addon import keys
from addon.store.database import Store
from addon.store.models import Conversation, LLMPayload, Memory, Turn
from addon.store.retention import FIRST_RUN_DELAY_S, prune, prune_payloads
from tests.fixtures.app import MakeApp, MakeSettings
from tests.store.data import NOW, add_conversation, add_memory
from tests.store.search import search_turn_ids
from tests.store.turns.build import PROMPT, record, turn

AiohttpClient = Callable[..., Any]


async def _conversation_ids(store: Store) -> set[str]:
    async with store.sessionmaker() as session:
        return set(await session.scalars(select(Conversation.id)))


async def test_prune_deletes_only_conversations_older_than_the_limit(store: Store) -> None:
    """Conversations inactive past the limit go; those active within it stay."""
    await add_conversation(store, "old", updated_at=NOW - timedelta(days=8))
    await add_conversation(store, "recent", updated_at=NOW - timedelta(days=6))
    assert await prune(store, 7, now=NOW) == 1
    assert await _conversation_ids(store) == {"recent"}


async def test_prune_deletes_the_turns_of_pruned_conversations(store: Store) -> None:
    """The turns of a pruned conversation go with it."""
    await add_conversation(store, "old", updated_at=NOW - timedelta(days=8), turns=(("a", "b"),))
    await prune(store, 7, now=NOW)
    async with store.sessionmaker() as session:
        assert await session.scalar(select(func.count()).select_from(Turn)) == 0


async def test_pruned_turns_leave_the_search_index(store: Store) -> None:
    """Search no longer finds what was said in a pruned conversation."""
    await add_conversation(
        store, "old", updated_at=NOW - timedelta(days=8), turns=(("feed the cat", "Ok."),)
    )
    [kept] = await add_conversation(store, "recent", turns=(("the cat is fed", "Good."),))
    await prune(store, 7, now=NOW)
    async with store.sessionmaker() as session:
        assert await search_turn_ids(session, "cat", 10) == [kept]


async def test_prune_keeps_memories_and_forgets_their_source(store: Store) -> None:
    """A memory learnt in a pruned conversation survives, no longer pointing at it."""
    await add_conversation(store, "old", updated_at=NOW - timedelta(days=8))
    memory_id = await add_memory(store, "The cat is called Miso.", "old")
    await prune(store, 7, now=NOW)
    async with store.sessionmaker() as session:
        memory = await session.get(Memory, memory_id)
    assert memory is not None
    assert memory.source_conversation_id is None


async def test_prune_works_through_every_batch(store: Store) -> None:
    """More old conversations than one batch holds are all pruned, and all counted."""
    for n in range(5):
        await add_conversation(store, f"old-{n}", updated_at=NOW - timedelta(days=30 + n))
    assert await prune(store, 7, now=NOW, batch_size=2) == 5
    assert await _conversation_ids(store) == set()


async def _payloads(store: Store) -> dict[str, list[str]]:
    """The stored payloads' contents by kind."""
    by_kind: dict[str, list[str]] = {}
    async with store.sessionmaker() as session:
        for kind, content in await session.execute(select(LLMPayload.kind, LLMPayload.content)):
            by_kind.setdefault(kind, []).append(content)
    return by_kind


async def test_prune_deletes_payloads_only_pruned_conversations_used(store: Store) -> None:
    """The old conversation's own system prompt goes; the tool list still in use stays."""
    old = turn("old", minutes=-8 * 24 * 60, system="the prompt of last week")
    await record(store, old, turn("recent", system=PROMPT))
    await prune(store, 7, now=NOW)
    payloads = await _payloads(store)
    assert payloads["system_prompt"] == [PROMPT]
    assert len(payloads["tools"]) == 1


async def test_prune_keeps_payloads_when_nothing_is_old(store: Store) -> None:
    """Payloads referenced by kept conversations all stay."""
    await record(store, turn("recent"))
    await prune(store, 7, now=NOW)
    assert sorted(await _payloads(store)) == ["system_prompt", "tools"]


async def test_prune_payloads_works_through_every_batch(store: Store) -> None:
    """More unreferenced payloads than one batch holds are all deleted, and all counted."""
    await record(store, *(turn(f"c{n}", system=f"prompt {n}") for n in range(5)))
    async with store.sessionmaker.begin() as session:
        await session.execute(delete(Conversation))
    assert await prune_payloads(store, batch_size=2) == 6
    assert await _payloads(store) == {}


async def test_prune_with_zero_days_keeps_everything(store: Store) -> None:
    """0 days means keep forever: nothing is deleted, however old."""
    await add_conversation(store, "ancient", updated_at=NOW - timedelta(days=3000))
    assert await prune(store, 0, now=NOW) == 0
    assert await _conversation_ids(store) == {"ancient"}


async def test_running_app_prunes_shortly_after_start(
    aiohttp_client: AiohttpClient, make_settings: MakeSettings, make_app: MakeApp
) -> None:
    """Under the real app, retention_days=1 prunes an old conversation soon after start."""
    settings = make_settings(retention_days=1)
    now = datetime.now(UTC)
    seeded = await Store.open(settings.database_path)
    try:
        await add_conversation(seeded, "old", updated_at=now - timedelta(days=3))
        await add_conversation(seeded, "recent", updated_at=now - timedelta(hours=1))
    finally:
        await seeded.close()
    client: TestClient[Any, Any] = await aiohttp_client(make_app(settings))
    store = client.app[keys.STORE]

    async def pruned() -> None:
        # Nothing signals a finished prune but the data itself, so poll it.
        while "old" in await _conversation_ids(store):  # noqa: ASYNC110
            await asyncio.sleep(0.1)

    await asyncio.wait_for(pruned(), FIRST_RUN_DELAY_S + 10)
    assert await _conversation_ids(store) == {"recent"}


async def test_failing_prune_is_logged_and_the_app_keeps_running(
    aiohttp_client: AiohttpClient,
    make_app: MakeApp,
    make_settings: MakeSettings,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A prune that fails logs the traceback and the app keeps serving."""
    settings = make_settings(retention_days=1)
    client: TestClient[Any, Any] = await aiohttp_client(make_app(settings))
    # Break the table the prune deletes from, as a damaged or tampered file would.
    with closing(sqlite3.connect(settings.database_path, timeout=5)) as connection, connection:
        connection.execute("ALTER TABLE conversations RENAME TO conversations_gone")

    async def logged() -> logging.LogRecord:
        while True:
            for record in caplog.records:
                if record.name == "addon.store.retention" and record.exc_info:
                    return record
            await asyncio.sleep(0.1)

    record = await asyncio.wait_for(logged(), FIRST_RUN_DELAY_S + 10)
    response = await client.get("/health")
    assert record.levelno == logging.ERROR
    assert response.status == 200


async def test_pruned_conversations_are_forgotten_by_the_writer(store: Store) -> None:
    """After pruning, a pruned id counts as new again (no history read); kept ones stay known."""
    store.writer.submit(turn("old", minutes=-8 * 24 * 60))
    store.writer.submit(turn("recent", minutes=-6 * 24 * 60))
    await store.writer.flush()
    assert await prune(store, 7, now=NOW) == 1
    assert not store.writer.knows("old")
    assert store.writer.knows("recent")


async def test_a_conversation_with_turns_waiting_stays_known(store: Store) -> None:
    """A turn handed to the writer but not yet written keeps its conversation known."""
    store.writer.submit(turn("old", minutes=-8 * 24 * 60))
    await store.writer.flush()
    with store.writer.turn_in_progress():
        store.writer.submit(turn("old", user_text="back again"))
        assert await prune(store, 7, now=NOW) == 1
        assert store.writer.knows("old")
    await store.writer.flush()
    assert await _conversation_ids(store) == {"old"}
