"""The Wyoming server as an app resource: listening while the app runs, stopped at shutdown."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from functools import partial

from aiohttp import web

from addon import keys
from addon.health import ComponentHealth
from addon.wyoming.handler import AgentEventHandler
from addon.wyoming.info import build_info
from addon.wyoming.server import WyomingServer

_LOGGER = logging.getLogger(__name__)


async def wyoming_ctx(app: web.Application) -> AsyncIterator[None]:
    """Serve the agent over Wyoming on ``wyoming_host:wyoming_port`` (0 picks a free port).

    The bound port is on ``app[keys.WYOMING].bound_port``, which is how tests (and the log) learn
    it. A port already taken fails the start with the OSError, as the HTTP port does.
    """
    settings = app[keys.SETTINGS]
    server = WyomingServer(settings.wyoming_host, settings.wyoming_port)
    info = build_info(settings.options.language)
    await server.start(partial(AgentEventHandler, agent=app[keys.AGENT], info=info))
    app[keys.WYOMING] = server
    _LOGGER.info("Wyoming server listening on %s:%d", settings.wyoming_host, server.bound_port)

    async def health() -> ComponentHealth:
        return ComponentHealth(
            "ok", f"port {server.bound_port}, {server.connections} connection(s) open"
        )

    app[keys.HEALTH].register("wyoming", health)
    try:
        yield
    finally:
        app[keys.HEALTH].unregister("wyoming")
        await server.stop()
