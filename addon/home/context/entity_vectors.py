"""Embeddings of a home's exposed entities, for finding them by meaning as well as by words.

Optional: with an embedding source (the one memory recall uses, :mod:`addon.embeddings`) each
entity is embedded once per home model as "name, aliases (domain, device class) in area", and a
request's nearest entities join its context selection. Without one, selection is lexical only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from addon.embeddings.source import EmbeddingSource
from addon.home.context.context_index import ContextIndex

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


class EntityVectors:
    """Unit-length entity embeddings, one row each, searched by one matrix-vector product."""

    def __init__(self, entity_ids: list[str], matrix: npt.NDArray[np.float32]) -> None:
        # numpy comes with the first embeddings, not with the add-on: without an embedding
        # source (the default) nothing here is built, and numpy is a tenth of the memory at start.
        import numpy as np

        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        self._ids = entity_ids
        self._matrix = (matrix / np.where(norms == 0, 1, norms)).astype(np.float32)

    @classmethod
    async def build(cls, index: ContextIndex, embedder: EmbeddingSource) -> EntityVectors:
        """Embed every entity of ``index`` in one call."""
        import numpy as np

        entity_ids = list(index.entities)
        texts = [_describe(index, entity_id) for entity_id in entity_ids]
        matrix = np.asarray(await embedder.embed(texts), dtype=np.float32) if texts else None
        if matrix is None:
            return cls([], np.zeros((0, 1), dtype=np.float32))
        return cls(entity_ids, matrix)

    def nearest(self, vector: npt.NDArray[np.float32], count: int) -> list[tuple[str, float]]:
        """The ``count`` entities most similar to ``vector``, with their cosine similarity."""
        if not self._ids:
            return []
        import numpy as np

        query = np.asarray(vector, dtype=np.float32).ravel()
        norm = float(np.linalg.norm(query))
        if norm == 0.0 or query.shape[0] != self._matrix.shape[1]:
            return []
        similarity = self._matrix @ (query / norm)
        count = min(count, len(self._ids))
        best = np.argpartition(-similarity, count - 1)[:count]
        ordered = best[np.argsort(-similarity[best])]
        return [(self._ids[i], float(similarity[i])) for i in ordered]


def _describe(index: ContextIndex, entity_id: str) -> str:
    entity = index.entities[entity_id]
    kind = entity.domain if not entity.device_class else f"{entity.domain}, {entity.device_class}"
    text = f"{', '.join(entity.names)} ({kind})"
    area = index.area_names.get(entity.area_id) if entity.area_id else None
    return f"{text} in {area}" if area else text
