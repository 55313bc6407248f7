"""``/mcp`` in the app: the route, and the MCP server started with its first request.

The official ``mcp`` package's server stack (Starlette, anyio, pydantic models, JWT) is about a
fifth of the add-on's memory at start, and most homes never connect an MCP client. So
:mod:`addon.web.mcp.server`, which imports it, is loaded and its transport started when the
first request reaches ``/mcp``, and stopped with the app. Only the route reaches the server, so
it holds it (no app key); :mod:`addon.app` builds it and stops it through
:func:`addon.web.lifecycle.mcp_server_ctx`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from aiohttp import web

from addon.web.mcp.asgi import ASGIApp, serve_asgi

MCP_PATH = "/mcp"


@dataclass(slots=True)
class McpServer:
    """The transport's request handler once started, and the task that holds it running."""

    _handle: ASGIApp | None = None
    _task: asyncio.Task[None] | None = None
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _starting: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def handler(self, app: web.Application) -> ASGIApp:
        """The running transport's handler, starting it on the first call."""
        async with self._starting:
            if self._handle is None:
                self._handle = await self._start(app)
            return self._handle

    async def _start(self, app: web.Application) -> ASGIApp:
        from addon.web.mcp.server import run_manager

        started: asyncio.Future[ASGIApp] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(run_manager(app, started, self._stop), name="mcp-server")
        waiting: list[asyncio.Future[None] | asyncio.Future[ASGIApp]] = [task, started]
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if not started.done():
            task.result()  # it ended before it took requests: raise why
            raise RuntimeError("the MCP server stopped before it started")
        self._task = task
        return started.result()

    async def view(self, request: web.Request) -> web.StreamResponse:
        """``/mcp``: hand the request, already let in, to the package's transport."""
        return await serve_asgi(request, await self.handler(request.app))

    async def stop(self) -> None:
        """Stop the transport if it was started."""
        self._stop.set()
        if self._task is not None:
            await asyncio.wait([self._task])


def add_mcp_routes(app: web.Application, server: McpServer) -> None:
    """Add ``/mcp``, POST only: the router answers any other method 405 with ``Allow: POST``.

    The server is stateless, so it has no session to end (DELETE) and nothing to push on a
    standalone stream (GET). The package's stateless transport would open that stream anyway and
    hold it open with nothing to say; Streamable HTTP lets a server that offers none answer 405,
    which is what the package itself answers at its newest protocol era (docs/DECISIONS.md).
    """
    app.router.add_post(MCP_PATH, server.view, name="mcp")
