"""Memories in a real migrated SQLite file: writes, search, recalls, deletes, TTL, decay, limits."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from addon.errors import NotFoundError, StoreError
from addon.store.database import Store
from addon.store.memories import (
    MemoryRecord,
    PrunePolicy,
    ScoredId,
    memories,
    memory_search,
    memory_upkeep,
)
from tests.store.data import NOW
from tests.store.turns.build import record, turn

DAY = timedelta(days=1)


async def add(store: Store, content: str, **options: Any) -> MemoryRecord:
    """Add a memory in a transaction of its own, at NOW unless told."""
    options.setdefault("now", NOW)
    async with store.sessionmaker.begin() as session:
        return await memories.add_memory(session, content, **options)


async def prune(store: Store, policy: PrunePolicy, at: timedelta) -> memory_upkeep.PruneResult:
    """Prune as if ``at`` after NOW."""
    async with store.sessionmaker.begin() as session:
        return await memory_upkeep.prune(session, policy, now=NOW + at)


async def search(session: AsyncSession, query: str, limit: int = 20) -> list[ScoredId]:
    """What recall's search finds for ``query``: ids and scores, best first."""
    found = await memory_search.search_memory_records(session, query, limit=limit)
    return [hit.scored for hit in found]


async def live_ids(store: Store) -> list[int]:
    """The ids of every live memory, oldest first."""
    async with store.sessionmaker() as session:
        return sorted(m.id for m in await memories.list_memories(session, limit=10_000))


async def test_a_memory_keeps_everything_it_was_given(store: Store) -> None:
    """Content, kind, importance, provenance, entities and areas come back as stored."""
    [turn_id] = await record(store, turn("c1"))
    added = await add(
        store,
        " The cat is called Miso. ",
        kind="fact",
        importance=0.8,
        source="conversation",
        conversation_id="c1",
        turn_id=turn_id,
        entity_ids=["sensor.cat_flap"],
        areas=["kitchen"],
    )
    async with store.sessionmaker() as session:
        got = await memories.get_memory(session, added.id)
    assert (got.content, got.kind, got.importance) == ("The cat is called Miso.", "fact", 0.8)
    assert (got.source, got.conversation_id, got.turn_id) == ("conversation", "c1", turn_id)
    assert (got.entity_ids, got.areas) == (("sensor.cat_flap",), ("kitchen",))
    assert (got.created_at, got.recall_count, got.pinned, got.deleted_at) == (NOW, 0, False, None)


async def test_an_unknown_kind_or_importance_is_refused(store: Store) -> None:
    """Kinds are the four of the issue and importance lies in 0..1."""
    with pytest.raises(ValueError, match="kind"):
        await add(store, "x", kind="rumour")
    with pytest.raises(ValueError, match="importance"):
        await add(store, "x", importance=1.5)


async def test_a_stored_unknown_kind_is_refused_not_read_as_another(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """A row whose kind is none of the four fails to read, with the memory's id logged."""
    added = await add(store, "The boiler is serviced in May")
    async with store.sessionmaker.begin() as session:
        await session.execute(
            text("UPDATE memories SET kind = 'rumour' WHERE id = :id"), {"id": added.id}
        )
    async with store.sessionmaker() as session:
        with pytest.raises(StoreError, match="unknown kind 'rumour'"):
            await memories.get_memory(session, added.id)
        with pytest.raises(StoreError, match="unknown kind 'rumour'"):
            await memory_search.searchable_memories(session, None)
    assert f"Memory {added.id} has the unknown kind 'rumour'" in caplog.text


async def test_update_changes_only_what_is_given(store: Store) -> None:
    """Editing the text and pin leaves kind and importance; new text drops a stale embedding."""
    added = await add(
        store, "Garage code is in the drawer", embedding=b"\0" * 8, embedding_model="m"
    )
    async with store.sessionmaker.begin() as session:
        changed = await memories.update_memory(
            session, added.id, content="The garage remote is in the drawer", pinned=True
        )
    assert (changed.content, changed.pinned, changed.kind) == (
        "The garage remote is in the drawer",
        True,
        "fact",
    )
    assert changed.embedding_model is None


async def test_a_missing_memory_is_not_found(store: Store) -> None:
    """Reading, editing or deleting an unknown id raises NotFoundError."""
    async with store.sessionmaker() as session:
        with pytest.raises(NotFoundError):
            await memories.get_memory(session, 999)
        with pytest.raises(NotFoundError):
            await memories.delete_memory(session, 999)


async def test_search_ranks_the_memory_sharing_the_rarer_words_first(store: Store) -> None:
    """BM25 over any word: the garage memory wins for a garage question."""
    await add(store, "The kitchen light is too bright in the evening")
    garage = await add(store, "The garage door sticks when it is cold")
    await add(store, "The heating in the bedroom is set to 19 degrees")
    async with store.sessionmaker() as session:
        hits = await search(session, "what do you know about the garage?")
    assert hits[0].id == garage.id


@pytest.mark.parametrize(
    "query", ['"', "NEAR(", "AND OR NOT", "*", "garage\x00door", "col:umn", "\ud800", "((("]
)
async def test_hostile_search_text_is_searched_as_words(store: Store, query: str) -> None:
    """FTS5 syntax, stray quotes, NUL and lone surrogates neither raise nor match everything."""
    await add(store, "The garage door sticks")
    async with store.sessionmaker() as session:
        hits = await search(session, query)
        listed = await memories.list_memories(session, query=query)
    expected = {"garage\x00door"}
    assert bool(hits) == (query in expected)
    assert bool(listed) == (query in expected)


async def test_list_filters_by_kind_source_pin_and_expiry(store: Store) -> None:
    """Each filter keeps only the memories it names."""
    fact = await add(store, "fact one", kind="fact")
    pref = await add(store, "prefers warm light", kind="preference", pinned=True)
    event = await add(store, "party on friday", kind="event", expires_at=NOW + DAY)
    await record(store, turn("c1"))
    learned = await add(store, "learned", source="conversation", conversation_id="c1")
    async with store.sessionmaker() as session:
        by_kind = await memories.list_memories(session, kind="preference")
        pinned = await memories.list_memories(session, pinned=True)
        expiring = await memories.list_memories(session, expiring_before=NOW + 2 * DAY)
        manual = await memories.list_memories(session, source="manual")
        found = await memories.list_memories(session, query="warm light")
    assert [m.id for m in by_kind] == [pref.id]
    assert [m.id for m in pinned] == [pref.id]
    assert [m.id for m in expiring] == [event.id]
    assert {m.id for m in manual} == {fact.id, pref.id, event.id}
    assert learned.id not in manual
    assert [m.id for m in found] == [pref.id]


async def test_delete_hides_and_restore_brings_back(store: Store) -> None:
    """A deleted memory is out of search and the list, listed as deleted, and comes back."""
    added = await add(store, "The cat is called Miso")
    async with store.sessionmaker.begin() as session:
        await memories.delete_memory(session, added.id, now=NOW)
    async with store.sessionmaker() as session:
        assert await search(session, "Miso") == []
        assert await memories.list_memories(session) == []
        assert [m.id for m in await memories.list_memories(session, deleted=True)] == [added.id]
    async with store.sessionmaker.begin() as session:
        await memories.restore_memory(session, added.id)
    async with store.sessionmaker() as session:
        assert [hit.id for hit in await search(session, "Miso")] == [added.id]


async def test_forget_everything_removes_all_rows_and_recalls(store: Store) -> None:
    """Forget everything leaves no memory, deleted or live, and no recall link."""
    [turn_id] = await record(store, turn("c1"))
    first = await add(store, "one")
    second = await add(store, "two")
    async with store.sessionmaker.begin() as session:
        await memory_upkeep.mark_recalled(session, [first.id], turn_id=turn_id, now=NOW)
        await memories.delete_memory(session, second.id, now=NOW)
    async with store.sessionmaker.begin() as session:
        assert await memories.forget_everything(session) == 2
    async with store.sessionmaker() as session:
        assert await memories.list_memories(session, deleted=True) == []
        assert await memory_upkeep.recalled_into(session, first.id) == []
        assert await search(session, "one") == []


async def test_mark_recalled_counts_and_links_the_turn(store: Store) -> None:
    """A recall raises the count, sets the time and lists the turn under the memory."""
    [turn_id] = await record(store, turn("c1"))
    added = await add(store, "The cat is called Miso")
    async with store.sessionmaker.begin() as session:
        await memory_upkeep.mark_recalled(session, [added.id], turn_id=turn_id, now=NOW + DAY)
    async with store.sessionmaker() as session:
        got = await memories.get_memory(session, added.id)
        turns = await memory_upkeep.recalled_into(session, added.id)
    assert (got.recall_count, got.last_recalled_at) == (1, NOW + DAY)
    assert [(r.turn_id, r.conversation_id, r.recalled_at) for r in turns] == [
        (turn_id, "c1", NOW + DAY)
    ]


async def test_an_event_expires_after_its_ttl(store: Store) -> None:
    """With an injected clock an event is kept at six days and gone at seven."""
    event = await add(store, "party on friday", kind="event", importance=1.0)
    policy = PrunePolicy()
    assert (await prune(store, policy, 6 * DAY)).expired == ()
    assert (await prune(store, policy, 7 * DAY)).expired == (event.id,)
    assert await live_ids(store) == []


async def test_an_explicit_expiry_wins_over_the_ttl(store: Store) -> None:
    """A fact, which has no TTL, still goes at the expiry it was given."""
    fact = await add(store, "guests until sunday", expires_at=NOW + DAY)
    assert (await prune(store, PrunePolicy(), DAY)).expired == (fact.id,)


async def test_importance_decays_with_age_until_forgotten(store: Store) -> None:
    """Context halves every 14 days: 0.4 falls below 0.05 after three half-lives, not before."""
    policy = PrunePolicy(ttl={})
    context = await add(store, "the guests are in the attic", kind="context", importance=0.4)
    async with store.sessionmaker() as session:
        got = await memories.get_memory(session, context.id)
    assert memory_upkeep.decayed_importance(
        got, NOW + 14 * DAY, timedelta(days=14)
    ) == pytest.approx(0.2)
    assert (await prune(store, policy, 41 * DAY)).decayed == ()
    assert (await prune(store, policy, 43 * DAY)).decayed == (context.id,)


async def test_a_recall_resets_the_decay(store: Store) -> None:
    """A memory recalled recently keeps its importance however old it is."""
    policy = PrunePolicy(ttl={})
    context = await add(store, "the guests are in the attic", kind="context", importance=0.4)
    async with store.sessionmaker.begin() as session:
        await memory_upkeep.mark_recalled(session, [context.id], turn_id=None, now=NOW + 40 * DAY)
    assert (await prune(store, policy, 43 * DAY)).decayed == ()


async def test_pinned_memories_never_expire_or_decay(store: Store) -> None:
    """A pinned event with a past expiry and tiny importance survives every prune."""
    pinned = await add(
        store, "anniversary", kind="event", importance=0.01, pinned=True, expires_at=NOW
    )
    result = await prune(store, PrunePolicy(max_count=0), 3650 * DAY)
    assert pinned.id not in result.expired + result.decayed + result.over_limit
    assert await live_ids(store) == [pinned.id]


async def test_the_limit_prunes_least_important_then_oldest(store: Store) -> None:
    """Over the limit, low importance goes first, then the older of equals."""
    low = await add(store, "low", importance=0.2)
    old = await add(store, "old", importance=0.6, now=NOW - DAY)
    new = await add(store, "new", importance=0.6)
    high = await add(store, "high", importance=0.9)
    result = await prune(store, PrunePolicy(max_count=2, half_life={}), timedelta(0))
    assert set(result.over_limit) == {low.id, old.id}
    assert await live_ids(store) == sorted([new.id, high.id])


async def test_long_deleted_memories_are_purged(store: Store) -> None:
    """A memory deleted longer ago than purge_after is removed for good."""
    added = await add(store, "gone")
    async with store.sessionmaker.begin() as session:
        await memories.delete_memory(session, added.id, now=NOW)
    assert (await prune(store, PrunePolicy(), 31 * DAY)).purged == 1


async def test_memories_survive_closing_and_reopening_the_store(tmp_path: Path) -> None:
    """A memory, its embedding and its search index are all there after a restart."""
    path = tmp_path / "home_agent.db"
    first = await Store.open(path)
    try:
        added = await add(first, "The cat is called Miso", embedding=b"\0" * 8, embedding_model="m")
    finally:
        await first.close()
    second = await Store.open(path)
    try:
        async with second.sessionmaker() as session:
            hits = await search(session, "Miso")
            embedded = await memory_search.searchable_memories(session, "m")
    finally:
        await second.close()
    assert [hit.id for hit in hits] == [added.id]
    assert [(item.record.id, item.vector) for item in embedded] == [(added.id, b"\0" * 8)]


async def test_recall_search_leaves_out_words_nearly_every_memory_holds(store: Store) -> None:
    """'the' in all 60 memories is dropped; a query of only common words keeps its rarest."""
    for number in range(59):
        await add(store, f"the lamp {number} is on the plug")
    garage = await add(store, "the garage door sticks")
    async with store.sessionmaker() as session:
        telling = await search(session, "the garage", limit=100)
        common = await search(session, "the plug", limit=100)
    assert [hit.id for hit in telling] == [garage.id]
    assert len(common) == 59


async def test_recall_search_matches_word_stems(store: Store) -> None:
    """A long word is matched by its first characters: 'allergy' finds 'allergic'."""
    allergic = await add(store, "Anna is allergic to peanuts")
    await add(store, "Anna likes jazz")
    async with store.sessionmaker() as session:
        hits = await search(session, "does anyone have an allergy")
    assert [hit.id for hit in hits] == [allergic.id]
