"""A bridge from one aiohttp request to an ASGI application, and its answer back.

The official MCP package serves Streamable HTTP as an ASGI application; Home Agent serves HTTP
with aiohttp. Rather than a second server on a second port (with its own access control), the
``/mcp`` route hands the request, already let in by the access middleware, to the ASGI app.
Only what the MCP transport needs is carried: method, path, query, headers, the body (read once,
bounded by aiohttp's ``client_max_size``), and a streamed answer, so an SSE stream reaches the
client as it is written.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, MutableMapping

from aiohttp import web

Scope = MutableMapping[str, object]
Message = MutableMapping[str, object]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


async def serve_asgi(
    request: web.Request, app: ASGIApp, *, extra: Mapping[str, object] | None = None
) -> web.StreamResponse:
    """Run ``app`` for ``request``; ``extra`` is added to the scope for the app's handlers.

    A body that cannot be read (bytes that are not in their ``Content-Encoding``) is refused with
    400 here, before the app: it never got a request to answer.
    """
    try:
        body = await request.read()
    except web.RequestPayloadError as err:
        raise web.HTTPBadRequest(text=f"The body could not be read: {err}") from err
    scope: Scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": f"{request.version.major}.{request.version.minor}",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.raw_path.split("?", 1)[0].encode(),
        "root_path": "",
        "query_string": request.query_string.encode(),
        "headers": [(key.lower(), value) for key, value in request.raw_headers],
        "client": (request.remote or "", 0),
        "server": None,
        **(extra or {}),
    }
    sent_body = False

    async def receive() -> Message:
        nonlocal sent_body
        if not sent_body:
            sent_body = True
            return {"type": "http.request", "body": body, "more_body": False}
        # Nothing more will come. The app asks again only to learn of a disconnect (beside a
        # stream it writes); it is cancelled when it ends, so this waits until then.
        await asyncio.Event().wait()
        return {"type": "http.disconnect"}

    start: Message | None = None
    response: web.StreamResponse | None = None
    whole: bytes | None = None

    async def send(message: Message) -> None:
        nonlocal start, response, whole
        if message["type"] == "http.response.start":
            start = message
            return
        if message["type"] != "http.response.body":
            return
        assert start is not None, "the ASGI app sent a body before its headers"
        body = message.get("body", b"")
        chunk = body if isinstance(body, bytes) else b""
        more = bool(message.get("more_body", False))
        if response is None and not more:
            # The whole answer in one message (a JSON reply): sent as one response once the
            # app returns, without a stream's separate writes.
            whole = chunk
            return
        if response is None:
            response = _response(web.StreamResponse, start)
            await response.prepare(request)
        if chunk:
            await response.write(chunk)
        if not more:
            await response.write_eof()

    await app(scope, receive, send)
    if start is None:
        raise web.HTTPInternalServerError(text="The MCP transport sent no answer")
    if response is None:
        answer = _response(web.Response, start)
        answer.body = whole or b""
        return answer
    if not response.prepared:
        await response.prepare(request)
        await response.write_eof()
    return response


def _response[R: web.StreamResponse](kind: type[R], start: Message) -> R:
    """A response of ``kind`` with the status and headers of the app's ``http.response.start``."""
    status, headers = start["status"], start.get("headers", ())
    if not isinstance(status, int) or not isinstance(headers, list | tuple):
        raise web.HTTPInternalServerError(text="The MCP transport sent a malformed answer")
    response = kind(status=status)
    for key, value in headers:
        response.headers.add(key.decode("latin-1"), value.decode("latin-1"))
    return response
