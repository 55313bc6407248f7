"""Who may call us: Home Assistant ingress, or the direct port with the add-on's API token.

Ingress traffic arrives from Supervisor's proxy (``settings.trusted_proxies``), which has already
authenticated the Home Assistant user; anything else reached the add-on's published port and must
present ``Authorization: Bearer <api_token>``. With no token configured the direct port is refused
outright, so publishing the port by mistake exposes nothing. ``/health`` is open to all because
Supervisor's watchdog and Docker's HEALTHCHECK poll it without credentials.

The peer address (``request.remote``) decides, never ``X-Forwarded-For``: anyone can send that
header, while only Supervisor's proxy can connect from its address.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import re
from collections.abc import Iterable
from typing import Literal

from aiohttp import web
from aiohttp.typedefs import Handler

from addon import keys
from addon.web.api.problems import RequestProblem, is_openai_path, openai_problem

_LOGGER = logging.getLogger(__name__)

Access = Literal["ingress", "token"]

# How this request was let in; set on every request except /health.
ACCESS: web.RequestKey[Access] = web.RequestKey("access")
# The URL prefix Home Assistant serves the UI under ("/api/hassio_ingress/<token>"), or "" on the
# direct port; every link the UI builds starts with it.
INGRESS_PATH: web.RequestKey[str] = web.RequestKey("ingress_path", str)

OPEN_PATHS = frozenset({"/health"})
REALM = 'Bearer realm="Home Agent"'
# Supervisor sends "/api/hassio_ingress/<token>"; anything else is not put into pages.
_INGRESS_PATH = re.compile(r"^(/[A-Za-z0-9._~-]+)+$")


@web.middleware
async def access_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Let ingress and token holders through, tagging the request; refuse everyone else."""
    if request.path in OPEN_PATHS:
        return await handler(request)
    settings = request.config_dict[keys.SETTINGS]
    if is_trusted(request.remote, settings.trusted_proxies):
        request[ACCESS] = "ingress"
        request[INGRESS_PATH] = _ingress_path(request)
        return await handler(request)
    token = settings.options.api_token.get_secret_value()
    if not token:
        return _refuse(
            request,
            RequestProblem(
                403,
                "direct_access_disabled",
                "This port only answers Home Assistant ingress. Set the add-on's api_token "
                "option to call the API directly with 'Authorization: Bearer <token>'.",
            ),
        )
    presented = _bearer(request)
    if presented is None:
        return _refuse(
            request,
            RequestProblem(
                401,
                "unauthorized",
                "Send the add-on's api_token as 'Authorization: Bearer <token>'.",
                headers={"WWW-Authenticate": REALM},
            ),
        )
    # Constant-time, so the answer's timing does not reveal how much of a guess was right.
    if not hmac.compare_digest(presented.encode(errors="surrogatepass"), token.encode()):
        return _refuse(
            request,
            RequestProblem(
                401,
                "invalid_token",
                "The bearer token does not match the add-on's api_token.",
                headers={"WWW-Authenticate": f'{REALM}, error="invalid_token"'},
            ),
        )
    request[ACCESS] = "token"
    request[INGRESS_PATH] = ""
    return await handler(request)


USER_HEADERS = ("X-Remote-User-Display-Name", "X-Remote-User-Name")
"""Where Home Assistant's ingress proxy names the user it let in."""


def ingress_user(request: web.Request) -> str | None:
    """The Home Assistant user ingress names, believed on ingress requests only.

    On the direct port anyone could send the headers, so a tool version saved there has no author.
    """
    if request.get(ACCESS) != "ingress":
        return None
    for header in USER_HEADERS:
        value = request.headers.get(header, "").strip()
        if value:
            return value[:200]
    return None


def is_trusted(remote: str | None, trusted_proxies: Iterable[str]) -> bool:
    """Whether the peer is one of the ingress proxies.

    Compared as addresses, not strings, so a dual-stack listener's ``::ffff:172.30.32.2`` still
    matches ``172.30.32.2``; an unparsable entry matches nothing.
    """
    peer = _address(remote)
    return peer is not None and any(_address(entry) == peer for entry in trusted_proxies)


def _address(value: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    if not value:
        return None
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _bearer(request: web.Request) -> str | None:
    scheme, _, credentials = request.headers.get("Authorization", "").partition(" ")
    credentials = credentials.strip()
    return credentials if scheme.lower() == "bearer" and credentials else None


def _ingress_path(request: web.Request) -> str:
    value = request.headers.get("X-Ingress-Path", "").rstrip("/")
    if value and not _INGRESS_PATH.match(value):
        _LOGGER.warning(
            "Ignoring malformed X-Ingress-Path %r from %s on %s",
            value,
            request.remote,
            request.path,
        )
        return ""
    return value


def _refuse(request: web.Request, problem: RequestProblem) -> web.StreamResponse:
    """Log who was refused (never the token) and answer in the caller's error shape."""
    # A missing token is usually a misconfigured client; a wrong one may be someone guessing.
    level = logging.WARNING if problem.error == "invalid_token" else logging.INFO
    _LOGGER.log(
        level,
        "Refused %s %s from %s: %s",
        request.method,
        request.path,
        request.remote,
        problem.error,
    )
    if is_openai_path(request.path):
        return openai_problem(problem)
    raise problem
