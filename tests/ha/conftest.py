"""Fixtures for the Home Assistant link: the scripted server, clients, and a loop-error check."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import pytest

from addon.ha.client import HomeAssistantClient
from tests.ha.fake_ws_server import FakeHomeAssistant

MakeClient = Callable[..., Awaitable[HomeAssistantClient]]
# Fast timings so reconnects and timeouts happen within a test's patience.
FAST = {
    "command_timeout": 2.0,
    "heartbeat_interval": 30.0,
    "backoff_initial": 0.05,
    "backoff_max": 0.2,
}


@pytest.fixture(autouse=True)
async def loop_errors() -> AsyncIterator[list[dict[str, Any]]]:
    """Fail the test if anything reached the loop's exception handler (escaped exceptions)."""
    loop = asyncio.get_running_loop()
    seen: list[dict[str, Any]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: seen.append(context))
    yield seen
    gc.collect()  # "exception was never retrieved" is reported when a future is collected
    await asyncio.sleep(0)
    loop.set_exception_handler(previous)
    assert not seen, f"exceptions escaped to the event loop: {seen}"


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    """The HTTP session the client shares for WebSocket and REST."""
    async with aiohttp.ClientSession() as http:
        yield http


@pytest.fixture
async def make_client(
    session: aiohttp.ClientSession, fake_ha: FakeHomeAssistant
) -> AsyncIterator[MakeClient]:
    """Build (and start) clients against ``fake_ha``; all are stopped at teardown."""
    clients: list[HomeAssistantClient] = []

    async def make(
        *, token: str | None = None, start: bool = True, **options: Any
    ) -> HomeAssistantClient:
        client = HomeAssistantClient(
            session,
            fake_ha.ws_url,
            fake_ha.rest_url,
            fake_ha.token if token is None else token,
            **(FAST | options),
        )
        clients.append(client)
        if start:
            await client.start()
        return client

    yield make
    for client in clients:
        await client.stop()


@pytest.fixture
async def client(make_client: MakeClient) -> HomeAssistantClient:
    """A client connected to ``fake_ha``."""
    connected = await make_client()
    await connected.wait_connected(5.0)
    return connected
