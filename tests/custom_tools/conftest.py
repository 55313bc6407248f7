"""A real local API and a runner with a real HTTP session."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from addon.custom_tools.runner import Runner
from tests.custom_tools.servers import Api, api_app


@pytest.fixture
def api() -> Api:
    return Api()


@pytest.fixture
async def api_server(api: Api, aiohttp_server: Any) -> TestServer:
    server: TestServer = await aiohttp_server(api_app(api))
    return server


@pytest.fixture
async def runner() -> AsyncIterator[Runner]:
    async with aiohttp.ClientSession() as session:
        yield Runner(session=session, port=None)
