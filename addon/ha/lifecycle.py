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

HEALTH_NAME = "home_assistant"


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
        try:
            yield
        finally:
            app[keys.HEALTH].unregister(HEALTH_NAME)
            await sync.stop()
            await client.stop()
