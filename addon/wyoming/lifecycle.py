"""The Wyoming server as an app resource: listening while the app runs, stopped at shutdown."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from functools import partial

from aiohttp import web

from addon import keys
from addon.health import ComponentHealth
from addon.i18n.codes import base_language
from addon.wyoming.handler import AgentEventHandler
from addon.wyoming.info import build_info, supported_languages
from addon.wyoming.server import WyomingServer

_LOGGER = logging.getLogger(__name__)


async def wyoming_ctx(app: web.Application) -> AsyncIterator[None]:
    """Serve the agent over Wyoming on ``wyoming_host:wyoming_port`` (0 picks a free port).

    The bound port is on ``app[keys.WYOMING].bound_port``, which is how tests (and the log) learn
    it. A port already taken fails the start with the OSError, as the HTTP port does.
    """
    settings = app[keys.SETTINGS]
    server = WyomingServer(settings.wyoming_host, settings.wyoming_port)
    info = build_info()
    served = supported_languages()
    if base_language(settings.options.language) not in {base_language(code) for code in served}:
        _LOGGER.warning(
            "Language %r is not one Home Agent serves in full (%s): Home Assistant will not "
            "offer Home Agent to an Assist pipeline in it",
            settings.options.language,
            ", ".join(served),
        )
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
