"""The web's own resources as app resources: the CSRF key, and the MCP server's transport."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from aiohttp import web

from addon import keys
from addon.web.mcp.routes import McpServer
from addon.web.ui.security import KEY_FILE, load_key


async def csrf_key_ctx(app: web.Application) -> AsyncIterator[None]:
    """Load the install's CSRF key (made on the first start) for the app's lifetime."""
    path = app[keys.SETTINGS].data_dir / KEY_FILE
    app[keys.CSRF_KEY] = await asyncio.to_thread(load_key, path)
    yield


def mcp_server_ctx(server: McpServer) -> Callable[[web.Application], AsyncIterator[None]]:
    """The ``cleanup_ctx`` of the MCP server the ``/mcp`` route holds: stopped with the app.

    It starts with the first request, not here: most homes never connect an MCP client.
    """

    async def lifetime(app: web.Application) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await server.stop()

    return lifetime
