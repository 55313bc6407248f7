"""Long-term memory as an app resource: built from the options, its index loaded at start.

The agent recalls into its turns through ``keys.MEMORY``; the panel tells it of its edits
through ``keys.MEMORY_CHANGES``. Neither is set when memory is off.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

from aiohttp import web

from addon import keys
from addon.config.settings import Options
from addon.embeddings.source import EmbeddingSource
from addon.llm.client import LLMClient
from addon.memory.extraction import Extractor
from addon.memory.records import MemoryLimits
from addon.memory.retrieval import Retriever
from addon.memory.service import MemoryService
from addon.store.database import Store

_LOGGER = logging.getLogger(__name__)


async def memory_ctx(app: web.Application) -> AsyncIterator[None]:
    """Build memory and load its index; it holds nothing to close (the store outlives it)."""
    memory = build_memory(
        app[keys.SETTINGS].options, app[keys.STORE], app[keys.LLM], app[keys.EMBEDDINGS]
    )
    if memory is not None:
        try:
            await memory.start()
        except Exception:  # recall still works by words; the index fills as memories change
            _LOGGER.exception("Could not load the memory index; recall starts by words alone")
        app[keys.MEMORY] = memory
        app[keys.MEMORY_CHANGES] = memory
    yield


def build_memory(
    options: Options, store: Store, llm: LLMClient | None, source: EmbeddingSource | None
) -> MemoryService | None:
    """Long-term memory as the options ask for it; None when it is off.

    Extraction needs the model; without an endpoint memory keeps only what the user asks for.
    """
    if not options.memory:
        _LOGGER.info("Long-term memory is off")
        return None
    extractor = Extractor(llm) if options.memory_extraction and llm is not None else None
    return MemoryService(
        store.sessionmaker,
        Retriever(store.sessionmaker, source),
        calls=store.writer,
        extractor=extractor,
        limits=MemoryLimits(max_memories=options.max_memories),
    )
