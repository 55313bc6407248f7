"""The agent as an app resource, wired from the store, the Home Assistant link and the model.

Long-term memory is wired here too: it lives as long as the agent that recalls into its turns,
and the panel tells it of its edits through ``keys.MEMORY_CHANGES``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable

import aiohttp
from aiohttp import web

from addon import keys
from addon.agent.service import Agent
from addon.config.settings import Options
from addon.custom_tools.runner import Runner
from addon.custom_tools.source import StaticSource
from addon.errors import ConfigError
from addon.ha.custom_tools_port import HomeAssistantToolPort
from addon.home.actions.live import LiveExecutor
from addon.home.confirmation import ConfirmationPolicy, PolicyEntry
from addon.llm.client import LLMClient
from addon.local.matcher import LocalMatcher
from addon.mcp_client.hub import McpHub
from addon.memory.extraction import Extractor
from addon.memory.retrieval import EmbeddingSource, EndpointEmbeddings, Retriever
from addon.memory.service import MemoryLimits, MemoryService
from addon.store.confirmation_policy import PolicyRecords
from addon.store.database import Store
from addon.store.mcp_servers import StoredMcpServers
from addon.store.records import ConversationRecords
from addon.tools.custom import CustomToolProvider
from addon.tools.home_tools import builtin_tool_names

_LOGGER = logging.getLogger(__name__)

REFRESH_STOP_WAIT_S = 2.0
"""How long stopping waits for an MCP refresh under way before cancelling it."""


async def agent_ctx(app: web.Application) -> AsyncIterator[None]:
    """Build the agent; compile the local sentence templates off the start-up path.

    Custom tools get an HTTP session of their own, without cookies, so one tool's API never
    sees another's cookies or Home Assistant's connection.
    """
    options = app[keys.SETTINGS].options
    client = app[keys.HA_CLIENT]
    local = (
        LocalMatcher(options.language, library=app[keys.SENTENCES]) if options.local_first else None
    )
    session = aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar())
    runner = Runner(session=session, port=HomeAssistantToolPort(client, app[keys.HOME_SYNC]))
    app[keys.CUSTOM_TOOL_RUNNER] = runner
    source = app.get(keys.CUSTOM_TOOL_SOURCE) or StaticSource()
    custom_tools = CustomToolProvider(source, runner, builtin_tool_names())
    app[keys.CUSTOM_TOOL_TRY] = custom_tools.trial
    embeddings = embedding_source(options, app[keys.LLM])
    memory = build_memory(options, app[keys.STORE], app[keys.LLM], embeddings)
    if memory is not None:
        try:
            await memory.start()
        except Exception:  # recall still works by words; the index fills as memories change
            _LOGGER.exception("Could not load the memory index; recall starts by words alone")
        app[keys.MEMORY_CHANGES] = memory
    # MCP servers' tools: listed now and every few minutes in the background, offered per turn.
    mcp_hub = McpHub(StoredMcpServers(app[keys.STORE].sessionmaker, app[keys.STORE].changes))
    app[keys.MCP_HUB] = mcp_hub
    policy = PolicyRecords(app[keys.STORE].sessionmaker)
    await policy.load()
    app[keys.CONFIRMATION_POLICY] = policy
    agent = Agent(
        options=options,
        records=ConversationRecords(app[keys.STORE]),
        home=app[keys.HOME_SYNC],
        live_executor=LiveExecutor(client),
        llm=app[keys.LLM],
        fallback=app[keys.LLM_FALLBACK],
        expert=app[keys.LLM_EXPERT],
        local=local,
        events=client,
        custom_tools=custom_tools,
        memory=memory,
        embedder=embeddings,
        tool_providers=(mcp_hub.tools,),
        confirmation=compiled_policy(policy),
    )
    app[keys.AGENT] = agent
    warm_up: asyncio.Task[bool] | None = None
    if local is not None:
        # About 100 ms of template compilation that would otherwise land on the first command.
        warm_up = asyncio.create_task(asyncio.to_thread(local.prepare))
    stop_refresh = asyncio.Event()
    refresh = asyncio.create_task(mcp_hub.refresh_periodically(stop_refresh), name="mcp-refresh")
    try:
        yield
    finally:
        if warm_up is not None and not warm_up.done():
            warm_up.cancel()
        stop_refresh.set()
        # A listing of a slow server is not worth waiting for; a store read ends in milliseconds.
        _, pending = await asyncio.wait([refresh], timeout=REFRESH_STOP_WAIT_S)
        if pending:
            refresh.cancel()
            await asyncio.wait([refresh])
        await agent.drain(cancel=True)
        await session.close()


def compiled_policy(records: PolicyRecords) -> Callable[[], ConfirmationPolicy]:
    """The policy as turns check it, compiled again only when its rows changed."""
    compiled: list[tuple[int, ConfirmationPolicy]] = []

    def current() -> ConfirmationPolicy:
        if not compiled or compiled[0][0] != records.version:
            entries = (
                PolicyEntry(
                    entry.id,
                    "entity"
                    if entry.scope == "entity"
                    else "device_class"
                    if entry.scope == "device_class"
                    else "domain",
                    entry.target,
                    entry.actions,
                    "pin" if entry.method == "pin" else "yes",
                    entry.enabled,
                    entry.pin_hash,
                )
                for entry in records.entries
            )
            compiled[:] = [(records.version, ConfirmationPolicy.of(entries))]
        return compiled[0][1]

    return current


def embedding_source(options: Options, llm: LLMClient | None) -> EmbeddingSource | None:
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
        from addon.memory.local_embeddings import load_local_embeddings

        try:
            return load_local_embeddings()
        except ConfigError as err:  # a broken install: recall still works by words
            _LOGGER.error("%s; recall finds memories by their words alone", err)
    return None


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
        extractor=extractor,
        limits=MemoryLimits(max_memories=options.max_memories),
    )
