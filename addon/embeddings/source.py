"""What turns texts into vectors, and the source that asks the model endpoint for them.

Memory recall and a large home's context selection use the one source ``memory_embeddings``
chooses (:mod:`addon.embeddings.lifecycle`); a vector of another model is never compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


ENDPOINT_FLOOR = 0.3
"""The relevance floor for an endpoint's model, which is not known in advance: OpenAI's
``text-embedding-3`` models put unrelated sentences near 0.1-0.2 and related ones above 0.3.
Models that put every pair high (some local servers' ``nomic-embed-text``) are held back by the
relative floor instead (docs/DECISIONS.md, "Recall needs relevance")."""


class EmbeddingSource(Protocol):
    """Something that turns texts into vectors; ``model`` names them in the store."""

    @property
    def model(self) -> str:
        """The embedding model's name; vectors of another model are not compared."""
        ...

    @property
    def relevance_floor(self) -> float:
        """The cosine below which a text and a question are about different things.

        Each model spreads its cosines differently, so the floor is the model's: recall keeps
        no memory found by meaning alone under it (docs/DECISIONS.md, "Recall needs relevance").
        """
        ...

    async def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One float32 row per text."""
        ...


class EmbeddingEndpoint(Protocol):
    """An OpenAI-compatible ``/v1/embeddings`` (``LLMClient.embed``)."""

    async def embed(self, texts: list[str], *, model: str) -> list[list[float]]:
        """One vector per text, in the order given; raises ``LLMError``."""
        ...


class EndpointEmbeddings:
    """Embeddings from the configured endpoint's ``/v1/embeddings``, with its own model name."""

    def __init__(
        self, client: EmbeddingEndpoint, model: str, *, relevance_floor: float = ENDPOINT_FLOOR
    ) -> None:
        self._client = client
        self._model = model
        self._floor = relevance_floor

    @property
    def model(self) -> str:
        """The embedding model asked for."""
        return self._model

    @property
    def relevance_floor(self) -> float:
        """:data:`ENDPOINT_FLOOR` unless told otherwise: the endpoint's model is not known here."""
        return self._floor

    async def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Ask the endpoint; raises :class:`~addon.errors.LLMError` as every model call does."""
        # numpy comes with the first vector, not with the add-on: without an embedding source
        # (the default) nothing is embedded, and numpy would be a tenth of the memory at start.
        import numpy as np

        vectors = await self._client.embed(list(texts), model=self._model)
        return np.asarray(vectors, dtype=np.float32)
