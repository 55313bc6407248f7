"""The application factory: builds the aiohttp app and wires every resource, doing no I/O itself.

Resources are ``cleanup_ctx`` generators, opened in the order they are added here and closed in
reverse, so each may rely on the ones before it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Mapping
from typing import Any

from aiohttp import web

from addon import keys
from addon.agent.lifecycle import agent_ctx
from addon.config.settings import Settings
from addon.custom_tools.definition import parse_definition
from addon.eval.lifecycle import eval_ctx
from addon.ha.lifecycle import ha_link_ctx
from addon.health import HealthRegistry
from addon.llm.lifecycle import llm_ctx
from addon.local.library import SentenceLibrary
from addon.store.custom_tools import StoredToolSource
from addon.store.database import Store
from addon.store.retention import prune_periodically
from addon.tools.home_tools import builtin_tool_names
from addon.web.access import access_middleware
from addon.web.api.routes import add_api_routes
from addon.web.health import health_view
from addon.web.mcp.routes import add_mcp_routes, mcp_ctx
from addon.web.middleware import error_middleware
from addon.web.ui.setup import setup_ui
from addon.wyoming.lifecycle import wyoming_ctx

_LOGGER = logging.getLogger(__name__)


def create_app(settings: Settings, *, sentences: SentenceLibrary | None = None) -> web.Application:
    """Build the application for ``settings``; nothing connects until it starts.

    ``sentences`` are parsed sentence sets to share with other apps in the same process (the
    test suite's, which would otherwise parse them again for every app); by default the app
    has its own, loaded on first use.
    """
    # Errors outermost, so a failure while checking access is still answered in JSON.
    app = web.Application(
        middlewares=[error_middleware, access_middleware], client_max_size=1024**2
    )
    app[keys.SETTINGS] = settings
    app[keys.HEALTH] = HealthRegistry()
    app[keys.SENTENCES] = sentences if sentences is not None else SentenceLibrary()
    # Custom tools are checked by the same parser the agent runs them with before they are stored.
    reserved = builtin_tool_names()

    def check_custom_tool(data: Mapping[str, Any]) -> None:
        parse_definition(data, reserved=reserved)

    app[keys.CUSTOM_TOOL_VALIDATOR] = check_custom_tool

    # The store comes first: everything after it records into it.
    app.cleanup_ctx.append(store_ctx)
    # Pruning old conversations needs only the store.
    app.cleanup_ctx.append(retention_ctx)
    # The Home Assistant link connects in the background, so the app starts (and /health
    # answers) even while Home Assistant is down; what acts in the home comes after it.
    app.cleanup_ctx.append(ha_link_ctx)
    # The model endpoint is independent of Home Assistant; the agent needs both.
    app.cleanup_ctx.append(llm_ctx)
    # The agent uses all of the above.
    app.cleanup_ctx.append(agent_ctx)
    # Evaluation runs need only the store and the options; closed before the store, so a run
    # cut off by the shutdown is still marked interrupted.
    app.cleanup_ctx.append(eval_ctx)
    # The Wyoming server hands transcripts to the agent, so it listens only once that exists.
    app.cleanup_ctx.append(wyoming_ctx)
    # The MCP server's transport (started by the first /mcp request) hands them to the agent too.
    app.cleanup_ctx.append(mcp_ctx)

    app.router.add_get("/health", health_view, name="health")
    add_api_routes(app)
    add_mcp_routes(app)
    setup_ui(app)
    return app


async def store_ctx(app: web.Application) -> AsyncIterator[None]:
    """Open (and migrate) the SQLite store for the app's lifetime."""
    settings = app[keys.SETTINGS]
    store = await Store.open(settings.database_path)
    app[keys.STORE] = store
    # The agent reads the enabled custom tools and the secrets at every turn: kept until changed.
    app[keys.CUSTOM_TOOL_SOURCE] = StoredToolSource(store.sessionmaker, store.changes)
    app[keys.HEALTH].register("store", store.health, critical=True)
    try:
        yield
    finally:
        app[keys.HEALTH].unregister("store")
        await store.close()


async def retention_ctx(app: web.Application) -> AsyncIterator[None]:
    """Prune in the background while the app runs (not at all when retention_days is 0)."""
    days = app[keys.SETTINGS].options.retention_days
    if days <= 0:
        _LOGGER.info("Keeping conversations forever (retention_days is 0)")
        yield
        return
    task = asyncio.create_task(prune_periodically(app[keys.STORE], days), name="retention")
    try:
        yield
    finally:
        task.cancel()
        # wait() returns once the task has ended without re-raising its CancelledError, while a
        # cancellation of the shutdown itself still propagates.
        await asyncio.wait([task])
