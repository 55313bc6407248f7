"""The embedding source as an app resource: chosen by ``memory_embeddings``, loaded at start.

Memory recall and a large home's context selection share it (``keys.EMBEDDINGS``); None when
it is off or cannot work, and both then go by words alone.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

from aiohttp import web

from addon import keys
from addon.config.settings import Options
from addon.embeddings.source import EmbeddingEndpoint, EmbeddingSource, EndpointEmbeddings
from addon.errors import ConfigError

_LOGGER = logging.getLogger(__name__)


async def embeddings_ctx(app: web.Application) -> AsyncIterator[None]:
    """Hold the chosen embedding source (or None) for the app's lifetime; nothing to close."""
    app[keys.EMBEDDINGS] = embedding_source(app[keys.SETTINGS].options, app[keys.LLM])
    yield


def embedding_source(options: Options, llm: EmbeddingEndpoint | None) -> EmbeddingSource | None:
    """The embedding source ``memory_embeddings`` names: memory recall and large homes share it.

    None for ``off``, and when the chosen source cannot work (no endpoint, a broken install):
    recall and selection then go by words alone, which is said in the log.
    """
    if options.memory_embeddings == "endpoint":
        if llm is None:
            _LOGGER.warning(
                "memory_embeddings is endpoint but no model endpoint is set; recall "
                "finds memories by their words alone"
            )
            return None
        return EndpointEmbeddings(llm, options.embedding_model)
    if options.memory_embeddings == "local":
        # The model and numpy are loaded only when chosen: most homes recall by words.
        from addon.embeddings.static import load_local_embeddings

        try:
            return load_local_embeddings()
        except ConfigError as err:  # a broken install: recall still works by words
            _LOGGER.error("%s; recall finds memories by their words alone", err)
    return None
