"""The official MCP client, pointed at the app's ``/mcp`` with a bearer token."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from aiohttp.test_utils import TestClient
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.web.api.conftest import TOKEN


@contextlib.asynccontextmanager
async def official_client(
    app: TestClient[Any, Any], token: str | None = TOKEN, *, mode: str = "auto"
) -> AsyncIterator[Client]:
    """Connect (probe or handshake, as the client decides) and yield the client."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else None
    async with create_mcp_http_client(headers=headers) as http:
        transport = streamable_http_client(str(app.make_url("/mcp")), http_client=http)
        async with Client(transport, mode=mode) as client:
            yield client
