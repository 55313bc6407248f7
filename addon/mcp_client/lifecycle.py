"""The MCP servers the user added, as an app resource: their tools listed now and every few minutes.

The hub (``keys.MCP_HUB``) offers their tools to the agent's turns and their state to the panel.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from aiohttp import web

from addon import keys
from addon.mcp_client.hub import McpHub
from addon.store.tools import StoredMcpServers

REFRESH_STOP_WAIT_S = 2.0
"""How long stopping waits for an MCP refresh under way before cancelling it."""


async def mcp_hub_ctx(app: web.Application) -> AsyncIterator[None]:
    """Hold the hub and its background refresh for the app's lifetime; needs only the store."""
    store = app[keys.STORE]
    hub = McpHub(StoredMcpServers(store.sessionmaker, store.changes))
    app[keys.MCP_HUB] = hub
    stop = asyncio.Event()
    refresh = asyncio.create_task(hub.refresh_periodically(stop), name="mcp-refresh")
    try:
        yield
    finally:
        stop.set()
        # A listing of a slow server is not worth waiting for; a store read ends in milliseconds.
        _, pending = await asyncio.wait([refresh], timeout=REFRESH_STOP_WAIT_S)
        if pending:
            refresh.cancel()
            await asyncio.wait([refresh])
