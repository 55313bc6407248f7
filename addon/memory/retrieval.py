"""Recall: the memories most relevant to an utterance, by BM25 and, when there is one, vectors.

Both searches give up to ``candidates`` ranked ids; reciprocal rank fusion adds ``1 / (k +
rank)`` from each list, so neither score scale has to be calibrated against the other. With no
embedding source, or when it fails, the ranking is BM25's alone: recall never fails a reply.
Memories about the speaker's area or the entities in play are then boosted.

The vectors live in :class:`MemoryIndex`, a float32 matrix loaded once from the store and kept
current by the writes that go through :class:`Retriever`, so a recall costs one matrix-vector
product instead of reading 10,000 embeddings.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from addon.errors import LLMError
from addon.llm.client import LLMClient
from addon.store import memories
from addon.store.memories import MemoryRecord, ScoredId

_LOGGER = logging.getLogger(__name__)


class EmbeddingSource(Protocol):
    """Something that turns texts into vectors; ``model`` names them in the store."""

    @property
    def model(self) -> str:
        """The embedding model's name; vectors of another model are not compared."""
        ...

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One float32 row per text."""
        ...


class EndpointEmbeddings:
    """Embeddings from the configured endpoint's ``/v1/embeddings``, with its own model name."""

    def __init__(self, client: LLMClient, model: str) -> None:
        self._client = client
        self._model = model

    @property
    def model(self) -> str:
        """The embedding model asked for."""
        return self._model

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Ask the endpoint; raises :class:`LLMError` as every model call does."""
        vectors = await self._client.embed(list(texts), model=self._model)
        return np.asarray(vectors, dtype=np.float32)


class MemoryIndex:
    """Unit-length embeddings of live memories, one row each, for cosine by dot product."""

    def __init__(self) -> None:
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._ids = np.zeros(0, dtype=np.int64)
        self._rows: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self._rows)

    def put(self, memory_id: int, vector: np.ndarray) -> None:
        """Add or replace ``memory_id``'s vector; all vectors must share one length."""
        row = np.asarray(vector, dtype=np.float32).ravel()
        norm = float(np.linalg.norm(row))
        if norm == 0.0:
            self.remove(memory_id)
            return
        if self._rows and row.shape[0] != self._matrix.shape[1]:
            raise ValueError(
                f"embedding of length {row.shape[0]}, index holds {self._matrix.shape[1]}"
            )
        at = self._rows.get(memory_id)
        if at is None:
            at = len(self._rows)
            if at == self._matrix.shape[0] or self._matrix.shape[1] != row.shape[0]:
                grown = np.zeros((max(64, 2 * at), row.shape[0]), dtype=np.float32)
                if at:
                    grown[:at] = self._matrix[:at]
                ids = np.zeros(grown.shape[0], dtype=np.int64)
                ids[:at] = self._ids[:at]
                self._matrix, self._ids = grown, ids
            self._rows[memory_id] = at
            self._ids[at] = memory_id
        self._matrix[at] = row / norm

    def remove(self, memory_id: int) -> None:
        """Drop ``memory_id`` if present; the last row moves into its place."""
        at = self._rows.pop(memory_id, None)
        if at is None:
            return
        last = len(self._rows)
        if at != last:
            moved = int(self._ids[last])
            self._matrix[at] = self._matrix[last]
            self._ids[at] = moved
            self._rows[moved] = at

    def clear(self) -> None:
        """Forget every vector."""
        self._matrix = np.zeros((0, 0), dtype=np.float32)
        self._ids = np.zeros(0, dtype=np.int64)
        self._rows = {}

    def nearest(self, vector: np.ndarray, limit: int) -> list[ScoredId]:
        """The ``limit`` ids most similar to ``vector`` by cosine, best first."""
        size = len(self._rows)
        query = np.asarray(vector, dtype=np.float32).ravel()
        norm = float(np.linalg.norm(query))
        if size == 0 or norm == 0.0 or query.shape[0] != self._matrix.shape[1]:
            return []
        scores = self._matrix[:size] @ (query / norm)
        top = min(limit, size)
        best = np.argpartition(-scores, top - 1)[:top]
        best = best[np.argsort(-scores[best])]
        return [ScoredId(int(self._ids[i]), float(scores[i])) for i in best]


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


def fuse(rankings: Iterable[Sequence[ScoredId]], *, k: int = 60) -> dict[int, float]:
    """Reciprocal rank fusion: each list adds ``1 / (k + rank)`` to the ids it ranks."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, start=1):
            fused[hit.id] = fused.get(hit.id, 0.0) + 1.0 / (k + rank)
    return fused


class Retriever:
    """Hybrid recall over the store, and the writes that keep its vector index current."""

    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        source: EmbeddingSource | None = None,
        *,
        candidates: int = 50,
        rrf_k: int = 60,
        area_boost: float = 0.25,
        entity_boost: float = 0.25,
    ) -> None:
        self._sessionmaker = sessionmaker
        self._source = source
        self._index = MemoryIndex()
        self._candidates = candidates
        self._rrf_k = rrf_k
        self._area_boost = area_boost
        self._entity_boost = entity_boost

    @property
    def hybrid(self) -> bool:
        """Whether vectors take part (an embedding source exists)."""
        return self._source is not None

    @property
    def index(self) -> MemoryIndex:
        """The in-memory vectors, for tests and the benchmark."""
        return self._index

    async def load(self) -> None:
        """Read the stored embeddings of the source's model into the index, once at start."""
        self._index.clear()
        if self._source is None:
            return
        async with self._sessionmaker() as session:
            stored = await memories.stored_embeddings(session, self._source.model)
        for item in stored:
            self._index.put(item.id, memories.unpack_vector(item.vector))
        _LOGGER.info("memory index loaded: %d embeddings of %s", len(stored), self._source.model)

    async def embed_memories(self, records: Sequence[MemoryRecord]) -> None:
        """Embed ``records``' content, store the vectors and put them in the index."""
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

    def forget(self, memory_ids: Iterable[int]) -> None:
        """Take deleted memories out of the index (a restore embeds them again)."""
        for memory_id in memory_ids:
            self._index.remove(memory_id)

    def forget_everything(self) -> None:
        """Empty the index, after the store forgot everything."""
        self._index.clear()

    async def recall(self, query: RecallQuery, *, limit: int = 5) -> list[Recalled]:
        """The ``limit`` live memories most relevant to ``query``, best first."""
        async with self._sessionmaker() as session:
            found = await memories.search_memory_records(
                session, query.text, limit=self._candidates
            )
            lexical = [hit.scored for hit in found]
            vector = await self._nearest(query.text)
            fused = fuse([lexical, vector], k=self._rrf_k)
            shortlist = sorted(fused, key=lambda memory_id: -fused[memory_id])[: limit * 2]
            known = {hit.record.id: hit.record for hit in found}
            missing = [memory_id for memory_id in shortlist if memory_id not in known]
            known.update((r.id, r) for r in await memories.get_memories(session, missing))
            records = [known[memory_id] for memory_id in shortlist if memory_id in known]
        lexical_rank = {hit.id: rank for rank, hit in enumerate(lexical, start=1)}
        vector_rank = {hit.id: rank for rank, hit in enumerate(vector, start=1)}
        recalled = [
            Recalled(
                record,
                fused[record.id] * self._boost(record, query),
                lexical_rank.get(record.id),
                vector_rank.get(record.id),
            )
            for record in records
        ]
        recalled.sort(key=lambda item: (-item.score, -item.memory.importance, item.memory.id))
        return recalled[:limit]

    async def _nearest(self, text: str) -> list[ScoredId]:
        if self._source is None or not len(self._index) or not text.strip():
            return []
        try:
            [vector] = await self._source.embed([text])
        except LLMError as err:
            _LOGGER.warning("memory recall is lexical only this turn: %s", err)
            return []
        return self._index.nearest(vector, self._candidates)

    def _boost(self, record: MemoryRecord, query: RecallQuery) -> float:
        factor = 1.0
        if query.area and query.area.casefold() in {area.casefold() for area in record.areas}:
            factor += self._area_boost
        if set(query.entity_ids) & set(record.entity_ids):
            factor += self._entity_boost
        return factor
