"""Memory recall on 10,000 memories: latency on the reply's path, and recall@5.

A real migrated SQLite file is filled with 10,000 memories: 200 targets, each written with the
question that should recall it (40 kinds of statement about the household, five people each,
the question worded differently from the memory), 3,800 hard negatives (the same 40
statements about other people) and 6,000 fillers about devices and rooms. Names are made up
from syllables so each is one rare word, as names in a home are.

- ``recall_p95_ms_10000``: p95 of ``Retriever.recall`` with hybrid ranking, including the
  query's embedding, which is local here (``lexical_p95_ms`` beside it: BM25 alone).
- ``recall_at_5``: the share of the 200 questions whose memory is among the first five, hybrid;
  ``recall_at_5_lexical``: the same with BM25 alone.
- ``offtopic_recalled``: how many memories a question about nothing the home remembers (the
  weather, the time, a joke) brings into a turn on average, through ``MemoryService.recall``
  as a turn asks, hybrid (at most 5; target 0); ``offtopic_recalled_lexical`` beside it.

The embedding source is the add-on's local model (``addon/embeddings/model``, static token vectors
distilled from all-MiniLM-L6-v2, see ``addon/embeddings/static.py``), as with
``memory_embeddings: local``; recall runs through the real ``Retriever`` over its in-memory copy,
loaded from the store as at start. The extraction's share of the reply's path and the prefix
share with memories come from ``bench/memory_turn.py``.
The last line is one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

# The repository in place of bench/ itself, where bench/mcp.py would hide the mcp package.
_BENCH = Path(__file__).resolve().parent
sys.path[:] = [str(_BENCH.parent), *(p for p in sys.path if Path(p or ".").resolve() != _BENCH)]
# As the add-on's image sets it (Dockerfile): numpy's BLAS on one thread, before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from addon.embeddings.static import StaticEmbeddings, load_local_embeddings
from addon.memory.records import RecallRequest
from addon.memory.retrieval import RecallQuery, Retriever
from addon.memory.service import MemoryService
from addon.store.database import Store
from addon.store.memories import memories
from bench import memory_turn

TOTAL = 10_000
PER_TEMPLATE_TARGETS = 5
NEGATIVES_PER_TEMPLATE = 95
WARMUP = 50
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)

FIRST = ("ka", "lo", "mi", "te", "su", "ra", "no", "vi", "be", "do")
SECOND = ("ren", "mar", "lin", "dus", "vik", "sol", "tam", "bel", "gor", "nix")
NAMES = [(a + b).capitalize() for a in FIRST for b in SECOND]

# (memory, question, kind, things): {n} a person, {t} the thing that answers.
TEMPLATES: list[tuple[str, str, str, tuple[str, ...]]] = [
    (
        "{n} is allergic to {t}",
        "what can't {n} eat because of an allergy",
        "fact",
        ("peanuts", "shellfish", "gluten", "lactose", "eggs"),
    ),
    (
        "{n} prefers the bedroom at {t} degrees",
        "how warm does {n} like the bedroom",
        "preference",
        ("18", "19", "20", "21", "22"),
    ),
    (
        "{n}'s birthday is on {t}",
        "when is {n} having a birthday",
        "fact",
        ("March 3", "May 12", "July 30", "October 1", "December 24"),
    ),
    (
        "{n} works night shifts at the {t}",
        "does {n} work at night",
        "fact",
        ("hospital", "bakery", "airport", "station", "factory"),
    ),
    (
        "{n} wakes up at {t} on weekdays",
        "what time does {n} get up during the week",
        "preference",
        ("5:30", "6:00", "6:45", "7:15", "8:00"),
    ),
    (
        "{n} likes the living room lights dimmed to {t} percent for movies",
        "how dim should the lights be when {n} watches a movie",
        "preference",
        ("10", "20", "25", "30", "40"),
    ),
    (
        "{n}'s car is a {t} parked in the garage",
        "which car does {n} drive",
        "fact",
        ("blue Volvo", "red Fiat", "white Tesla", "grey Golf", "black Skoda"),
    ),
    (
        "{n} feeds the cat at {t}",
        "who feeds the cat and when, {n}?",
        "fact",
        ("7 am", "8 am", "noon", "6 pm", "9 pm"),
    ),
    (
        "{n} is learning to play the {t}",
        "what instrument is {n} practising",
        "fact",
        ("piano", "violin", "guitar", "drums", "cello"),
    ),
    (
        "{n} does not want the radio on before {t}",
        "when may the radio play for {n}",
        "preference",
        ("8 am", "9 am", "10 am", "noon", "7 am"),
    ),
    (
        "{n} keeps the spare key {t}",
        "where is {n}'s spare key",
        "fact",
        ("under the mat", "in the blue pot", "with the neighbour", "in the shed", "in the mailbox"),
    ),
    (
        "{n} takes medication at {t} every day",
        "when does {n} need the pills",
        "event",
        ("8 am", "noon", "6 pm", "9 pm", "10 pm"),
    ),
    (
        "{n} is vegetarian and never eats {t}",
        "does {n} eat meat",
        "fact",
        ("beef", "pork", "chicken", "fish", "lamb"),
    ),
    (
        "{n} plays {t} on Tuesday evenings",
        "what sport does {n} do on tuesdays",
        "fact",
        ("football", "tennis", "badminton", "volleyball", "squash"),
    ),
    (
        "{n} wants the hallway light on when arriving after {t}",
        "should the hall lamp be lit when {n} comes home late",
        "preference",
        ("8 pm", "9 pm", "10 pm", "11 pm", "midnight"),
    ),
    (
        "{n}'s favourite music is {t}",
        "what music does {n} enjoy",
        "preference",
        ("jazz", "techno", "classical", "reggae", "folk"),
    ),
    (
        "{n} is away on a business trip until {t}",
        "when will {n} be back from travelling",
        "context",
        ("Friday", "Monday", "Sunday", "Wednesday", "Thursday"),
    ),
    (
        "{n} sleeps in the {t} room",
        "which room is {n}'s bedroom",
        "fact",
        ("attic", "blue", "corner", "guest", "garden"),
    ),
    (
        "{n} waters the plants every {t}",
        "how often does {n} water the plants",
        "fact",
        ("morning", "Sunday", "second day", "evening", "Thursday"),
    ),
    (
        "{n} cannot stand the smell of {t}",
        "which smell does {n} dislike",
        "preference",
        ("coffee", "garlic", "lavender", "smoke", "vinegar"),
    ),
    (
        "{n} has a dog called {t}",
        "what is the name of {n}'s dog",
        "fact",
        ("Rex", "Bello", "Luna", "Pepper", "Ziggy"),
    ),
    (
        "{n} studies {t} at university",
        "what subject is {n} studying",
        "fact",
        ("biology", "law", "history", "physics", "design"),
    ),
    (
        "{n} likes a shower at {t} degrees",
        "how hot should the water be for {n}",
        "preference",
        ("36", "38", "40", "41", "42"),
    ),
    (
        "{n} goes jogging at {t}",
        "when does {n} go for a run",
        "fact",
        ("6 am", "7 am", "lunchtime", "5 pm", "8 pm"),
    ),
    (
        "{n} reads in the {t} before sleeping",
        "where does {n} read at night",
        "fact",
        ("armchair", "bed", "library", "kitchen", "balcony"),
    ),
    (
        "{n} is expecting a parcel from {t}",
        "what delivery is {n} waiting for",
        "context",
        ("the bank", "grandma", "the shop", "Berlin", "the pharmacy"),
    ),
    (
        "{n} wants the blinds closed at {t}",
        "at what time should the blinds go down for {n}",
        "preference",
        ("sunset", "7 pm", "8 pm", "9 pm", "6 pm"),
    ),
    (
        "{n}'s phone charger is in the {t}",
        "where can {n} find the charger",
        "fact",
        ("desk drawer", "kitchen", "car", "hallway", "office"),
    ),
    (
        "{n} drinks {t} in the morning",
        "what does {n} have for breakfast drink",
        "preference",
        ("green tea", "espresso", "orange juice", "cocoa", "oat milk"),
    ),
    (
        "{n} is afraid of {t}",
        "what scares {n}",
        "fact",
        ("spiders", "thunder", "the dark", "dogs", "heights"),
    ),
    (
        "{n} volunteers at the {t} on Saturdays",
        "where does {n} help out at weekends",
        "fact",
        ("animal shelter", "library", "food bank", "hospital", "school"),
    ),
    (
        "{n} supports the {t} football team",
        "which team is {n} a fan of",
        "preference",
        ("red", "blue", "green", "local", "national"),
    ),
    (
        "{n}'s bike is locked in the {t}",
        "where is {n}'s bicycle",
        "fact",
        ("basement", "garage", "shed", "hallway", "yard"),
    ),
    (
        "{n} speaks {t} with the grandparents",
        "which language does {n} use with grandma",
        "fact",
        ("Polish", "Italian", "Greek", "Dutch", "Turkish"),
    ),
    (
        "{n} needs the heating off in the {t} because of asthma",
        "why is the heater disabled for {n}",
        "fact",
        ("study", "nursery", "attic", "bedroom", "office"),
    ),
    (
        "{n} is saving for a trip to {t}",
        "where is {n} planning to travel",
        "context",
        ("Japan", "Peru", "Iceland", "Kenya", "Canada"),
    ),
    (
        "{n} bakes bread every {t}",
        "when does {n} make bread",
        "fact",
        ("Saturday", "Sunday", "Friday", "morning", "weekend"),
    ),
    (
        "{n} takes the {t} bus to school",
        "which bus does {n} ride",
        "fact",
        ("number 12", "number 7", "early", "blue line", "night"),
    ),
    (
        "{n} dislikes bright light after {t}",
        "when should the lights be soft for {n}",
        "preference",
        ("9 pm", "10 pm", "8 pm", "11 pm", "sunset"),
    ),
    (
        "{n} has a dentist appointment on {t}",
        "when is {n} seeing the dentist",
        "event",
        ("Monday", "Tuesday", "the 14th", "Friday", "next week"),
    ),
]

DEVICES = ("lamp", "heater", "fan", "speaker", "blind", "sensor", "plug", "camera", "lock", "tv")
ROOMS = ("kitchen", "hallway", "office", "bathroom", "garage", "porch", "cellar", "loft")
FACTS = (
    "is old and flickers sometimes",
    "was replaced last spring",
    "reacts slowly in winter",
    "is on the smart plug",
    "needs new batteries soon",
    "was set up by the electrician",
)


OFF_TOPIC = (
    "what's the weather tomorrow",
    "will it rain this afternoon",
    "what time is it",
    "tell me a joke",
    "how far away is the moon",
    "set a timer for ten minutes",
    "what's the capital of France",
    "is it going to be hot today",
)
"""Questions no memory of the bench's home answers: whatever they recall is noise."""


@dataclass(frozen=True, slots=True)
class Pair:
    """A question and the id of the memory that answers it."""

    question: str
    memory_id: int


def _p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100)[94]


async def _fill(store: Store, source: StaticEmbeddings) -> list[Pair]:
    pairs: list[Pair] = []
    contents: list[tuple[str, str, str | None]] = []
    for t_index, (memory, question, kind, things) in enumerate(TEMPLATES):
        for i in range(PER_TEMPLATE_TARGETS + NEGATIVES_PER_TEMPLATE):
            name = NAMES[(i * 7 + t_index * 13) % len(NAMES)]
            text = memory.format(n=name, t=things[i % len(things)])
            contents.append((text, kind, question.format(n=name) if i < 5 else None))
    filler = 0
    while len(contents) < TOTAL:
        device = DEVICES[filler % len(DEVICES)]
        room = ROOMS[(filler // len(DEVICES)) % len(ROOMS)]
        fact = FACTS[(filler // (len(DEVICES) * len(ROOMS))) % len(FACTS)]
        contents.append((f"The {room} {device} number {filler} {fact}", "context", None))
        filler += 1
    async with store.sessionmaker.begin() as session:
        for text, kind, question in contents:
            record = await memories.add_memory(
                session,
                text,
                kind=kind,
                embedding=memories.pack_vector(source.vector(text)),
                embedding_model=source.model,
                now=NOW,
            )
            if question is not None:
                pairs.append(Pair(question, record.id))
    return pairs


async def _measure(retriever: Retriever, pairs: list[Pair]) -> tuple[float, float, float]:
    for pair in pairs[:WARMUP]:
        await retriever.recall(RecallQuery(pair.question))
    hits = 0
    samples: list[float] = []
    for pair in pairs:
        started = time.perf_counter()
        recalled = await retriever.recall(RecallQuery(pair.question), limit=5)
        samples.append((time.perf_counter() - started) * 1000)
        hits += any(item.memory.id == pair.memory_id for item in recalled)
    return _p95(samples), statistics.median(samples), hits / len(pairs)


async def _offtopic(store: Store, retriever: Retriever) -> float:
    """The mean number of memories the off-topic questions bring into a turn."""
    service = MemoryService(store.sessionmaker, retriever, calls=store.writer)
    counts = [len(await service.recall(RecallRequest(question))) for question in OFF_TOPIC]
    return statistics.mean(counts)


async def main() -> dict[str, Any]:
    """Fill a store, then measure lexical and hybrid recall over the same questions."""
    source = load_local_embeddings()
    with tempfile.TemporaryDirectory() as directory:
        store = await Store.open(Path(directory) / "home_agent.db")
        try:
            pairs = await _fill(store, source)
            lexical = Retriever(store.sessionmaker)
            hybrid = Retriever(store.sessionmaker, source)
            await hybrid.load()
            lexical_p95, lexical_p50, lexical_recall = await _measure(lexical, pairs)
            hybrid_p95, hybrid_p50, hybrid_recall = await _measure(hybrid, pairs)
            offtopic = await _offtopic(store, hybrid)
            offtopic_lexical = await _offtopic(store, lexical)
        finally:
            await store.close()
    print(f"memories: {TOTAL}, question pairs: {len(pairs)}")
    print(f"embedding source: {source.model} (addon/embeddings/model, local, static)")
    print(
        f"recall p95 (p50): hybrid {hybrid_p95:.2f} ({hybrid_p50:.2f}) ms, query embedding "
        f"included; lexical {lexical_p95:.2f} ({lexical_p50:.2f}) ms"
    )
    print(f"recall@5: hybrid {hybrid_recall:.3f}, lexical {lexical_recall:.3f}")
    print(
        f"memories recalled by an off-topic question: hybrid {offtopic:.2f}, "
        f"lexical {offtopic_lexical:.2f} (target 0)"
    )
    prefix_share, extraction_share = await memory_turn.measure()
    print(f"extraction share of the reply path: {extraction_share:.3f} (target 0)")
    print(f"prefix share with memories: {prefix_share:.4f} (target ≥ 0.95)")
    return {
        "bench": "memory",
        "recall_p95_ms_10000": round(hybrid_p95, 3),
        "lexical_p95_ms": round(lexical_p95, 3),
        "recall_at_5": round(hybrid_recall, 3),
        "recall_at_5_lexical": round(lexical_recall, 3),
        "offtopic_recalled": round(offtopic, 2),
        "offtopic_recalled_lexical": round(offtopic_lexical, 2),
        "prefix_share": round(prefix_share, 4),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
