"""The ``rest`` kind: one HTTP request built from templates, its answer shaped for the model.

The scheme, host and port are the definition's: the URL template must start with them written
out (checked when the definition is parsed), and the rendered URL must still have them, so model
arguments can fill only the path, the query and the body. Redirects are followed by hand, at
most three and only within that origin, so a credential header never follows a redirect to
another host. The body is read in chunks and reading stops at ``max_bytes``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import yarl

from addon.custom_tools.context import RecordedResponse, RenderedRequest, StepContext, StepResult
from addon.custom_tools.definition import RestSettings
from addon.custom_tools.kinds.shaping import parse_json, shape
from addon.errors import CustomToolCallError, ToolError

MAX_REDIRECTS = 3
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CHUNK = 64 * 1024
NOT_SENT = "dry run: the request was recorded, not sent"


async def run(settings: RestSettings, context: StepContext) -> StepResult:
    """Render, check the origin, send (unless a dry run holds it back) and shape the answer."""
    request, body_kwargs = render_request(settings, context)
    if not context.send:
        return StepResult(NOT_SENT, request=request, sent=False)
    if context.session is None:
        raise ToolError("no HTTP session to send the request with")
    try:
        async with asyncio.timeout(context.timeout):
            response = await _exchange(context.session, request, body_kwargs, settings.max_bytes)
    except TimeoutError:
        raise CustomToolCallError(
            f"{request.method} {request.url} gave no answer within {context.timeout:g} s",
            request=request,
        ) from None
    except aiohttp.ClientError as err:
        raise CustomToolCallError(
            f"{request.method} {request.url} failed: {err or type(err).__name__}", request=request
        ) from err
    if response.truncated:
        raise CustomToolCallError(
            f"the answer is larger than {settings.max_bytes} bytes (max_bytes); reading stopped",
            request=request,
            response=response,
        )
    if response.status is not None and response.status >= 400:
        raise CustomToolCallError(
            f"{request.method} {request.url} answered HTTP {response.status}: "
            f"{response.body[:300]}",
            request=request,
            response=response,
        )
    try:
        result = shape(settings.result, response.body, parse_json(response.body), context)
    except ToolError as err:
        raise CustomToolCallError(str(err), request=request, response=response) from err
    return StepResult(result, request=request, response=response)


def render_request(
    settings: RestSettings, context: StepContext
) -> tuple[RenderedRequest, dict[str, Any]]:
    """The rendered request, and the body as aiohttp's keyword argument."""
    renderer, variables, field = context.renderer, context.variables, context.field
    origin = settings.origin
    url = yarl.URL(renderer.render(settings.url, variables, f"{field}.url").strip())
    if settings.query:
        query = {
            key: renderer.render(str(value), variables, f"{field}.query.{key}")
            for key, value in settings.query.items()
        }
        url = url.extend_query(query)
    if (url.scheme, url.host, url.port) != (origin.scheme, origin.host, origin.port) or url.user:
        raise ToolError(
            f"{field}.url: the rendered URL leaves {origin}; arguments may fill only the path "
            "and the query"
        )
    headers = {
        key: renderer.render(value, variables, f"{field}.headers.{key}")
        for key, value in settings.headers.items()
    }
    body: Any = None
    body_kwargs: dict[str, Any] = {}
    if settings.body is not None:
        content = settings.body.content
        if settings.body.type == "json":
            body = renderer.render_tree(content, variables, f"{field}.body.content")
            body_kwargs["json"] = body
        elif settings.body.type == "form":
            assert isinstance(content, dict)
            body = {
                key: renderer.render(str(value), variables, f"{field}.body.content.{key}")
                for key, value in content.items()
            }
            body_kwargs["data"] = body
        else:
            assert isinstance(content, str)
            body = renderer.render(content, variables, f"{field}.body.content")
            body_kwargs["data"] = body.encode()
            if not any(key.lower() == "content-type" for key in headers):
                headers["Content-Type"] = "text/plain; charset=utf-8"
    return RenderedRequest(settings.method, str(url), headers, body), body_kwargs


async def _exchange(
    session: aiohttp.ClientSession,
    request: RenderedRequest,
    body_kwargs: dict[str, Any],
    max_bytes: int,
) -> RecordedResponse:
    method, url = request.method, yarl.URL(request.url)
    for _ in range(MAX_REDIRECTS + 1):
        async with session.request(
            method, url, headers=dict(request.headers), allow_redirects=False, **body_kwargs
        ) as response:
            location = response.headers.get("Location")
            if response.status not in _REDIRECTS or location is None:
                return await _read(response, max_bytes)
        target = url.join(yarl.URL(location))
        if (target.scheme, target.host, target.port) != (url.scheme, url.host, url.port):
            raise CustomToolCallError(
                f"{request.url} redirected to another origin ({target.origin()}); refused",
                request=request,
            )
        url = target
        if response.status == 303 or (response.status in (301, 302) and method != "GET"):
            method, body_kwargs = "GET", {}
    raise CustomToolCallError(
        f"{request.url} redirected more than {MAX_REDIRECTS} times", request=request
    )


async def _read(response: aiohttp.ClientResponse, max_bytes: int) -> RecordedResponse:
    chunks: list[bytes] = []
    size = 0
    truncated = False
    async for chunk in response.content.iter_chunked(_CHUNK):
        size += len(chunk)
        if size > max_bytes:
            chunks.append(chunk[: max_bytes - (size - len(chunk))])
            truncated = True
            break
        chunks.append(chunk)
    charset = response.charset or "utf-8"
    try:
        text = b"".join(chunks).decode(charset, errors="replace")
    except LookupError:
        text = b"".join(chunks).decode("utf-8", errors="replace")
    return RecordedResponse(response.status, dict(response.headers.items()), text, truncated)
