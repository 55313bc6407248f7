"""The ``rest`` kind: one HTTP request built from templates, its answer shaped for the model.

The scheme, host and port are the definition's: the URL template must start with them written
out (checked when the definition is parsed), and the rendered URL must still have them, so model
arguments can fill only the path, the query and the body. The literal path before the first
template is pinned the same way: the rendered path, decoded and with ``..`` resolved, must stay
under it. Each ``{{ }}`` output of the URL template lands as one encoded part: in the path one
segment (``/`` and ``..`` cannot climb out), in the query one value (``&`` and ``=`` cannot add
a parameter); an output already percent-encoded (``| urlencode``) is decoded first, not encoded
twice. Redirects are followed by hand, at most three and only within that origin and path, so a
credential header never follows a redirect elsewhere. The body is read in chunks and reading
stops at ``max_bytes``; the answer is masked as it arrives, before it is cut or shaped.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote, unquote

import aiohttp
import yarl

from addon.custom_tools.context import RecordedResponse, RenderedRequest, StepContext, StepResult
from addon.custom_tools.definition import RestSettings, resolved_path
from addon.custom_tools.kinds.shaping import parse_json, shape
from addon.errors import CustomToolCallError, ToolError
from addon.text import JsonValue

MAX_REDIRECTS = 3
ERROR_BODY_CHARS = 300
"""How much of an error answer its message quotes (cut after masking)."""
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CHUNK = 64 * 1024
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")
_LITERAL_SAFE = ":/?#[]@!$&'()*+,;=%~"
NOT_SENT = "dry run: the request was recorded, not sent"


@dataclass(frozen=True, slots=True)
class SentBody:
    """The body as aiohttp sends it: a JSON value, or form fields or bytes (never both)."""

    json: object = None
    data: Mapping[str, str] | bytes | None = None


async def run(settings: RestSettings, context: StepContext) -> StepResult:
    """Render, check the origin, send (unless a dry run holds it back) and shape the answer."""
    request, body = render_request(settings, context)
    if not context.send:
        return StepResult(NOT_SENT, request=request, sent=False)
    if context.session is None:
        raise ToolError("no HTTP session to send the request with")
    try:
        async with asyncio.timeout(context.timeout):
            response = await _exchange(context.session, request, body, settings)
    except TimeoutError:
        raise CustomToolCallError(
            f"{request.method} {request.url} gave no answer within {context.timeout:g} s",
            request=request,
        ) from None
    except aiohttp.ClientError as err:
        raise CustomToolCallError(
            f"{request.method} {request.url} failed: {err or type(err).__name__}", request=request
        ) from err
    except ValueError as err:  # a header aiohttp refuses, a URL yarl cannot build
        raise CustomToolCallError(
            f"{request.method} {request.url} could not be sent: {err}", request=request
        ) from err
    response = response.masked(context.mask)
    if response.truncated:
        raise CustomToolCallError(
            f"the answer is larger than {settings.max_bytes} bytes (max_bytes); reading stopped",
            request=request,
            response=response,
        )
    if response.status is not None and response.status >= 400:
        raise CustomToolCallError(
            f"{request.method} {request.url} answered HTTP {response.status}: "
            f"{response.body[:ERROR_BODY_CHARS]}",
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
) -> tuple[RenderedRequest, SentBody]:
    """The rendered request, and the body as aiohttp sends it."""
    renderer, field = context.renderer, context.field
    # Only the request sees the tool's secrets; results and other kinds never do.
    variables = {**context.variables, "secrets": dict(context.secrets)}
    origin = settings.origin
    url = _render_url(settings, variables, context)
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
    if not within_prefix(url, settings):
        raise ToolError(
            f"{field}.url: the rendered path leaves {settings.path_prefix[0]!r}, the path the "
            "definition starts with"
        )
    headers = {
        key: renderer.render(value, variables, f"{field}.headers.{key}")
        for key, value in settings.headers.items()
    }
    for key, value in headers.items():
        if "\r" in value or "\n" in value or "\x00" in value:
            raise ToolError(f"{field}.headers.{key}: a header value cannot hold a line break")
    body: JsonValue = None
    sent = SentBody()
    if settings.body is not None:
        content = settings.body.content
        if settings.body.type == "json":
            body = renderer.render_tree(content, variables, f"{field}.body.content")
            sent = SentBody(json=body)
        elif settings.body.type == "form":
            assert isinstance(content, dict)
            form = {
                key: renderer.render(str(value), variables, f"{field}.body.content.{key}")
                for key, value in content.items()
            }
            body = {**form}
            sent = SentBody(data=form)
        else:
            assert isinstance(content, str)
            body = renderer.render(content, variables, f"{field}.body.content")
            sent = SentBody(data=body.encode())
            if not any(key.lower() == "content-type" for key in headers):
                headers["Content-Type"] = "text/plain; charset=utf-8"
    return RenderedRequest(settings.method, str(url), headers, body), sent


def _render_url(
    settings: RestSettings, variables: Mapping[str, object], context: StepContext
) -> yarl.URL:
    """The URL template rendered, each output encoded as one path segment or one query value."""
    field = f"{context.field}.url"
    text, parts = context.renderer.render_parts(settings.url, variables, field)
    pieces: list[str] = []
    in_query = False
    position = 0
    for match in _PLACEHOLDER.finditer(text):
        literal = text[position : match.start()]
        pieces.append(quote(literal, safe=_LITERAL_SAFE))
        in_query = in_query or "?" in literal or "#" in literal
        value = unquote(str(parts[int(match.group(1))]))
        if not in_query and value in (".", ".."):
            raise ToolError(f"{field}: an argument cannot be {value!r} in the path")
        pieces.append(quote(value, safe=""))
        position = match.end()
    pieces.append(quote(text[position:], safe=_LITERAL_SAFE))
    try:
        return yarl.URL("".join(pieces).strip(), encoded=True)
    except ValueError as err:
        raise ToolError(f"{field}: the rendered URL is not valid: {err}") from err


def within_prefix(url: yarl.URL, settings: RestSettings, *, redirect: bool = False) -> bool:
    """Whether ``url``'s path, decoded and resolved, stays where the definition pinned it.

    A path written out in full is matched exactly; a server's redirect from it may go anywhere
    under its folder (``/v1/moved`` to ``/v1/text``), as the server, not an argument, chose it.
    """
    prefix, exact = settings.path_prefix
    path = resolved_path(url.raw_path or "/")
    if exact and not redirect:
        return path.rstrip("/") == prefix.rstrip("/")
    if exact:
        prefix = prefix[: prefix.rfind("/") + 1]
    return path.startswith(prefix)


async def _exchange(
    session: aiohttp.ClientSession,
    request: RenderedRequest,
    body: SentBody,
    settings: RestSettings,
) -> RecordedResponse:
    method, url = request.method, yarl.URL(request.url, encoded=True)
    for _ in range(MAX_REDIRECTS + 1):
        async with session.request(
            method,
            url,
            headers=dict(request.headers),
            allow_redirects=False,
            json=body.json,
            data=body.data,
        ) as response:
            location = response.headers.get("Location")
            if response.status not in _REDIRECTS or location is None:
                return await _read(response, settings.max_bytes)
        try:
            target = url.join(yarl.URL(location))
        except ValueError as err:
            raise CustomToolCallError(
                f"{request.url} redirected to an address that is not valid; refused",
                request=request,
            ) from err
        if target.user is not None or target.password is not None:
            raise CustomToolCallError(
                f"{request.url} redirected to an address with credentials; refused",
                request=request,
            )
        if (target.scheme, target.host, target.port) != (url.scheme, url.host, url.port):
            raise CustomToolCallError(
                f"{request.url} redirected to another origin ({target.origin()}); refused",
                request=request,
            )
        if not within_prefix(target, settings, redirect=True):
            raise CustomToolCallError(
                f"{request.url} redirected outside {settings.path_prefix[0]!r}; refused",
                request=request,
            )
        url = target
        if response.status == 303 or (response.status in (301, 302) and method != "GET"):
            method, body = "GET", SentBody()
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
