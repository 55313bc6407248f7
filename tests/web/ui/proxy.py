"""A stand-in for Home Assistant's ingress in front of the app, for tests in a real browser.

Like Home Assistant's ``hassio/ingress.py`` it serves the add-on under
``/api/hassio_ingress/<token>/``, forwards each request to the add-on with that prefix in
``X-Ingress-Path`` (minus hop-by-hop headers) and streams the answer back chunk by chunk, so
Server-Sent Events arrive as they are written. It also serves the two Home Assistant pages the UI
touches: the panel that shows the add-on in an iframe, and a stub of the entity settings page that
entity links open in the top window.
"""

from __future__ import annotations

from types import TracebackType
from typing import Self

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer
from multidict import CIMultiDict

INGRESS_TOKEN = "Xa8qW2-tok3n_browser"
PREFIX = f"/api/hassio_ingress/{INGRESS_TOKEN}"
PANEL_PATH = "/hassio/ingress/home_agent"
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
        "x-ingress-path",
    }
)
PANEL_PAGE = f"""<!doctype html>
<html><head><title>Home Assistant</title></head>
<body><h1>Home Assistant</h1>
<iframe id="ingress" title="Home Agent" src="{PREFIX}/" width="1000" height="700"></iframe>
</body></html>"""
ENTITIES_PAGE = """<!doctype html>
<html><head><title>Entities - Home Assistant</title></head>
<body><h1>Entities</h1></body></html>"""


class IngressProxy:
    """An aiohttp server on loopback forwarding ``PREFIX/…`` to the app at ``upstream``."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self._session: aiohttp.ClientSession | None = None
        app = web.Application()
        app.router.add_route("*", PREFIX + "/{tail:.*}", self._forward)
        app.router.add_get(PANEL_PATH, self._panel)
        app.router.add_get("/config/entities", self._entities)
        self._server = TestServer(app, host="127.0.0.1")

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:PORT``, as the browser sees Home Assistant."""
        return str(self._server.make_url("")).rstrip("/")

    def url(self, path: str = "/") -> str:
        """The browser's URL for an add-on path."""
        return self.origin + PREFIX + path

    async def __aenter__(self) -> Self:
        # Bodies pass through as sent, compressed or not, with their Content-Encoding.
        self._session = aiohttp.ClientSession(auto_decompress=False)
        await self._server.start_server()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self._server.close()
        if self._session is not None:
            await self._session.close()

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        assert self._session is not None
        path = request.raw_path.removeprefix(PREFIX)
        headers = CIMultiDict(
            (name, value)
            for name, value in request.headers.items()
            if name.lower() not in HOP_BY_HOP
        )
        headers["X-Ingress-Path"] = PREFIX
        body = await request.read()
        async with self._session.request(
            request.method,
            self.upstream + path,
            headers=headers,
            data=body or None,
            allow_redirects=False,
        ) as answer:
            response = web.StreamResponse(
                status=answer.status,
                reason=answer.reason,
                headers=CIMultiDict(
                    (name, value)
                    for name, value in answer.headers.items()
                    if name.lower() not in HOP_BY_HOP
                ),
            )
            await response.prepare(request)
            async for chunk in answer.content.iter_any():
                await response.write(chunk)
            await response.write_eof()
            return response

    async def _panel(self, request: web.Request) -> web.Response:
        return web.Response(text=PANEL_PAGE, content_type="text/html")

    async def _entities(self, request: web.Request) -> web.Response:
        return web.Response(text=ENTITIES_PAGE, content_type="text/html")
