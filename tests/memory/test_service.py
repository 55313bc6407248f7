"""The memory service over a real migrated store, extracting through the scripted model."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from addon.embeddings.source import EndpointEmbeddings
from addon.embeddings.static import StaticEmbeddings, load_local_embeddings
from addon.errors import StoreError
from addon.llm.client import LLMClient
from addon.memory.candidates import MemoryKind
from addon.memory.extraction import Exchange, Extractor
from addon.memory.records import AfterTurn, MemoryLimits, Outcome, RecallRequest, TurnSource
from addon.memory.retrieval import Retriever
from addon.memory.rules import RejectReason
from addon.memory.service import MemoryService
from addon.store.database import Store
from addon.store.memories import MemoryRecord, memories
from addon.store.models import LLMCall, Memory, MemoryRecall
from devtools.recording import record_turn
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.agent import ManualClock
from tests.fixtures.database import http_turn
from tests.memory.answers import answer, memory

HOUSEHOLD = (
    "Our dog Rex is afraid of thunder.",
    "The cat is called Miso.",
    "Anna works night shifts at the hospital.",
    "The boiler was serviced in May.",
    "We keep the bedroom at 18 degrees.",
    "Ben is allergic to peanuts.",
    "The kitchen lights are on a dimmer.",
    "Grandma visits on Sundays.",
)
"""A small home's memories: one about the dog, the rest about other things."""

EXCHANGE = Exchange(user_text="Our cat is called Miso.", reply="What a lovely name!")
MakeService = Callable[..., MemoryService]


@pytest.fixture
def clock() -> ManualClock:
    """The service's time, moved by hand."""
    return ManualClock(datetime(2026, 5, 1, 12, tzinfo=UTC))


@pytest.fixture(scope="module")
def local_model() -> StaticEmbeddings:
    """The shipped local embedding model (``memory_embeddings: local``), loaded once."""
    return load_local_embeddings()


@pytest.fixture
def make_service(store: Store, scripted_client: LLMClient, clock: ManualClock) -> MakeService:
    """Services over the test's store, lexical unless given a retriever."""

    def make(*, max_memories: int = 1000, retriever: Retriever | None = None) -> MemoryService:
        return MemoryService(
            store.sessionmaker,
            retriever or Retriever(store.sessionmaker),
            calls=store.writer,
            extractor=Extractor(scripted_client, clock=clock),
            limits=MemoryLimits(max_memories=max_memories),
            clock=clock,
        )

    return make


async def stored_turn(store: Store, conversation_id: str = "c1") -> TurnSource:
    """A turn in the store, for memories and model calls to name."""
    async with store.sessionmaker.begin() as session:
        turn_id = await record_turn(
            session, http_turn(conversation_id, EXCHANGE.user_text, EXCHANGE.reply)
        )
    return TurnSource(conversation_id, turn_id)


async def live(store: Store) -> list[MemoryRecord]:
    async with store.sessionmaker() as session:
        return await memories.list_memories(session)


async def learn(service: MemoryService, turn: TurnSource | None, store: Store) -> Any:
    """Extract from EXCHANGE and keep what was found, as the agent does after a turn.

    The extraction's trace goes through the store's writer; flushed, so tests read it.
    """
    extraction = await service.extract(EXCHANGE)
    learned = await service.after_turn(AfterTurn(turn, extraction=extraction))
    assert await store.writer.flush()
    return learned


async def test_extracted_memory_is_kept_with_its_turn_as_source(
    store: Store, scripted_llm: ScriptedLLM, make_service: MakeService
) -> None:
    """A well-formed answer becomes a memory naming the turn and conversation it came from."""
    scripted_llm.reply(answer(memory("The cat is called Miso.", importance=0.7)))
    turn = await stored_turn(store)
    learned = await learn(make_service(), turn, store)
    [record] = await live(store)
    assert learned.added == (record.id,)
    assert (record.content, record.kind, record.importance) == (
        "The cat is called Miso.",
        "fact",
        0.7,
    )
    assert (record.source, record.conversation_id, record.turn_id) == (
        "conversation",
        "c1",
        turn.turn_id,
    )


async def test_extraction_is_traced_under_its_turn(
    store: Store, scripted_llm: ScriptedLLM, make_service: MakeService
) -> None:
    """The extraction's model call is stored under the turn, marked as memory's."""
    scripted_llm.reply(answer(memory("The cat is called Miso.")))
    turn = await stored_turn(store)
    learned = await learn(make_service(), turn, store)
    async with store.sessionmaker() as session:
        [call] = (
            await session.scalars(select(LLMCall).where(LLMCall.turn_id == turn.turn_id))
        ).all()
    assert learned.call_ids == (call.id,)
    assert (call.purpose, call.seq, call.model) == ("memory", 1, "scripted-model")
    assert "Miso" in json.dumps(call.response)


async def test_broken_json_still_becomes_a_memory(
    store: Store, scripted_llm: ScriptedLLM, make_service: MakeService
) -> None:
    """An answer with a trailing comma and a missing bracket is repaired, not lost."""
    scripted_llm.reply(
        '{"memories": [{"content": "Anna works from home on Fridays", "kind": "fact",'
    )
    learned = await learn(make_service(), await stored_turn(store), store)
    assert [record.content for record in await live(store)] == ["Anna works from home on Fridays"]
    assert learned.error is None


async def test_an_unusable_answer_keeps_nothing_and_says_why(
    store: Store, scripted_llm: ScriptedLLM, make_service: MakeService
) -> None:
    """Prose instead of JSON adds nothing; the error is reported and the call still traced."""
    scripted_llm.reply("I'm sorry, I can't help with that.")
    learned = await learn(make_service(), await stored_turn(store), store)
    assert await live(store) == []
    assert learned.error is not None
    assert len(learned.call_ids) == 1


async def test_a_failed_model_call_keeps_nothing_and_raises_nothing(
    store: Store, scripted_llm: ScriptedLLM, make_service: MakeService
) -> None:
    """A 500 from the endpoint ends in an error on the result, the call traced with it."""
    scripted_llm.error(500)
    turn = await stored_turn(store)
    learned = await learn(make_service(), turn, store)
    assert learned.added == ()
    assert learned.error is not None
    async with store.sessionmaker() as session:
        call = await session.get(LLMCall, learned.call_ids[0])
    assert call is not None
    assert call.error is not None


async def test_a_repeated_memory_merges_and_gains_importance(
    store: Store, scripted_llm: ScriptedLLM, make_service: MakeService
) -> None:
    """Said again in other words, a memory is kept once, in the better wording, more important."""
    scripted_llm.reply(answer(memory("The cat is called Miso.", importance=0.5)))
    scripted_llm.reply(answer(memory("The family cat is called Miso.", importance=0.5)))
    service = make_service()
    first = await learn(service, await stored_turn(store), store)
    second = await learn(service, await stored_turn(store, "c2"), store)
    [record] = await live(store)
    assert second.merged == first.added == (record.id,)
    assert second.added == ()
    assert record.content == "The family cat is called Miso."
    assert record.importance > 0.5


async def test_duplicates_within_one_extraction_merge(
    store: Store, scripted_llm: ScriptedLLM, make_service: MakeService
) -> None:
    """Two candidates saying the same thing in one answer become one memory."""
    scripted_llm.reply(
        answer(memory("The cat is called Miso."), memory("The cat is called Miso, a tabby."))
    )
    learned = await learn(make_service(), await stored_turn(store), store)
    assert len(await live(store)) == 1
    assert len(learned.added) == 1
    assert learned.merged == ()


async def test_rules_reject_passing_states_time_weather_and_trivia(
    store: Store, scripted_llm: ScriptedLLM, make_service: MakeService
) -> None:
    """What the rules refuse is not stored; the reasons come back, and what passes is kept."""
    scripted_llm.reply(
        answer(
            memory("The kitchen light is on right now."),
            memory("It is 14:30 on a Tuesday."),
            memory("The weather forecast says rain tomorrow."),
            memory("Hello there!"),
            memory("Anna likes the bedroom at 19 degrees at night.", "preference"),
        )
    )
    learned = await learn(make_service(), await stored_turn(store), store)
    assert [record.content for record in await live(store)] == [
        "Anna likes the bedroom at 19 degrees at night."
    ]
    assert sorted(r.reason for r in learned.rejected) == sorted(
        [RejectReason.TRANSIENT, RejectReason.TIME, RejectReason.WEATHER, RejectReason.TRIVIA]
    )


async def test_extraction_without_a_stored_turn_keeps_memories_without_source(
    store: Store, scripted_llm: ScriptedLLM, make_service: MakeService
) -> None:
    """When the turn could not be stored, what was learned is kept, naming no turn."""
    scripted_llm.reply(answer(memory("The cat is called Miso.")))
    learned = await learn(make_service(), None, store)
    [record] = await live(store)
    assert (record.turn_id, record.conversation_id, learned.call_ids) == (None, None, ())


async def test_context_expires_after_its_ttl_unless_pinned(
    store: Store, make_service: MakeService, clock: ManualClock
) -> None:
    """A week on, context is forgotten; a fact and a pinned context memory stay."""
    service = make_service()
    fact = await service.remember("The cat is called Miso.")
    passing = await service.remember("Guests stay in the attic room.", kind=MemoryKind.CONTEXT)
    pinned = await service.remember("Grandma visits the guest room.", kind=MemoryKind.CONTEXT)
    assert passing.memory is not None
    assert pinned.memory is not None
    assert fact.memory is not None
    assert passing.memory.expires_at == clock.now + timedelta(days=7)
    async with store.sessionmaker.begin() as session:
        await memories.update_memory(session, pinned.memory.id, pinned=True, expires_at=None)
    clock.advance(timedelta(days=8).total_seconds())
    assert await service.prune() == (passing.memory.id,)
    assert {record.id for record in await live(store)} == {fact.memory.id, pinned.memory.id}


async def test_importance_fades_with_the_kinds_half_life(
    store: Store, make_service: MakeService, clock: ManualClock
) -> None:
    """An unimportant event fades below the threshold after its half-life and is forgotten."""
    service = make_service()
    faint = await service.remember(
        "The plumber came about the tap.", kind=MemoryKind.EVENT, importance=0.1
    )
    strong = await service.remember(
        "The boiler was serviced by Anna.", kind=MemoryKind.EVENT, importance=0.9
    )
    assert faint.memory is not None
    assert strong.memory is not None
    clock.advance(timedelta(days=13).total_seconds())
    assert await service.prune() == ()
    clock.advance(timedelta(days=2).total_seconds())
    assert await service.prune() == (faint.memory.id,)
    assert [record.id for record in await live(store)] == [strong.memory.id]


async def test_the_limit_per_home_forgets_the_least_important(
    store: Store, make_service: MakeService
) -> None:
    """Past max_memories the least important memory goes."""
    service = make_service(max_memories=2)
    await service.remember("The cat is called Miso.", importance=0.9)
    await service.remember("The dog is called Rex.", importance=0.2)
    await service.remember("The fish is called Blub.", importance=0.6)
    assert sorted(record.content for record in await live(store)) == [
        "The cat is called Miso.",
        "The fish is called Blub.",
    ]


async def test_remembering_a_secret_is_refused(store: Store, make_service: MakeService) -> None:
    """A code with its value is refused with the reason and never stored."""
    remembered = await make_service().remember("The alarm code is 4711.")
    assert (remembered.outcome, remembered.reason) == (Outcome.REFUSED, RejectReason.SECRET)
    assert await live(store) == []


async def test_remembering_what_is_known_merges(store: Store, make_service: MakeService) -> None:
    """Asked to remember something already kept, the service merges instead of adding."""
    service = make_service()
    first = await service.remember("The cat is called Miso.")
    again = await service.remember("Our cat is called Miso.")
    assert again.outcome is Outcome.MERGED
    assert again.memory is not None
    assert first.memory is not None
    assert again.memory.id == first.memory.id
    assert len(await live(store)) == 1


async def test_a_stored_memory_of_an_unknown_kind_is_refused_not_widened(
    store: Store, make_service: MakeService
) -> None:
    """A kind this release does not know (a newer one wrote it) is a StoreError, not a fact."""
    service = make_service()
    first = await service.remember("The cat is called Miso.")
    assert first.memory is not None
    async with store.sessionmaker.begin() as session:
        await session.execute(
            update(Memory).where(Memory.id == first.memory.id).values(kind="rumour")
        )
    with pytest.raises(StoreError, match="unknown kind 'rumour'"):
        await service.remember("Our cat is called Miso.")


async def test_a_dry_run_remembers_and_forgets_nothing(
    store: Store, make_service: MakeService
) -> None:
    """In a dry run remember answers as if it kept the memory, and forget deletes nothing."""
    service = make_service()
    assert (
        await service.remember("The cat is called Miso.", dry_run=True)
    ).outcome is Outcome.ADDED
    assert await live(store) == []
    kept = await service.remember("The dog is called Rex.")
    assert kept.memory is not None
    assert await service.forget(kept.memory.id, dry_run=True) is not None
    assert len(await live(store)) == 1


async def test_recall_leaves_out_memories_sharing_only_common_words(
    store: Store, make_service: MakeService
) -> None:
    """In a small home every memory holds "the"; only those about the utterance come back."""
    service = make_service()
    cat = await service.remember("The cat is called Miso.")
    await service.remember("The boiler was serviced in May.")
    recalled = await service.recall(RecallRequest("what is the cat called"))
    assert cat.memory is not None
    assert [memory.id for memory in recalled] == [cat.memory.id]


async def test_recall_stays_within_its_budget(store: Store, make_service: MakeService) -> None:
    """However many memories match, a request carries at most the limit and the token budget."""
    service = make_service()
    for number in range(8):
        await service.remember(f"The garden shed number {number} holds {'tools ' * 20}.")
    recalled = await service.recall(RecallRequest("what is in the garden shed"))
    assert 0 < len(recalled) <= 5
    assert sum(len(memory.content) for memory in recalled) <= 250 * 4


async def test_recall_links_are_stored_with_the_turn(
    store: Store, make_service: MakeService
) -> None:
    """after_turn marks what was recalled into the turn, and counts the recall."""
    service = make_service()
    kept = await service.remember("The cat is called Miso.")
    assert kept.memory is not None
    turn = await stored_turn(store)
    await service.after_turn(AfterTurn(turn, recalled=(kept.memory.id,)))
    async with store.sessionmaker() as session:
        [link] = (await session.scalars(select(MemoryRecall))).all()
        record = await memories.get_memory(session, kept.memory.id)
    assert (link.memory_id, link.turn_id) == (kept.memory.id, turn.turn_id)
    assert record.recall_count == 1


async def test_panel_edits_reach_the_vector_index(
    store: Store, scripted_client: LLMClient, make_service: MakeService
) -> None:
    """changed() re-embeds an edited memory and drops a deleted one; cleared() empties the index."""
    retriever = Retriever(
        store.sessionmaker, EndpointEmbeddings(scripted_client, "scripted-embeddings")
    )
    service = make_service(retriever=retriever)
    kept = await service.remember("The cat is called Miso.")
    other = await service.remember("The dog is called Rex.")
    assert kept.memory is not None
    assert other.memory is not None
    assert len(retriever.index) == 2
    async with store.sessionmaker.begin() as session:
        await memories.update_memory(session, kept.memory.id, content="The cat is named Miso.")
        await memories.delete_memory(session, other.memory.id)
    await service.changed([kept.memory.id, other.memory.id])
    assert len(retriever.index) == 1
    async with store.sessionmaker() as session:
        assert (await memories.get_memory(session, kept.memory.id)).embedding_model is not None
    await service.cleared()
    assert len(retriever.index) == 0


@pytest.mark.parametrize(
    ("question", "recalls_the_dog"),
    [
        ("what's the weather tomorrow", False),
        ("is it going to be hot today", False),
        ("is Rex scared of storms", True),
        ("what is our dog afraid of", True),
    ],
)
async def test_recall_by_meaning_brings_only_memories_about_the_question(
    store: Store,
    make_service: MakeService,
    local_model: StaticEmbeddings,
    question: str,
    recalls_the_dog: bool,
) -> None:
    """The nearest memory is not recalled for being nearest: a weather question gets no dog."""
    service = make_service(retriever=Retriever(store.sessionmaker, local_model))
    for content in HOUSEHOLD:
        await service.remember(content)
    recalled = [memory.content for memory in await service.recall(RecallRequest(question))]
    assert (HOUSEHOLD[0] in recalled) is recalls_the_dog
    if not recalls_the_dog:
        assert recalled == []


HAUSHALT = (
    "Unser Hund Rex hat Angst vor Gewitter.",
    "Die Katze heißt Miso.",
    "Anna arbeitet nachts im Krankenhaus.",
    "Oma kommt sonntags zu Besuch.",
)
"""The same small home in German, recalled through the endpoint's embeddings."""


@pytest.mark.parametrize(
    ("question", "recalls_the_dog"),
    [("Wie wird das Wetter morgen?", False), ("Hat Rex Angst vor Gewitter?", True)],
)
async def test_recall_by_an_endpoints_meaning_holds_in_german(
    store: Store,
    make_service: MakeService,
    scripted_client: LLMClient,
    question: str,
    recalls_the_dog: bool,
) -> None:
    """The relevance floor is the model's, no word list: a German weather question gets no dog."""
    source = EndpointEmbeddings(scripted_client, "scripted-embeddings")
    service = make_service(retriever=Retriever(store.sessionmaker, source))
    for content in HAUSHALT:
        await service.remember(content)
    recalled = [memory.content for memory in await service.recall(RecallRequest(question))]
    assert (HAUSHALT[0] in recalled) is recalls_the_dog
