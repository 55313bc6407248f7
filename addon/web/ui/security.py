"""CSRF protection and the security headers of every UI response.

CSRF uses a signed double-submit cookie. A token is a random nonce and its HMAC under a secret
key of this install (:data:`KEY_FILE` under the data directory, made at the first start, kept
across restarts, never shown); it is set as an ``HttpOnly``, ``SameSite=Strict`` cookie scoped to
the UI's path (the ingress prefix, so it is only ever sent to this add-on) and rendered into each
form. A POST must carry the same value in its ``csrf_token`` field or ``X-CSRF-Token`` header,
and that value must carry a valid signature. A page on another site can neither read the cookie
nor make the browser send it; and one that manages to plant a cookie of its own (a sibling host
writing cookies for the domain) still cannot make a pair that passes, because it cannot sign a
token without the key. Requests a browser marks ``Sec-Fetch-Site: cross-site`` are refused
outright. Nothing per browser is kept on the server, so a restart loses nothing.

The Content-Security-Policy allows scripts, styles and connections to this origin only, no inline
script or style (templates carry no ``style=`` attribute either), images from here or ``data:``,
and framing only by the same origin: Home Assistant's frontend, which shows ingress panels in an
iframe of its own origin.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import re
import secrets
from pathlib import Path

from aiohttp import web
from aiohttp.typedefs import Handler

from addon import keys
from addon.web.ui.forms import read_form
from addon.web.ui.urls import Urls

_LOGGER = logging.getLogger(__name__)

COOKIE_NAME = "home_agent_csrf"
FORM_FIELD = "csrf_token"
HEADER = "X-CSRF-Token"
# This request's token, and whether it was minted here (so the response must set the cookie).
CSRF_TOKEN: web.RequestKey[str] = web.RequestKey("ui_csrf_token", str)
CSRF_NEW: web.RequestKey[bool] = web.RequestKey("ui_csrf_new", bool)
KEY_FILE = "csrf.key"
KEY_BYTES = 32
# A nonce of 16 random bytes, a dot, the HMAC-SHA256 of the nonce; both URL-safe base64.
_TOKEN_SHAPE = re.compile(r"([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})")
# Domain separation: this key signs nothing else, but a MAC should say what it is for.
_PURPOSE = b"home-agent csrf v1\0"
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


def signed_token(key: bytes, nonce: str) -> str:
    """The token for ``nonce``: the nonce, a dot, its HMAC under ``key``."""
    mac = hmac.new(key, _PURPOSE + nonce.encode(), hashlib.sha256).digest()
    return f"{nonce}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"


def is_signed(key: bytes, token: str) -> bool:
    """Whether ``token`` has the shape of ours and was signed with ``key`` (constant time)."""
    shape = _TOKEN_SHAPE.fullmatch(token)
    return shape is not None and hmac.compare_digest(
        signed_token(key, shape.group(1)).encode(), token.encode()
    )


def csrf_token(request: web.Request) -> str:
    """The token for this browser: the cookie's if it is validly signed, else a new one."""
    if CSRF_TOKEN in request:
        return request[CSRF_TOKEN]
    key = request.app[keys.CSRF_KEY]
    cookie = request.cookies.get(COOKIE_NAME, "")
    if is_signed(key, cookie):
        token = cookie
    else:
        token = signed_token(key, secrets.token_urlsafe(16))
        request[CSRF_NEW] = True
    request[CSRF_TOKEN] = token
    return token


async def check_csrf(request: web.Request) -> None:
    """Refuse (403) an unsafe request whose token does not match the cookie or is not ours."""
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
        sent is not None
        and hmac.compare_digest(cookie.encode(), sent.encode(errors="surrogatepass"))
        and is_signed(request.app[keys.CSRF_KEY], cookie)
    ):
        _LOGGER.warning(
            "Refused %s %s from %s: missing, wrong or unsigned CSRF token",
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


def load_key(path: Path) -> bytes:
    """The key kept at ``path``, made (owner-readable only) when missing or too short.

    A data directory that cannot be written is no reason to refuse the panel: the key then lives
    in memory, and forms open before a restart ask to be reloaded after it.
    """
    try:
        key = path.read_bytes()
    except FileNotFoundError:
        key = b""
    except OSError as err:
        _LOGGER.warning("Cannot read the CSRF key %s (%s); using one for this run only", path, err)
        return secrets.token_bytes(KEY_BYTES)
    if len(key) >= KEY_BYTES:
        return key
    if key:
        _LOGGER.warning("The CSRF key %s is too short; making a new one", path)
    key = secrets.token_bytes(KEY_BYTES)
    partial = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(key)
            file.flush()
            os.fsync(file.fileno())
        os.replace(partial, path)
    except OSError as err:
        _LOGGER.warning(
            "Cannot keep the CSRF key at %s (%s); using it for this run only", path, err
        )
    return key
