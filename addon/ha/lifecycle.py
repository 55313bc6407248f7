"""The Home Assistant link as an aiohttp ``cleanup_ctx``: open at start, closed at shutdown.

Starting never waits for Home Assistant: the client connects in the background, so the add-on
serves ``/health`` (showing ``home_assistant: degraded`` and why) while Home Assistant is still
booting, restarting or unreachable.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
from aiohttp import web

from addon import keys
from addon.ha.client import HomeAssistantClient
from addon.ha.home_sync import HomeSync
from addon.health import ComponentHealth, HealthCheck

HEALTH_NAME = "home_assistant"
HOME_HEALTH_NAME = "home"


def home_health(sync: HomeSync) -> HealthCheck:
    """``/health``'s view of the home model: its size, and how it has been kept up to date.

    Snapshots (a whole new model) against registry patches (one entity's entry swapped in)
    tell whether Home Assistant's changes are taken in cheaply; a model that is behind, or
    none, says why a turn may be answered without the latest home.
    """

    async def check() -> ComponentHealth:
        model = sync.model
        if model is None:
            return ComponentHealth("degraded", "no home model yet: waiting for Home Assistant")
        detail = (
            f"{len(model.entity_ids())} entities ({len(model.exposed_entities())} exposed); "
            f"snapshots taken: {sync.refreshes}, registry patches: {sync.patches}"
        )
        if not sync.live:
            return ComponentHealth("degraded", f"{detail}; not following changes right now")
        if sync.behind:
            detail += "; catching up with Home Assistant's latest changes"
        return ComponentHealth("ok", detail)

    return check


async def ha_link_ctx(app: web.Application) -> AsyncIterator[None]:
    """Own the HTTP session, the client and the home sync for the app's lifetime."""
    settings = app[keys.SETTINGS]
    async with aiohttp.ClientSession() as session:
        client = HomeAssistantClient(
            session,
            settings.ha_websocket_url,
            settings.ha_rest_url,
            settings.ha_token.get_secret_value(),
        )
        sync = HomeSync(client)
        # The sync registers its connect listener first, so the first connect builds the model.
        await sync.start()
        await client.start()
        app[keys.HA_CLIENT] = client
        app[keys.HOME_SYNC] = sync
        app[keys.HEALTH].register(HEALTH_NAME, client.health)
        app[keys.HEALTH].register(HOME_HEALTH_NAME, home_health(sync))
        try:
            yield
        finally:
            app[keys.HEALTH].unregister(HOME_HEALTH_NAME)
            app[keys.HEALTH].unregister(HEALTH_NAME)
            await sync.stop()
            await client.stop()
