"""Recall's in-memory indexes of the live memories: vectors for cosine, word stems for BM25.

Both are loaded once from the store and kept current by the writes that go through
:class:`addon.memory.retrieval.Retriever`, so a recall costs one matrix-vector product and a
few dictionary lookups instead of reading 10,000 rows.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

from addon.store.memories import ScoredId, memory_search

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


class MemoryIndex:
    """Unit-length embeddings of live memories, one row each, for cosine by dot product.

    numpy is imported with the first vector, not with the add-on: without an embedding source
    (the default) recall goes by words, and numpy would be a tenth of the memory at start.
    """

    def __init__(self) -> None:
        self._matrix: NDArray[np.float32] | None = None
        self._ids: NDArray[np.int64] | None = None
        self._rows: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self._rows)

    def put(self, memory_id: int, vector: NDArray[np.float32]) -> None:
        """Add or replace ``memory_id``'s vector; all vectors must share one length."""
        import numpy as np

        row = np.asarray(vector, dtype=np.float32).ravel()
        norm = float(np.linalg.norm(row))
        if norm == 0.0:
            self.remove(memory_id)
            return
        matrix = self._matrix if self._matrix is not None else np.zeros((0, 0), np.float32)
        ids = self._ids if self._ids is not None else np.zeros(0, dtype=np.int64)
        if self._rows and row.shape[0] != matrix.shape[1]:
            raise ValueError(f"embedding of length {row.shape[0]}, index holds {matrix.shape[1]}")
        at = self._rows.get(memory_id)
        if at is None:
            at = len(self._rows)
            if at == matrix.shape[0] or matrix.shape[1] != row.shape[0]:
                grown = np.zeros((max(64, 2 * at), row.shape[0]), dtype=np.float32)
                if at:
                    grown[:at] = matrix[:at]
                grown_ids = np.zeros(grown.shape[0], dtype=np.int64)
                grown_ids[:at] = ids[:at]
                matrix, ids = grown, grown_ids
            self._rows[memory_id] = at
            ids[at] = memory_id
        matrix[at] = row / norm
        self._matrix, self._ids = matrix, ids

    def remove(self, memory_id: int) -> None:
        """Drop ``memory_id`` if present; the last row moves into its place."""
        at = self._rows.pop(memory_id, None)
        if at is None or self._matrix is None or self._ids is None:
            return
        last = len(self._rows)
        if at != last:
            moved = int(self._ids[last])
            self._matrix[at] = self._matrix[last]
            self._ids[at] = moved
            self._rows[moved] = at

    def clear(self) -> None:
        """Forget every vector."""
        self._matrix = self._ids = None
        self._rows = {}

    def similarities(
        self, vector: NDArray[np.float32], memory_ids: Iterable[int]
    ) -> dict[int, float]:
        """Cosine of ``vector`` with each of ``memory_ids`` that has a row here."""
        if not self._rows or self._matrix is None:
            return {}
        import numpy as np

        query = np.asarray(vector, dtype=np.float32).ravel()
        norm = float(np.linalg.norm(query))
        if norm == 0.0 or query.shape[0] != self._matrix.shape[1]:
            return {}
        present = [
            (memory_id, at)
            for memory_id in memory_ids
            if (at := self._rows.get(memory_id)) is not None
        ]
        if not present:
            return {}
        scores = self._matrix[[at for _, at in present]] @ (query / norm)
        return {
            memory_id: float(score) for (memory_id, _), score in zip(present, scores, strict=True)
        }

    def nearest(self, vector: NDArray[np.float32], limit: int) -> list[ScoredId]:
        """The ``limit`` ids most similar to ``vector`` by cosine, best first."""
        size = len(self._rows)
        if size == 0 or self._matrix is None or self._ids is None:
            return []
        import numpy as np

        query = np.asarray(vector, dtype=np.float32).ravel()
        norm = float(np.linalg.norm(query))
        if norm == 0.0 or query.shape[0] != self._matrix.shape[1]:
            return []
        scores = self._matrix[:size] @ (query / norm)
        top = min(limit, size)
        best = np.argpartition(-scores, top - 1)[:top]
        best = best[np.argsort(-scores[best])]
        return [ScoredId(int(self._ids[i]), float(scores[i])) for i in best]


class LexicalIndex:
    """BM25 over the live memories' word stems, kept in memory for the reply's path.

    It ranks as the store's FTS5 recall query does (words cut to ``STEM_CHARS`` and matched as
    prefixes, words held by over ``COMMON_SHARE`` of the memories left out, BM25 with FTS5's
    k1 = 1.2 and b = 0.75) without a query to SQLite: a thread hop through aiosqlite alone costs
    more than the whole scoring here.
    """

    def __init__(self, *, k1: float = 1.2, b: float = 0.75) -> None:
        self._k1 = k1
        self._b = b
        self._postings: dict[str, dict[int, int]] = {}
        self._lengths: dict[int, int] = {}
        self._stems: dict[int, frozenset[str]] = {}
        self._total_length = 0

    def __len__(self) -> int:
        return len(self._lengths)

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self._lengths

    def put(self, memory_id: int, content: str) -> None:
        """Index (or re-index) ``memory_id``'s content."""
        self.remove(memory_id)
        stems = memory_search.word_stems(content)
        for stem in stems:
            posting = self._postings.setdefault(stem, {})
            posting[memory_id] = posting.get(memory_id, 0) + 1
        self._lengths[memory_id] = len(stems)
        self._stems[memory_id] = frozenset(stems)
        self._total_length += len(stems)

    def remove(self, memory_id: int) -> None:
        """Drop ``memory_id`` if present."""
        length = self._lengths.pop(memory_id, None)
        if length is None:
            return
        self._total_length -= length
        for stem in self._stems.pop(memory_id):
            posting = self._postings[stem]
            del posting[memory_id]
            if not posting:
                del self._postings[stem]

    def clear(self) -> None:
        """Forget every memory."""
        self._postings = {}
        self._lengths = {}
        self._stems = {}
        self._total_length = 0

    def search(self, text: str, limit: int) -> list[ScoredId]:
        """The ``limit`` best memories sharing a telling stem with ``text``, best first."""
        size = len(self._lengths)
        if not size:
            return []
        found = [
            (stem, self._postings[stem])
            for stem in dict.fromkeys(memory_search.word_stems(text))
            if stem in self._postings
        ][: memory_search.MAX_QUERY_TERMS]
        if not found:
            return []
        common = max(memory_search.COMMON_FLOOR, size * memory_search.COMMON_SHARE)
        telling = [item for item in found if len(item[1]) <= common] or [
            min(found, key=lambda item: len(item[1]))
        ]
        k1, b = self._k1, self._b
        average = self._total_length / size or 1.0
        lengths = self._lengths
        scores: dict[int, float] = {}
        for _stem, posting in telling:
            count = len(posting)
            idf = max(math.log((size - count + 0.5) / (count + 0.5)), 1e-6)
            for memory_id, tf in posting.items():
                norm = k1 * (1.0 - b + b * lengths[memory_id] / average)
                scores[memory_id] = scores.get(memory_id, 0.0) + idf * tf * (k1 + 1) / (tf + norm)
        best = heapq.nlargest(limit, scores.items(), key=lambda item: (item[1], -item[0]))
        return [ScoredId(memory_id, score) for memory_id, score in best]
