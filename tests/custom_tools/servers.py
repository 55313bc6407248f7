"""A real local HTTP API for custom tool tests: JSON, text, errors, slowness, redirects, size."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

TOKEN = "tok-Secret-1234567890"
BIG = 2 * 1024 * 1024


@dataclass(slots=True)
class SeenRequest:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: str


@dataclass(slots=True)
class Api:
    """What the server saw, for tests to check."""

    seen: list[SeenRequest] = field(default_factory=list)


def api_app(api: Api) -> web.Application:
    """Routes each answering one way a real API does."""

    @web.middleware
    async def record(request: web.Request, handler: Any) -> web.StreamResponse:
        body = await request.text()
        api.seen.append(
            SeenRequest(
                request.method, request.raw_path, dict(request.query), dict(request.headers), body
            )
        )
        return await handler(request)

    async def weather(request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            return web.json_response({"error": "unauthorized"}, status=401)
        city = request.match_info["city"]
        # Echoes the key back, as careless APIs do: the mask must catch it.
        return web.json_response({"city": city, "temp": 21.5, "sky": "clear", "token": TOKEN})

    async def text(_request: web.Request) -> web.Response:
        return web.Response(text="plain answer")

    async def status(request: web.Request) -> web.Response:
        code = int(request.match_info["code"])
        return web.Response(status=code, text=f"failure {code}")

    async def slow(_request: web.Request) -> web.Response:
        await asyncio.Event().wait()  # until the client gives up
        raise AssertionError("unreachable")  # pragma: no cover

    async def loop(_request: web.Request) -> web.Response:
        raise web.HTTPFound("/loop")

    async def elsewhere(_request: web.Request) -> web.Response:
        raise web.HTTPFound("http://example.invalid/x")

    async def moved(_request: web.Request) -> web.Response:
        raise web.HTTPFound("/text")

    async def big(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse()
        await response.prepare(request)
        chunk = b"x" * 65536
        for _ in range(BIG // len(chunk)):
            await response.write(chunk)
        await response.write_eof()
        return response

    async def echo(request: web.Request) -> web.Response:
        return web.json_response({"got": await request.json()})

    app = web.Application(middlewares=[record])
    app.router.add_get("/weather/{city}", weather)
    app.router.add_get("/text", text)
    app.router.add_get("/status/{code}", status)
    app.router.add_get("/slow", slow)
    app.router.add_get("/loop", loop)
    app.router.add_get("/elsewhere", elsewhere)
    app.router.add_get("/moved", moved)
    app.router.add_get("/big", big)
    app.router.add_post("/echo", echo)
    app.router.add_route("*", "/{tail:.*}", text)
    return app
