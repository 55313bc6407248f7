"""An endpoint echoing the API key in a long error: the key is masked before the message is cut."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from addon.errors import LLMError
from addon.llm.client import LLMClient
from addon.llm.messages import UserMessage

KEY = "sk-echoed-0123456789abcdefghij"


@pytest.mark.parametrize("pad", [280, 285, 290])
async def test_an_echoed_key_is_masked_before_the_error_is_cut(
    aiohttp_server: Callable[..., Awaitable[TestServer]], pad: int
) -> None:
    """A 400 quoting the key near the 300-character cut shows no part of it."""

    async def refuse(request: web.Request) -> web.Response:
        key = request.headers["Authorization"].removeprefix("Bearer ")
        message = "x" * pad + f" bad key {key}"
        return web.json_response({"error": {"message": message}}, status=400)

    app = web.Application()
    app.router.add_post("/v1/chat/completions", refuse)
    server = await aiohttp_server(app)
    client = LLMClient(
        base_url=str(server.make_url("/v1")),
        api_key=KEY,
        model="m",
        temperature=0.0,
        timeout=5.0,
        max_retries=0,
    )
    try:
        with pytest.raises(LLMError) as caught:
            await client.complete([UserMessage("hi")], [])
    finally:
        await client.close()
    assert all(KEY[:n] not in str(caught.value) for n in range(8, len(KEY) + 1))
