"""A small deterministic embedding for benchmarks: hashed words and character trigrams.

Offline and local (numpy only), so ``bench/memory.py`` can measure hybrid recall with the query's
embedding on the reply's path. It is not semantic: it knows no synonyms, only shared words and
shared word parts ("allergy" and "allergic" share trigrams), which is what it adds over BM25.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

_WORD = re.compile(r"\w+")


class HashEmbeddings:
    """An ``EmbeddingSource`` of ``dims`` float32 dimensions from feature hashing."""

    def __init__(self, dims: int = 256) -> None:
        self._dims = dims
        self._cache: dict[str, tuple[int, float]] = {}

    @property
    def model(self) -> str:
        """The name the store keeps beside each vector."""
        return f"hash-trigram-{self._dims}"

    @property
    def relevance_floor(self) -> float:
        """Texts sharing no word or word part meet near 0; one shared rare word is about 0.2."""
        return 0.15

    def _feature(self, feature: str) -> tuple[int, float]:
        known = self._cache.get(feature)
        if known is None:
            digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            known = (value % self._dims, 1.0 if value >> 63 else -1.0)
            self._cache[feature] = known
        return known

    def vector(self, text: str) -> np.ndarray:
        """One text's unit vector: each word counts 1, each of its trigrams 0.5."""
        vector = np.zeros(self._dims, dtype=np.float32)
        for word in _WORD.findall(text.casefold()):
            index, sign = self._feature(word)
            vector[index] += sign
            padded = f"#{word}#"
            for start in range(len(padded) - 2):
                index, sign = self._feature(padded[start : start + 3])
                vector[index] += 0.5 * sign
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text."""
        return np.stack([self.vector(text) for text in texts])
