"""Long-term memory in real agent turns: recall, the memory tools, learning after the reply."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import select

from addon.agent.prompt import MEMORY_HEADER
from addon.llm.client import LLMClient
from addon.memory.extraction import Extractor
from addon.memory.retrieval import Retriever
from addon.memory.service import MemoryService
from addon.store.database import Store
from addon.store.memories import MemoryRecord, memories
from addon.store.models import LLMCall
from addon.store.queries import conversation_detail
from devtools.scripted_llm import Completion, ScriptedLLM, Step
from tests.fixtures.agent import MakeAgent, RecordedEvents, ask
from tests.home.context.test_selection import small_home
from tests.memory.answers import facts

MakeMemory = Callable[..., MemoryService]


@pytest.fixture
def make_memory(store: Store, scripted_client: LLMClient) -> MakeMemory:
    """Memory services over the test's store; ``learns`` turns extraction on."""

    def make(*, learns: bool = False) -> MemoryService:
        return MemoryService(
            store.sessionmaker,
            Retriever(store.sessionmaker),
            calls=store.writer,
            extractor=Extractor(scripted_client) if learns else None,
        )

    return make


async def kept(store: Store) -> list[MemoryRecord]:
    async with store.sessionmaker() as session:
        return await memories.list_memories(session)


def user_message(request_messages: list[dict[str, Any]]) -> str:
    content = request_messages[-1]["content"]
    assert request_messages[-1]["role"] == "user"
    assert isinstance(content, str)
    return content


def tool_result(request_messages: list[dict[str, Any]]) -> dict[str, Any]:
    [message] = [m for m in request_messages if m.get("role") == "tool"]
    result: dict[str, Any] = json.loads(message["content"])
    return result


# Recall


async def test_recalled_memories_are_in_the_request_the_model_receives(
    make_agent: MakeAgent, make_memory: MakeMemory, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """The relevant memory rides on the user's message, with its id, before the user's words."""
    memory = make_memory()
    cat = (await memory.remember("The cat is called Miso.")).memory
    await memory.remember("The boiler was serviced in May.")
    assert cat is not None
    scripted_llm.reply("The cat is called Miso.")
    await make_agent(llm=scripted_llm, memory=memory).process(ask("what is the cat called"))
    content = user_message(scripted_llm.chat_requests[0].messages)
    assert (
        f"{MEMORY_HEADER}\n- [{cat.id}] The cat is called Miso.\nwhat is the cat called" in content
    )
    assert "boiler" not in content


async def test_the_recalled_memories_are_part_of_the_turns_trace(
    make_agent: MakeAgent, make_memory: MakeMemory, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """Once the turn is stored, its trace lists the memory and the memory counts the recall."""
    memory = make_memory()
    cat = (await memory.remember("The cat is called Miso.")).memory
    assert cat is not None
    scripted_llm.reply("Miso.")
    agent = make_agent(llm=scripted_llm, memory=memory)
    result = await agent.process(ask("what is the cat called"))
    await agent.drain()
    async with store.sessionmaker() as session:
        detail = await conversation_detail(session, result.conversation_id)
        record = await memories.get_memory(session, cat.id)
    [turn] = detail.conversation.turns
    assert [(r.memory_id, r.memory.content) for r in turn.memory_recalls] == [
        (cat.id, "The cat is called Miso.")
    ]
    assert "memory" in turn.timings
    assert record.recall_count == 1


def request_text(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> str:
    """The request as a server's prefix cache sees it: system prompt, tools, then the rest."""
    return json.dumps(messages[:1]) + json.dumps(tools) + json.dumps(messages[1:])


def common_prefix(a: str, b: str) -> int:
    length = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        length += 1
    return length


async def test_the_prefix_share_holds_with_memories(
    make_agent: MakeAgent, make_memory: MakeMemory, scripted_llm: ScriptedLLM
) -> None:
    """Two requests recalling different memories share ≥ 95% of their text from the start."""
    memory = make_memory()
    await memory.remember("The cat is called Miso and sleeps in the kitchen.")
    await memory.remember("The boiler was serviced by Anna in May.")
    scripted_llm.reply("Miso.").reply("In May.")
    agent = make_agent(llm=scripted_llm, memory=memory)
    await agent.process(ask("what is the cat called"))
    await agent.process(ask("when was the boiler serviced"))
    first, second = (request_text(r.messages, r.tools) for r in scripted_llm.chat_requests)
    assert "Miso" in first
    assert "Anna" in second
    assert common_prefix(first, second) / len(second) >= 0.95


# Learning after the reply


async def test_the_reply_does_not_wait_for_extraction(
    make_agent: MakeAgent, make_memory: MakeMemory, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """The turn is answered while extraction still asks the model; the memory is kept later."""
    asked, release = asyncio.Event(), asyncio.Event()

    async def extraction(_body: dict[str, Any]) -> Step:
        asked.set()
        await release.wait()
        return Completion(facts("The cat is called Miso."))

    scripted_llm.reply("What a lovely name!")
    scripted_llm.default = extraction
    agent = make_agent(llm=scripted_llm, memory=make_memory(learns=True))
    result = await agent.process(ask("our cat is called Miso"))
    assert result.reply == "What a lovely name!"
    await asyncio.wait_for(asked.wait(), 10)
    assert await kept(store) == []
    release.set()
    await agent.drain()
    [memory] = await kept(store)
    assert (memory.content, memory.turn_id) == ("The cat is called Miso.", result.turn_id)


async def test_extraction_is_traced_under_its_turn_and_fires_an_event(
    make_agent: MakeAgent, make_memory: MakeMemory, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """The extraction's model call is stored with the turn; the event says what was added."""
    events = RecordedEvents()
    scripted_llm.reply("What a lovely name!").reply(facts("The cat is called Miso."))
    agent = make_agent(llm=scripted_llm, memory=make_memory(learns=True), events=events)
    result = await agent.process(ask("our cat is called Miso"))
    await agent.drain()
    [memory] = await kept(store)
    async with store.sessionmaker() as session:
        calls = (
            await session.scalars(select(LLMCall).where(LLMCall.turn_id == result.turn_id))
        ).all()
    assert [(call.seq, call.purpose) for call in calls] == [(1, None), (2, "memory")]
    [data] = [d for k, d in events.fired if k == "home_agent_memory_extracted"]
    assert data == {
        "conversation_id": result.conversation_id,
        "turn_id": result.turn_id,
        "added": 1,
        "merged": 0,
        "rejected": 0,
        "added_ids": [memory.id],
        "merged_ids": [],
        "rejected_reasons": [],
        "error": None,
    }


async def test_a_failed_extraction_loses_nothing_of_the_turn(
    make_agent: MakeAgent, make_memory: MakeMemory, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """The model failing at extraction leaves the turn stored and answered; the event says why."""
    events = RecordedEvents()
    scripted_llm.reply("What a lovely name!").error(500)
    agent = make_agent(llm=scripted_llm, memory=make_memory(learns=True), events=events)
    result = await agent.process(ask("our cat is called Miso"))
    await agent.drain()
    assert result.reply == "What a lovely name!"
    assert result.error is None
    assert await kept(store) == []
    async with store.sessionmaker() as session:
        detail = await conversation_detail(session, result.conversation_id)
    [turn] = detail.conversation.turns
    assert turn.reply_text == "What a lovely name!"
    [data] = [d for k, d in events.fired if k == "home_agent_memory_extracted"]
    assert data["added"] == 0
    assert "500" in data["error"]


async def test_an_unusable_extraction_is_logged_once(
    make_agent: MakeAgent,
    make_memory: MakeMemory,
    scripted_llm: ScriptedLLM,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A small model answering prose warns once per turn, not once per layer that sees it."""
    scripted_llm.reply("What a lovely name!").reply("ok")
    agent = make_agent(llm=scripted_llm, memory=make_memory(learns=True))
    with caplog.at_level(logging.WARNING, logger="addon"):
        await agent.process(ask("our cat is called Miso"))
        await agent.drain()
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == [
        "Memory extraction answer unusable: the answer is not a list of memories: 'ok'"
    ]


async def test_a_secret_said_in_conversation_never_becomes_a_memory(
    make_agent: MakeAgent, make_memory: MakeMemory, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """Even when the extraction proposes them, an alarm code and a wifi password are refused."""
    events = RecordedEvents()
    scripted_llm.reply("Okay.").reply(
        facts("The alarm code is 4711.", "The wifi password is hunter2.")
    )
    agent = make_agent(llm=scripted_llm, memory=make_memory(learns=True), events=events)
    await agent.process(ask("my alarm code is 4711 and the wifi password is hunter2"))
    await agent.drain()
    assert await kept(store) == []
    [data] = [d for k, d in events.fired if k == "home_agent_memory_extracted"]
    assert data["rejected_reasons"] == ["secret", "secret"]
    assert "4711" not in json.dumps(data)


async def test_a_secret_asked_to_be_remembered_is_refused(
    make_agent: MakeAgent, make_memory: MakeMemory, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """The remember tool refuses a password, and says so in the result the model reads."""
    scripted_llm.tool_calls(("remember", {"content": "The wifi password is hunter2."})).reply(
        "I can't keep passwords."
    )
    agent = make_agent(llm=scripted_llm, memory=make_memory(learns=True))
    await agent.process(ask("remember that the wifi password is hunter2"))
    await agent.drain()
    result = tool_result(scripted_llm.chat_requests[1].messages)
    assert (result["success"], result["reason"]) == (False, "secret")
    assert await kept(store) == []


async def test_dry_runs_and_local_commands_are_not_learned_from(
    make_agent: MakeAgent, make_memory: MakeMemory, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """Only the model's real turns are read: the script has no step for an extraction here."""
    scripted_llm.reply("Sure.")
    agent = make_agent(llm=scripted_llm, memory=make_memory(learns=True))
    await agent.process(ask("our cat is called Miso", dry_run=True))
    await agent.process(ask("turn on the kitchen lights"))
    await agent.drain()
    assert len(scripted_llm.chat_requests) == 1


# The memory tools


async def test_remember_in_a_dry_run_says_nothing_was_stored(
    make_agent: MakeAgent, make_memory: MakeMemory, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """A dry run's remember keeps nothing and tells the model so, in words it can repeat."""
    scripted_llm.tool_calls(("remember", {"content": "The cat is called Miso."})).reply("Noted.")
    agent = make_agent(llm=scripted_llm, memory=make_memory())
    await agent.process(ask("remember that the cat is called Miso", dry_run=True))
    await agent.drain()
    answer = tool_result(scripted_llm.chat_requests[1].messages)
    assert (answer["dry_run"], answer["stored"]) == (True, False)
    assert answer["speech"] == (
        "In a dry run nothing is stored: I would remember that the cat is called Miso."
    )
    assert await kept(store) == []


async def test_remember_keeps_it_confirms_and_credits_the_turn(
    make_agent: MakeAgent, make_memory: MakeMemory, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """Remember stores the memory, confirms in words, and names the turn as its source."""
    scripted_llm.tool_calls(("remember", {"content": "The cat is called Miso."})).reply(
        "I'll remember that the cat is called Miso."
    )
    agent = make_agent(llm=scripted_llm, memory=make_memory(learns=True))
    result = await agent.process(ask("remember that the cat is called Miso"))
    await agent.drain()
    [memory] = await kept(store)
    answer = tool_result(scripted_llm.chat_requests[1].messages)
    assert answer["speech"] == "I'll remember that the cat is called Miso."
    assert answer["memory_id"] == memory.id
    assert (memory.content, memory.turn_id) == ("The cat is called Miso.", result.turn_id)
    assert memory.conversation_id == result.conversation_id


async def test_remember_confirms_in_the_requests_language(
    make_agent: MakeAgent, make_memory: MakeMemory, scripted_llm: ScriptedLLM
) -> None:
    """A German request is confirmed in German."""
    scripted_llm.tool_calls(("remember", {"content": "Die Katze heißt Miso."})).reply("Gut.")
    agent = make_agent(llm=scripted_llm, memory=make_memory())
    await agent.process(ask("merk dir, dass die Katze Miso heißt", language="de"))
    answer = tool_result(scripted_llm.chat_requests[1].messages)
    assert answer["speech"] == "Ich merke mir: Die Katze heißt Miso."


async def test_recall_memories_finds_what_is_known_about_a_place(
    make_agent: MakeAgent, make_memory: MakeMemory, scripted_llm: ScriptedLLM
) -> None:
    """Asked about the garage, the recall tool returns the garage's memories."""
    memory = make_memory()
    garage = (await memory.remember("The garage door sticks in winter.")).memory
    await memory.remember("The cat is called Miso.")
    assert garage is not None
    scripted_llm.tool_calls(("recall_memories", {"query": "garage"})).reply("It sticks.")
    agent = make_agent(llm=scripted_llm, memory=memory)
    await agent.process(ask("what do you know about the garage"))
    answer = tool_result(scripted_llm.chat_requests[1].messages)
    assert answer["memories"] == [
        {"id": garage.id, "content": "The garage door sticks in winter.", "kind": "fact"}
    ]


async def test_forget_memory_deletes_it_restorably_and_confirms(
    make_agent: MakeAgent, make_memory: MakeMemory, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """Forget deletes the memory by its id and confirms; it can be restored afterwards."""
    memory = make_memory()
    cat = (await memory.remember("The cat is called Miso.")).memory
    assert cat is not None
    scripted_llm.tool_calls(("forget_memory", {"memory_id": cat.id})).reply("Forgotten.")
    agent = make_agent(llm=scripted_llm, memory=memory)
    await agent.process(ask("forget that the cat is called Miso"))
    answer = tool_result(scripted_llm.chat_requests[1].messages)
    assert answer["speech"] == "I've forgotten that the cat is called Miso."
    assert await kept(store) == []
    async with store.sessionmaker.begin() as session:
        await memories.restore_memory(session, cat.id)
    assert [record.id for record in await kept(store)] == [cat.id]


async def test_forget_memory_finds_a_memory_by_what_it_is_about(
    make_agent: MakeAgent, make_memory: MakeMemory, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """Without an id, the best match for ``about`` is forgotten, and only that one."""
    memory = make_memory()
    await memory.remember("The cat is called Miso.")
    dog = (await memory.remember("The dog is called Rex.")).memory
    scripted_llm.tool_calls(("forget_memory", {"about": "the cat's name"})).reply("Done.")
    await make_agent(llm=scripted_llm, memory=memory).process(ask("forget the cat's name"))
    assert dog is not None
    assert [record.id for record in await kept(store)] == [dog.id]


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("en", "remember that the cat is called Miso"),
        ("en", "what do you know about the garage"),
        ("en", "forget that"),
        ("de", "merk dir, dass die Katze Miso heißt"),
        ("de", "was weißt du über die Garage"),
        ("de", "vergiss das"),
    ],
)
async def test_the_local_matcher_never_swallows_memory_requests(
    make_agent: MakeAgent,
    make_memory: MakeMemory,
    scripted_llm: ScriptedLLM,
    language: str,
    sentence: str,
) -> None:
    """Asking to remember, recall or forget reaches the model, with the memory tools offered."""
    scripted_llm.reply("Okay.")
    agent = make_agent(llm=scripted_llm, memory=make_memory())
    result = await agent.process(ask(sentence, language=language))
    assert result.handled_by == "llm"
    [request] = scripted_llm.chat_requests
    names = {tool["function"]["name"] for tool in request.tools}
    assert {"remember", "recall_memories", "forget_memory"} <= names


async def test_without_memory_there_are_no_memory_tools(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM
) -> None:
    """With memory off the model is offered none of the memory tools and no memories."""
    scripted_llm.reply("Okay.")
    await make_agent(llm=scripted_llm).process(ask("remember that the cat is called Miso"))
    [request] = scripted_llm.chat_requests
    names = {tool["function"]["name"] for tool in request.tools}
    assert not names & {"remember", "recall_memories", "forget_memory"}
    assert MEMORY_HEADER not in user_message(request.messages)


async def test_a_recalled_memorys_devices_join_a_large_homes_selection(
    make_agent: MakeAgent, make_memory: MakeMemory, scripted_llm: ScriptedLLM, store: Store
) -> None:
    """Above the overview's budget, the devices a recalled memory names are listed for the turn."""
    memory = make_memory()
    async with store.sessionmaker.begin() as session:
        note = await memories.add_memory(
            session,
            "Miso's breakfast is made by the kitchen machine at seven.",
            entity_ids=["switch.coffee_maker"],
        )
    await memory.changed([note.id])
    scripted_llm.reply("Done.")
    agent = make_agent(
        llm=scripted_llm,
        memory=memory,
        home=small_home(),
        local_first=False,
        overview_token_budget=0,
    )
    await agent.process(ask("start Miso's breakfast"))
    content = user_message(scripted_llm.chat_requests[0].messages)
    assert f"- [{note.id}] Miso's breakfast" in content
    assert "Coffee Maker" in content.split(MEMORY_HEADER)[1]
