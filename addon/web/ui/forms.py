"""Reading a UI form, where a body no browser would send is the sender's error (400), not ours.

aiohttp's ``request.post()`` raises whatever its parsers meet: ``ValueError`` for a multipart
body without its boundary or with parts it cannot split, ``UnicodeDecodeError`` for bytes that
are not the declared charset, ``LookupError`` for a charset Python does not know,
``RuntimeError`` for a part in an unknown encoding, ``RequestPayloadError`` for a body that is
not in the ``Content-Encoding`` it names. Each means the request is malformed, so
each is answered as such, once, here; the CSRF check and the chat views both read the form
through this.
"""

from __future__ import annotations

import logging

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from multidict import MultiDictProxy

_LOGGER = logging.getLogger(__name__)

Form = MultiDictProxy[str | bytes | bytearray | web.FileField]
MALFORMED_MESSAGE = (
    "The form could not be read: its body is malformed. Reload the page and try again."
)


async def read_form(request: web.Request) -> Form:
    """The request's form fields; 400 when the body cannot be parsed as the form it claims.

    aiohttp keeps the parsed form on the request, so reading it again is free. The UI's forms
    have no file fields, so an uploaded file is closed at once: aiohttp spools each one to a
    temporary file and leaves closing it to the application.
    """
    try:
        form = await request.post()
    except (
        ValueError,
        LookupError,
        RuntimeError,
        HttpProcessingError,
        web.RequestPayloadError,
    ) as err:
        _LOGGER.info(
            "Refused %s %s from %s: malformed %s body (%s: %s)",
            request.method,
            request.path,
            request.remote,
            request.content_type,
            type(err).__name__,
            err,
        )
        raise web.HTTPBadRequest(text=MALFORMED_MESSAGE) from err
    for value in form.values():
        if isinstance(value, web.FileField):
            value.file.close()
    return form
