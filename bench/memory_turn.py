"""Memory inside real turns: the prefix share with memories, and the extraction's share of replies.

Run by ``bench/memory.py`` for its last two figures (or alone: ``python bench/memory_turn.py``).

- ``prefix_share``: as ``bench/prompt.py`` measures it on the 1,000-entity synthetic home (tokens
  of ``cl100k_base``, 5% of states changed and the clock +30 s between turns), with memory on:
  the memory tools in the tool list and, on each user message, the memories the real
  ``MemoryService.recall`` returns from a store for an utterance that changes every turn.
- ``extraction_share``: the share of the memory extraction's time that lies inside the reply's
  path, over real agent turns against the scripted model (the extraction answers after 50 ms):
  0 when the reply never waits for it.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

# The repository in place of bench/ itself, where bench/mcp.py would hide the mcp package.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]

import tiktoken

from addon.agent.conversation import ConversationRequest
from addon.agent.prompt import timed_user_content
from addon.agent.service import Agent
from addon.config.settings import Options
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from addon.home.model.source import FixedHome
from addon.llm.client import LLMClient
from addon.memory.extraction import Extractor
from addon.memory.records import RecallRequest
from addon.memory.retrieval import Retriever
from addon.memory.service import MemoryService
from addon.store.database import Store
from addon.store.turns import ConversationRecords
from addon.tools.home_tools import build_registry
from addon.tools.memory import memory_tools
from bench.prompt import ENCODING, START, change_states, common_prefix, our_system_prompt
from devtools.scripted_llm import Completion, ScriptedLLM
from devtools.synthetic import synthetic_home

MEMORIES = (
    "The cat is called Miso and sleeps in the kitchen.",
    "Anna likes the bedroom at 19 degrees at night.",
    "The boiler was serviced by Tom in May.",
    "Guests stay in the attic room until Sunday.",
    "The garage door sticks in winter.",
    "Ben waters the garden plants on Saturdays.",
)
UTTERANCES = (
    "what is the cat called",
    "set the bedroom the way Anna likes it",
    "when was the boiler serviced",
    "how long do the guests stay in the attic",
    "open the garage door",
    "who waters the garden plants",
    "where does the cat sleep",
    "what does Anna like at night",
    "who serviced the boiler",
)
TURNS = len(UTTERANCES) - 1
EXTRACTION_DELAY_S = 0.05


async def prefix_share(store: Store) -> float:
    """Mean exact token prefix shared by consecutive requests, memories recalled into each."""
    encoding = tiktoken.get_encoding(ENCODING)
    service = MemoryService(store.sessionmaker, Retriever(store.sessionmaker), calls=store.writer)
    for content in MEMORIES:
        await service.remember(content)
    model = synthetic_home(1_000, seed=0).build()
    tools = memory_tools(service)
    rng = random.Random(1)
    now = START
    previous: list[int] | None = None
    shares = []
    for utterance in UTTERANCES:
        recalled = await service.recall(RecallRequest(utterance))
        assert recalled, f"nothing recalled for {utterance!r}"
        text = (
            our_system_prompt(model)
            + json.dumps(build_registry(model, tools).specs())
            + timed_user_content(utterance, now, recalled)
        )
        tokens = encoding.encode(text)
        if previous is not None:
            shares.append(common_prefix(previous, tokens) / len(tokens))
        previous = tokens
        now += timedelta(seconds=30)
        change_states(model, rng, now)
    return statistics.mean(shares)


async def extraction_share(store: Store, home: HomeModel) -> float:
    """The share of the extractions' time spent before their turns' replies were returned."""
    started: list[float] = []

    async def extraction(_body: dict[str, Any]) -> Completion:
        started.append(time.perf_counter())
        await asyncio.sleep(EXTRACTION_DELAY_S)
        return Completion(json.dumps({"memories": []}))

    async with ScriptedLLM(default=extraction) as scripted:
        llm = LLMClient(
            base_url=scripted.base_url,
            api_key="bench",
            model="scripted-model",
            temperature=0.0,
            timeout=10.0,
            max_retries=0,
        )
        service = MemoryService(
            store.sessionmaker,
            Retriever(store.sessionmaker),
            calls=store.writer,
            extractor=Extractor(llm),
        )
        agent = Agent(
            options=Options(local_first=False),
            records=ConversationRecords(store),
            home=FixedHome(home),
            live_executor=VirtualExecutor(home),
            llm=llm,
            memory=service,
            outcome_delay=0.0,
        )
        inside = []
        try:
            for utterance in UTTERANCES:
                scripted.reply("Okay.")
                before = len(started)
                result = await agent.process(ConversationRequest(text=utterance, source="http"))
                returned = time.perf_counter()
                assert result.handled_by == "llm"
                await agent.drain()
                [extraction_started] = started[before:]
                inside.append(max(0.0, returned - extraction_started) / EXTRACTION_DELAY_S)
        finally:
            await agent.drain()
            await llm.close()
    return statistics.mean(inside)


async def measure() -> tuple[float, float]:
    """Both figures, each over a fresh store."""
    with tempfile.TemporaryDirectory() as directory:
        store = await Store.open(Path(directory) / "prefix.db")
        try:
            share = await prefix_share(store)
        finally:
            await store.close()
        store = await Store.open(Path(directory) / "extraction.db")
        try:
            home = synthetic_home(200, seed=0).build()
            extraction = await extraction_share(store, home)
        finally:
            await store.close()
    return share, extraction


if __name__ == "__main__":
    prefix, extraction = asyncio.run(measure())
    print(json.dumps({"prefix_share": round(prefix, 4), "extraction_share": round(extraction, 4)}))
