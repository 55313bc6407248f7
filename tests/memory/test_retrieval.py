"""Recall over a real migrated store: BM25 alone, and hybrid with the scripted model's vectors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from addon.embeddings.source import EndpointEmbeddings
from addon.llm.client import LLMClient
from addon.memory.indexes import MemoryIndex
from addon.memory.retrieval import RecallQuery, Retriever, blend
from addon.store.database import Store
from addon.store.memories import MemoryRecord, ScoredId, memories, memory_search
from devtools.scripted_llm import ScriptedLLM

EMBEDDING_MODEL = "scripted-embeddings"


async def add(store: Store, content: str, **options: Any) -> MemoryRecord:
    """Add a memory in a transaction of its own."""
    async with store.sessionmaker.begin() as session:
        return await memories.add_memory(session, content, **options)


async def test_lexical_recall_finds_the_memory_about_the_garage(store: Store) -> None:
    """Without an embedding source the BM25 ranking alone finds the answer."""
    await add(store, "The kitchen light is too bright in the evening")
    garage = await add(store, "The garage door sticks when it is cold")
    retriever = Retriever(store.sessionmaker)
    recalled = await retriever.recall(RecallQuery("what do you know about the garage"))
    assert recalled[0].memory.id == garage.id
    assert (recalled[0].lexical_rank, recalled[0].vector_rank) == (1, None)


async def test_recall_skips_deleted_memories(store: Store) -> None:
    """A deleted memory is never recalled."""
    garage = await add(store, "The garage door sticks")
    async with store.sessionmaker.begin() as session:
        await memories.delete_memory(session, garage.id)
    assert await Retriever(store.sessionmaker).recall(RecallQuery("garage")) == []


async def test_the_speakers_area_breaks_a_tie(store: Store) -> None:
    """Of two equally matching memories, the one about the speaker's area comes first."""
    await add(store, "The window blind is broken", areas=["bedroom"])
    office = await add(store, "The window blind is broken", areas=["Office"])
    recalled = await Retriever(store.sessionmaker).recall(
        RecallQuery("window blind", area="office")
    )
    assert recalled[0].memory.id == office.id


async def test_hybrid_recall_uses_the_endpoints_embeddings(
    store: Store, scripted_client: LLMClient, scripted_llm: ScriptedLLM
) -> None:
    """Memories are embedded through /v1/embeddings and the vector ranking takes part."""
    retriever = Retriever(store.sessionmaker, EndpointEmbeddings(scripted_client, EMBEDDING_MODEL))
    added = [
        await add(store, "The cat is called Miso"),
        await add(store, "The heating is set to 19 degrees at night"),
    ]
    await retriever.embed_memories(added)
    recalled = await retriever.recall(RecallQuery("cat Miso"))
    assert recalled[0].memory.id == added[0].id
    assert (recalled[0].lexical_rank, recalled[0].vector_rank) == (1, 1)
    assert [request.body["model"] for request in scripted_llm.requests] == [EMBEDDING_MODEL] * 2


async def test_the_index_loads_stored_embeddings_after_a_restart(
    tmp_path: Path, scripted_client: LLMClient
) -> None:
    """Embeddings written before a restart are in the index of the next start."""
    path = tmp_path / "home_agent.db"
    source = EndpointEmbeddings(scripted_client, EMBEDDING_MODEL)
    first = await Store.open(path)
    try:
        added = await add(first, "The cat is called Miso")
        await Retriever(first.sessionmaker, source).embed_memories([added])
    finally:
        await first.close()
    second = await Store.open(path)
    try:
        retriever = Retriever(second.sessionmaker, source)
        await retriever.load()
        recalled = await retriever.recall(RecallQuery("Miso the cat"))
    finally:
        await second.close()
    assert len(retriever.index) == 1
    assert recalled[0].vector_rank == 1


async def test_a_failing_embedding_source_falls_back_to_lexical(
    store: Store, scripted_client: LLMClient
) -> None:
    """If the endpoint cannot embed the query, recall is BM25 alone and still answers."""
    added = await add(store, "The cat is called Miso")
    await Retriever(
        store.sessionmaker, EndpointEmbeddings(scripted_client, EMBEDDING_MODEL)
    ).embed_memories([added])
    unreachable = LLMClient(
        base_url="http://127.0.0.1:9/v1",
        api_key="",
        model="m",
        temperature=0.0,
        timeout=2.0,
        max_retries=0,
    )
    try:
        retriever = Retriever(store.sessionmaker, EndpointEmbeddings(unreachable, EMBEDDING_MODEL))
        await retriever.load()
        recalled = await retriever.recall(RecallQuery("Miso"))
    finally:
        await unreachable.close()
    assert len(retriever.index) == 1
    assert [(r.memory.id, r.vector_rank) for r in recalled] == [(added.id, None)]


def test_the_index_keeps_rows_right_across_removals() -> None:
    """Removing a row moves the last into its place without losing either id."""
    index = MemoryIndex()
    for memory_id, vector in ((1, [1, 0, 0]), (2, [0, 1, 0]), (3, [0, 0, 1])):
        index.put(memory_id, np.array(vector))
    index.remove(1)
    assert len(index) == 2
    assert [hit.id for hit in index.nearest(np.array([0, 0, 1]), 1)] == [3]
    assert [hit.id for hit in index.nearest(np.array([0, 1, 0]), 1)] == [2]


def test_blend_weighs_bm25_against_cosine() -> None:
    """An id good in both lists beats one first in only one; each side is scaled to its best."""
    blended = blend([ScoredId(1, 9.0), ScoredId(2, 6.0)], {2: 0.8, 3: 0.8}, lexical_weight=0.25)
    assert max(blended, key=lambda memory_id: blended[memory_id]) == 2
    assert blended[2] == pytest.approx(0.25 * 6 / 9 + 0.75)
    assert blended[1] == pytest.approx(0.25)


def test_blend_without_similarities_is_bm25_alone() -> None:
    """With no vectors (no source, or it failed) the lexical scores alone rank."""
    assert blend([ScoredId(1, 4.0), ScoredId(2, 2.0)], {}, lexical_weight=0.25) == {
        1: 1.0,
        2: 0.5,
    }


async def test_recall_sees_an_add_once_embed_memories_is_told(store: Store) -> None:
    """A memory added after the copy was loaded is recalled once the retriever is told."""
    retriever = Retriever(store.sessionmaker)
    await retriever.load()
    added = await add(store, "The cat is called Miso")
    assert await retriever.recall(RecallQuery("Miso")) == []
    await retriever.embed_memories([added])
    assert [r.memory.id for r in await retriever.recall(RecallQuery("Miso"))] == [added.id]


async def test_recall_follows_an_edit(store: Store) -> None:
    """After an edit, the old wording no longer matches and the new one does."""
    retriever = Retriever(store.sessionmaker)
    added = await add(store, "The cat is called Miso")
    await retriever.load()
    async with store.sessionmaker.begin() as session:
        edited = await memories.update_memory(session, added.id, content="The cat is called Tofu")
    await retriever.embed_memories([edited])
    assert await retriever.recall(RecallQuery("Miso")) == []
    [hit] = await retriever.recall(RecallQuery("Tofu"))
    assert hit.memory.content == "The cat is called Tofu"


async def test_recall_drops_a_forgotten_memory_and_takes_it_back_on_restore(
    store: Store,
) -> None:
    """forget() takes a deleted memory out; a restore told through embed_memories brings it back."""
    retriever = Retriever(store.sessionmaker)
    added = await add(store, "The garage door sticks")
    await retriever.load()
    async with store.sessionmaker.begin() as session:
        await memories.delete_memory(session, added.id)
    retriever.forget([added.id])
    assert await retriever.recall(RecallQuery("garage")) == []
    assert added.id not in retriever.lexical
    async with store.sessionmaker.begin() as session:
        restored = await memories.restore_memory(session, added.id)
    await retriever.embed_memories([restored])
    assert [r.memory.id for r in await retriever.recall(RecallQuery("garage"))] == [added.id]


async def test_forget_everything_empties_recall(store: Store) -> None:
    """After the store forgot everything, recall finds nothing and needs no reload."""
    retriever = Retriever(store.sessionmaker)
    await add(store, "The garage door sticks")
    await retriever.load()
    async with store.sessionmaker.begin() as session:
        await memories.forget_everything(session)
    retriever.forget_everything()
    assert await retriever.recall(RecallQuery("garage")) == []
    assert len(retriever.lexical) == 0
    fresh = await add(store, "The garage light flickers")
    await retriever.embed_memories([fresh])
    assert [r.memory.id for r in await retriever.recall(RecallQuery("garage"))] == [fresh.id]


async def test_the_lexical_copy_ranks_as_the_stores_fts5_search(store: Store) -> None:
    """The in-memory BM25 orders memories as the store's FTS5 recall query does."""
    texts = [
        "Anna is allergic to peanuts",
        "Anna likes the allergy medicine from the blue box",
        "The garage door sticks in winter",
        "Ben is allergic to cats and dogs",
        "The allergic reaction was mild",
    ]
    for text in texts:
        await add(store, text)
    retriever = Retriever(store.sessionmaker)
    await retriever.load()
    question = "what is Anna allergic to"
    async with store.sessionmaker() as session:
        expected = [
            hit.scored
            for hit in await memory_search.search_memory_records(session, question, limit=10)
        ]
    got = retriever.lexical.search(question, 10)
    assert [hit.id for hit in got] == [hit.id for hit in expected]
    assert [hit.score for hit in got] == pytest.approx([hit.score for hit in expected], rel=1e-3)
