"""Reading a UI form: a body our pages would never send is the sender's error (4xx), not ours.

The UI's forms are sent urlencoded, by the browser and by ``app.js`` alike. A multipart body is
refused before it is parsed (415): aiohttp's parser spools every file part to a temporary file
that nobody here would read, and leaves those of a body it fails on half way for the garbage
collector to find.

For an urlencoded body, aiohttp's ``request.post()`` raises whatever its decoding meets:
``UnicodeDecodeError`` for bytes that are not the declared charset, ``LookupError`` for a charset
Python does not know, ``RequestPayloadError`` for a body that is not in the ``Content-Encoding``
it names. Each means the request is malformed, so each is answered 400, once, here; the CSRF
check and the chat views both read the form through this.
"""

from __future__ import annotations

import logging

from aiohttp import web
from multidict import MultiDictProxy

_LOGGER = logging.getLogger(__name__)

Form = MultiDictProxy[str | bytes | bytearray | web.FileField]
MULTIPART = "multipart/form-data"
MULTIPART_MESSAGE = (
    "The form must be sent as application/x-www-form-urlencoded, as the page sends it; "
    "multipart bodies are not read."
)
MALFORMED_MESSAGE = (
    "The form could not be read: its body is malformed. Reload the page and try again."
)


async def read_form(request: web.Request) -> Form:
    """The request's form fields; 415 for multipart, 400 when the body cannot be decoded.

    aiohttp keeps the parsed form on the request, so reading it again is free.
    """
    if request.content_type == MULTIPART:
        _refused(request, "multipart body")
        raise web.HTTPUnsupportedMediaType(text=MULTIPART_MESSAGE)
    try:
        return await request.post()
    except (ValueError, LookupError, web.RequestPayloadError) as err:
        _refused(request, f"malformed body ({type(err).__name__}: {err})")
        raise web.HTTPBadRequest(text=MALFORMED_MESSAGE) from err


async def text_fields(request: web.Request) -> dict[str, str]:
    """The form's text fields, read by :func:`read_form` (a file part is not a field a page sends).

    A name sent twice keeps its last value, as every page reads its fields one value each.
    """
    posted = await read_form(request)
    return {key: value for key, value in posted.items() if isinstance(value, str)}


def _refused(request: web.Request, why: str) -> None:
    _LOGGER.info(
        "Refused %s %s from %s: %s, %s",
        request.method,
        request.path,
        request.remote,
        request.content_type,
        why,
    )
