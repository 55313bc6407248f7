"""A stand-in for Home Assistant's ingress in front of the app, for tests in a real browser.

Like Home Assistant's ``hassio/ingress.py`` it serves the add-on under
``/api/hassio_ingress/<token>/``, forwards each request to the add-on with that prefix in
``X-Ingress-Path`` (minus hop-by-hop headers) and streams the answer back chunk by chunk, so
Server-Sent Events arrive as they are written. It also serves the two Home Assistant pages the UI
touches: the panel that shows the add-on in an iframe, and a stub of the entity settings page that
entity links open in the top window.

The demo runs it as a process of its own (``python -m devtools.ingress_proxy``) in front of the
add-on, as Supervisor's proxy is in front of the real one: it connects to the add-on from an
address of its own (``--source``, 127.0.0.2 on the demo), which the add-on trusts, so the
add-on's direct port asks everyone else for a token exactly as in production. Any local process
can connect from 127.0.0.2 too, so the address alone is not enough: the demo gives the add-on and
this proxy one random secret (``HOME_AGENT_INGRESS_SECRET`` in their environments, never on a
command line), which the proxy sends with every request in ``X-Home-Agent-Ingress-Secret``,
dropping whatever the browser sent under that name. The tests run it in-process in front of each
test's app.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import sys
from types import TracebackType
from typing import Self

import aiohttp
from aiohttp import web
from multidict import CIMultiDict

# The add-on's names for the secret, repeated so the proxy does not import the add-on.
SECRET_HEADER = "X-Home-Agent-Ingress-Secret"
SECRET_ENV = "HOME_AGENT_INGRESS_SECRET"
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
        SECRET_HEADER.lower(),
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
    """An aiohttp server on loopback forwarding ``PREFIX/…`` to the app at ``upstream``.

    ``port`` 0 takes a free one; ``source`` is the address it connects to the app from (None:
    whichever the system picks, 127.0.0.1 for an app on loopback); ``secret`` is sent with every
    request in :data:`SECRET_HEADER` (None: nothing is).
    """

    def __init__(
        self,
        upstream: str,
        *,
        port: int = 0,
        source: str | None = None,
        secret: str | None = None,
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.source = source
        self._secret = secret
        self._port = port
        self._session: aiohttp.ClientSession | None = None
        app = web.Application()
        app.router.add_route("*", PREFIX + "/{tail:.*}", self._forward)
        app.router.add_get(PANEL_PATH, self._panel)
        app.router.add_get("/config/entities", self._entities)
        self._runner = web.AppRunner(app, access_log=None)
        self._bound = 0

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:PORT``, as the browser sees Home Assistant."""
        return f"http://127.0.0.1:{self._bound}"

    def url(self, path: str = "/") -> str:
        """The browser's URL for an add-on path."""
        return self.origin + PREFIX + path

    async def __aenter__(self) -> Self:
        # Bodies pass through as sent, compressed or not, with their Content-Encoding.
        connector = aiohttp.TCPConnector(
            local_addr=(self.source, 0) if self.source is not None else None
        )
        self._session = aiohttp.ClientSession(connector=connector, auto_decompress=False)
        await self._runner.setup()
        # A socket of our own, so a port of 0 can be read back once bound.
        listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind(("127.0.0.1", self._port))
        self._bound = listening.getsockname()[1]
        await web.SockSite(self._runner, listening).start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self._runner.cleanup()
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
        if self._secret is not None:
            headers[SECRET_HEADER] = self._secret
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


def build_parser() -> argparse.ArgumentParser:
    """The proxy's flags, as ``devtools/demo.py`` passes them."""
    parser = argparse.ArgumentParser(prog="python -m devtools.ingress_proxy", description=__doc__)
    parser.add_argument("--upstream", required=True, help="the add-on, http://127.0.0.1:8099")
    parser.add_argument("--port", type=int, required=True, help="where the browser connects")
    parser.add_argument("--source", default=None, help="the address to reach the add-on from")
    return parser


async def serve(upstream: str, port: int, source: str | None, secret: str | None) -> None:
    """Run the proxy until SIGTERM or SIGINT."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    async with IngressProxy(upstream, port=port, source=source, secret=secret) as proxy:
        sys.stdout.write(f"Ingress proxy: {proxy.url('/')} -> {upstream}\n")
        sys.stdout.flush()
        await stop.wait()


if __name__ == "__main__":
    arguments = build_parser().parse_args()
    asyncio.run(
        serve(
            arguments.upstream, arguments.port, arguments.source, os.environ.get(SECRET_ENV) or None
        )
    )
