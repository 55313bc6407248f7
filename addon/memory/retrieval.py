"""Recall: the memories most relevant to an utterance, by BM25 and, when there is one, vectors.

Both searches give up to ``candidates`` ranked ids; every candidate of either list gets both
scores (BM25, and its cosine from the index), each divided by the best of the query's
candidates, blended with a weight for BM25 (:func:`blend`). With no embedding source, or when
it fails, the ranking is BM25's alone: recall never fails a reply.
Memories about the speaker's area or the entities in play are then boosted.

Dividing by the best makes the leader score 1 however far it is from the question, and the
nearest vectors always exist, so meaning alone would bring the top five memories into every
turn (a memory about the dog into a weather question). A memory counts as found by meaning only
when its cosine reaches the model's relevance floor (``relevance_floor`` of the source) and
``RELATIVE_SIMILARITY`` of the best cosine of the question; below, it is a candidate only if its
words match. No word list is involved, so this holds in every language.

The vectors live in :class:`~addon.memory.indexes.MemoryIndex`, a float32 matrix loaded once
from the store and kept current by the writes that go through :class:`Retriever`, so a recall
costs one matrix-vector product instead of reading 10,000 embeddings.
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from addon.embeddings.source import EmbeddingSource
from addon.errors import LLMError
from addon.memory.indexes import LexicalIndex, MemoryIndex
from addon.store.memories import MemoryRecord, ScoredId, memories, memory_search

_LOGGER = logging.getLogger(__name__)

RELATIVE_SIMILARITY = 0.7
"""A memory found by meaning alone must reach this share of the best cosine of the question:
beside a memory that answers it (0.6-0.7), another at 0.37 is about something else
(docs/DECISIONS.md, "Recall needs relevance")."""


@dataclass(frozen=True, slots=True)
class RecallQuery:
    """What a recall is about: the utterance (and recent history), the speaker's area, entities."""

    text: str
    area: str | None = None
    entity_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Recalled:
    """A recalled memory, its fused score, and its rank in each list (1 best, None absent)."""

    memory: MemoryRecord
    score: float
    lexical_rank: int | None
    vector_rank: int | None
    """Its rank among the memories found by meaning (over the relevance floor), None if not."""


def blend(
    lexical: Sequence[ScoredId], similarity: Mapping[int, float], *, lexical_weight: float
) -> dict[int, float]:
    """Each candidate's ``w * bm25 / best_bm25 + (1 - w) * cosine / best_cosine``.

    Both scores are divided by the best of this query's candidates, so each list's leader
    scores 1 and the weight says how much BM25 counts against meaning. A candidate missing from
    one side scores 0 there. With no similarities (no source, or it failed) it is BM25 alone.
    """
    best_lexical = max((hit.score for hit in lexical), default=0.0)
    lexical_part = {
        hit.id: hit.score / best_lexical if best_lexical > 0 else 0.0 for hit in lexical
    }
    best_similarity = max(similarity.values(), default=0.0)
    if best_similarity <= 0.0:
        return lexical_part
    weight = lexical_weight if lexical_part else 0.0
    return {
        memory_id: weight * lexical_part.get(memory_id, 0.0)
        + (1.0 - weight) * max(similarity.get(memory_id, 0.0), 0.0) / best_similarity
        for memory_id in lexical_part.keys() | similarity.keys()
    }


@dataclass(frozen=True, slots=True)
class _Kept:
    """A memory as recall keeps it: the record, and what the boosts read (areas folded)."""

    record: MemoryRecord
    areas: frozenset[str]
    entity_ids: frozenset[str]


class Retriever:
    """Hybrid recall over an in-memory copy of the live memories, and the writes that keep it.

    The copy (records, words for BM25, vectors) is read from the store by :meth:`load`, or by
    the first recall if nobody called it, and kept current by :meth:`embed_memories` (after an
    add, edit or restore), :meth:`forget` (after a delete or prune) and
    :meth:`forget_everything`. A recall then never waits for SQLite: on a busy two-core box a
    thread hop through aiosqlite alone costs more than the whole search. The records it returns
    are as the copy last saw them (recall counts included); :meth:`load` reads them afresh.
    """

    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        source: EmbeddingSource | None = None,
        *,
        candidates: int = 100,
        lexical_weight: float = 0.25,
        area_boost: float = 0.25,
        entity_boost: float = 0.25,
        embed_batch: int = 64,
    ) -> None:
        self._sessionmaker = sessionmaker
        self._source = source
        self._index = MemoryIndex()
        self._lexical = LexicalIndex()
        self._kept: dict[int, _Kept] = {}
        self._loaded = False
        self._candidates = candidates
        self._lexical_weight = lexical_weight
        self._area_boost = area_boost
        self._entity_boost = entity_boost
        self._embed_batch = embed_batch

    @property
    def index(self) -> MemoryIndex:
        """The in-memory vectors, for tests and the benchmark."""
        return self._index

    @property
    def lexical(self) -> LexicalIndex:
        """The in-memory BM25 index, for tests and the benchmark."""
        return self._lexical

    async def load(self) -> None:
        """Read every live memory into the copy, once at start; embed those lacking a vector.

        A memory with no embedding of the source's model (added while there was no source, or
        under another model) is embedded here in batches and stored, so switching the source
        needs no re-edit. If the source fails, those memories stay lexical until edited.
        """
        missing_ids = await self._read()
        if self._source is None or not missing_ids:
            return
        missing = [self._kept[memory_id].record for memory_id in missing_ids]
        try:
            for start in range(0, len(missing), self._embed_batch):
                await self.embed_memories(missing[start : start + self._embed_batch])
        except LLMError as err:
            _LOGGER.warning("memories left without embeddings of %s: %s", self._source.model, err)

    async def _read(self) -> list[int]:
        """Fill the copy from the store; the live memories' ids with no vector of the source's."""
        model = self._source.model if self._source is not None else None
        async with self._sessionmaker() as session:
            stored = await memory_search.searchable_memories(session, model)
        self._index.clear()
        self._lexical.clear()
        self._kept = {}
        missing: list[int] = []
        for item in stored:
            self._keep(item.record)
            if item.vector is not None:
                self._index.put(item.record.id, memories.unpack_vector(item.vector))
            else:
                missing.append(item.record.id)
        self._loaded = True
        _LOGGER.info(
            "memory recall loaded: %d memories, %d embeddings of %s",
            len(stored),
            len(self._index),
            model or "no model",
        )
        return missing

    async def embed_memories(self, records: Sequence[MemoryRecord]) -> None:
        """Put ``records`` (added, edited or restored) in the copy; embed and store their vectors.

        Raises :class:`LLMError` if the source fails; the words are in the copy by then, so
        the memories are still recalled lexically.
        """
        for record in records:
            self._keep(record)
        if self._source is None or not records:
            return
        vectors = await self._source.embed([record.content for record in records])
        async with self._sessionmaker.begin() as session:
            for record, vector in zip(records, vectors, strict=True):
                await memories.update_memory(
                    session,
                    record.id,
                    embedding=memories.pack_vector(vector),
                    embedding_model=self._source.model,
                    now=record.updated_at,
                )
        for record, vector in zip(records, vectors, strict=True):
            self._index.put(record.id, vector)
            self._keep(replace(record, embedding_model=self._source.model))

    def _keep(self, record: MemoryRecord) -> None:
        self._lexical.put(record.id, record.content)
        self._kept[record.id] = _Kept(
            record,
            frozenset(area.casefold() for area in record.areas),
            frozenset(record.entity_ids),
        )

    def forget(self, memory_ids: Iterable[int]) -> None:
        """Take deleted memories out of the copy (a restore goes through embed_memories)."""
        for memory_id in memory_ids:
            self._index.remove(memory_id)
            self._lexical.remove(memory_id)
            self._kept.pop(memory_id, None)

    def forget_everything(self) -> None:
        """Empty the copy, after the store forgot everything."""
        self._index.clear()
        self._lexical.clear()
        self._kept = {}
        self._loaded = True

    async def recall(self, query: RecallQuery, *, limit: int = 5) -> list[Recalled]:
        """The ``limit`` live memories most relevant to ``query``, best first."""
        if not self._loaded:
            await self._read()
        lexical = self._lexical.search(query.text, self._candidates)
        vector, similarity = await self._nearest(query.text, lexical)
        vector = self._telling(vector)
        # A memory is a candidate by its words or by a cosine over the floors, never by being
        # merely the nearest of unrelated ones.
        candidates = {hit.id for hit in lexical} | {hit.id for hit in vector}
        similarity = {key: value for key, value in similarity.items() if key in candidates}
        fused = blend(lexical, similarity, lexical_weight=self._lexical_weight)
        kept = self._kept
        best = heapq.nsmallest(
            limit,
            (
                (
                    -score * self._boost(memory_id, query),
                    -kept[memory_id].record.importance,
                    memory_id,
                )
                for memory_id, score in fused.items()
                if memory_id in kept
            ),
        )
        lexical_rank = {hit.id: rank for rank, hit in enumerate(lexical, start=1)}
        vector_rank = {hit.id: rank for rank, hit in enumerate(vector, start=1)}
        return [
            Recalled(
                kept[memory_id].record,
                -negative_score,
                lexical_rank.get(memory_id),
                vector_rank.get(memory_id),
            )
            for negative_score, _importance, memory_id in best
        ]

    async def _nearest(
        self, text: str, lexical: Sequence[ScoredId]
    ) -> tuple[list[ScoredId], dict[int, float]]:
        """The vector ranking, and the cosine of every candidate of either list."""
        if self._source is None or not len(self._index) or not text.strip():
            return [], {}
        try:
            [vector] = await self._source.embed([text])
        except LLMError as err:
            _LOGGER.warning("memory recall is lexical only this turn: %s", err)
            return [], {}
        nearest = self._index.nearest(vector, self._candidates)
        similarity = {hit.id: hit.score for hit in nearest}
        others = [hit.id for hit in lexical if hit.id not in similarity]
        similarity.update(self._index.similarities(vector, others))
        return nearest, similarity

    def _telling(self, nearest: list[ScoredId]) -> list[ScoredId]:
        """The nearest memories close enough to the question to be about it (best first)."""
        if self._source is None or not nearest:
            return []
        floor = max(self._source.relevance_floor, RELATIVE_SIMILARITY * nearest[0].score)
        return [hit for hit in nearest if hit.score >= floor]

    def _boost(self, memory_id: int, query: RecallQuery) -> float:
        tags = self._kept.get(memory_id)
        if tags is None:
            return 1.0
        factor = 1.0
        if query.area and query.area.casefold() in tags.areas:
            factor += self._area_boost
        if tags.entity_ids.intersection(query.entity_ids):
            factor += self._entity_boost
        return factor
