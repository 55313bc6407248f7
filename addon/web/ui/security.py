"""CSRF protection and the security headers of every UI response.

CSRF uses a double-submit cookie: a random token is set as an ``HttpOnly``, ``SameSite=Strict``
cookie scoped to the UI's path (the ingress prefix, so it is only ever sent to this add-on) and
rendered into each form; a POST must carry the same value in its ``csrf_token`` field or
``X-CSRF-Token`` header. A page on another site can neither read the cookie nor make the browser
send it, so it cannot produce a matching pair. Requests a browser marks ``Sec-Fetch-Site:
cross-site`` are refused outright. Nothing is kept on the server, so a restart loses nothing.

The Content-Security-Policy allows scripts, styles and connections to this origin only, no inline
script or style (templates carry no ``style=`` attribute either), images from here or ``data:``,
and framing only by the same origin: Home Assistant's frontend, which shows ingress panels in an
iframe of its own origin.
"""

from __future__ import annotations

import hmac
import logging
import re
import secrets

from aiohttp import web
from aiohttp.typedefs import Handler

from addon.web.ui.forms import read_form
from addon.web.ui.urls import Urls

_LOGGER = logging.getLogger(__name__)

COOKIE_NAME = "home_agent_csrf"
FORM_FIELD = "csrf_token"
HEADER = "X-CSRF-Token"
# This request's token, and whether it was minted here (so the response must set the cookie).
CSRF_TOKEN: web.RequestKey[str] = web.RequestKey("ui_csrf_token", str)
CSRF_NEW: web.RequestKey[bool] = web.RequestKey("ui_csrf_new", bool)
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{43}")
_UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'self'",
    )
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    # The ingress path carries a session token of Home Assistant's; never send it elsewhere.
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "SAMEORIGIN",
    "Cross-Origin-Opener-Policy": "same-origin",
}


def is_ui_request(request: web.Request) -> bool:
    """Whether the request was routed to one of the UI's routes (all named ``ui.*``)."""
    name = request.match_info.route.name
    return name is not None and name.startswith("ui.")


def csrf_token(request: web.Request) -> str:
    """The token for this browser: the cookie's if it has a valid one, else a new one."""
    if CSRF_TOKEN in request:
        return request[CSRF_TOKEN]
    cookie = request.cookies.get(COOKIE_NAME, "")
    if _TOKEN_SHAPE.fullmatch(cookie):
        token = cookie
    else:
        token = secrets.token_urlsafe(32)
        request[CSRF_NEW] = True
    request[CSRF_TOKEN] = token
    return token


async def check_csrf(request: web.Request) -> None:
    """Refuse (403) an unsafe request whose token does not match the cookie."""
    if request.headers.get("Sec-Fetch-Site") == "cross-site":
        _LOGGER.warning("Refused a cross-site %s to %s", request.method, request.path)
        raise web.HTTPForbidden(text="Cross-site requests are not accepted.")
    cookie = request.cookies.get(COOKIE_NAME, "")
    sent = request.headers.get(HEADER)
    if sent is None and request.content_type in (
        "application/x-www-form-urlencoded",
        "multipart/form-data",
    ):
        form = await read_form(request)
        field = form.get(FORM_FIELD)
        sent = field if isinstance(field, str) else None
    if not (
        _TOKEN_SHAPE.fullmatch(cookie)
        and sent is not None
        and hmac.compare_digest(cookie.encode(), sent.encode(errors="surrogatepass"))
    ):
        _LOGGER.warning(
            "Refused %s %s from %s: missing or wrong CSRF token",
            request.method,
            request.path,
            request.remote,
        )
        raise web.HTTPForbidden(
            text="The form was stale or did not come from this page; reload it and try again."
        )


def set_csrf_cookie(request: web.Request, response: web.StreamResponse) -> None:
    """Set the cookie on a page whose request minted a new token."""
    if request.get(CSRF_NEW):
        response.set_cookie(
            COOKIE_NAME,
            request[CSRF_TOKEN],
            path=Urls.of(request).root,
            httponly=True,
            samesite="Strict",
        )
        request[CSRF_NEW] = False


async def on_response_prepare(request: web.Request, response: web.StreamResponse) -> None:
    """Give every UI response the security headers, and HTML pages ``no-store``.

    A signal rather than a middleware, so streamed responses (prepared inside the handler) and
    raised HTTP errors and redirects get them too.
    """
    if not is_ui_request(request):
        return
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    if response.content_type in ("text/html", "text/event-stream"):
        # Conversations are private; keep them out of shared and back-forward caches.
        response.headers.setdefault("Cache-Control", "no-store")


@web.middleware
async def csrf_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Check the token of every unsafe request to a UI route before its handler runs."""
    if is_ui_request(request) and request.method in _UNSAFE_METHODS:
        await check_csrf(request)
    return await handler(request)
