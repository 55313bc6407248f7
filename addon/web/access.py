"""Who may call us, and for what: Home Assistant ingress, or the direct port with a token.

Ingress traffic arrives from Supervisor's proxy (``settings.trusted_proxies``), which has already
authenticated the Home Assistant user; it may do everything. Anything else reached the add-on's
published port and must present ``Authorization: Bearer <token>``, where the token decides the
scope:

- ``api_token`` opens the *conversation* scope only: talking to the agent
  (:data:`CONVERSATION_PATHS`, the OpenAI façade under ``/v1``, the MCP server at ``/mcp``). It is
  the token users paste into MCP clients and scripts, so it must not administer anything.
- ``admin_token`` (off by default) opens everything, administration included: custom tools,
  secrets, MCP servers, memory edits, evaluation, the panel's pages.

An ``api_token`` on any other route is refused with 403 ``insufficient_scope``. The scope is
decided here, by path, once for every route; a new route is administration unless it is added to
the conversation list. With neither token configured the direct port is refused outright, so
publishing the port by mistake exposes nothing.

``/health`` is open to all because Supervisor's watchdog and Docker's HEALTHCHECK poll it without
credentials; it says only ``ok`` or ``down`` unless the caller came through ingress or with a
token (:data:`ACCESS` is set then).

The peer address (``request.remote``) decides, never ``X-Forwarded-For``: anyone can send that
header, while only Supervisor's proxy can connect from its address. Standalone, where any local
process can connect from a loopback address, the address is not enough: with
``settings.ingress_secret`` set (the demo sets it for the proxy it starts), a trusted peer must also
send it in ``X-Home-Agent-Ingress-Secret``, or it is one more caller on the direct port.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from aiohttp import web
from aiohttp.typedefs import Handler

from addon import keys
from addon.config.settings import INGRESS_SECRET_HEADER, Options, Settings
from addon.web.problems import RequestProblem, is_openai_path, openai_problem

_LOGGER = logging.getLogger(__name__)

Access = Literal["ingress", "admin_token", "api_token"]

# How this request was let in; set on every request, and on /health when the caller is known.
ACCESS: web.RequestKey[Access] = web.RequestKey("access")
# The URL prefix Home Assistant serves the UI under ("/api/hassio_ingress/<token>"), or "" on the
# direct port; every link the UI builds starts with it.
INGRESS_PATH: web.RequestKey[str] = web.RequestKey("ingress_path", str)

OPEN_PATHS = frozenset({"/health"})
CONVERSATION_PATHS = frozenset(
    {"/api/conversation", "/api/conversation/stream", "/api/openapi.json", "/mcp"}
)
"""What ``api_token`` opens besides the OpenAI façade: the agent, and the API's description."""
REALM = 'Bearer realm="Home Agent"'
# Supervisor sends "/api/hassio_ingress/<token>"; anything else is not put into pages.
_INGRESS_PATH = re.compile(r"^(/[A-Za-z0-9._~-]+)+$")


def in_conversation_scope(path: str) -> bool:
    """Whether ``api_token`` opens ``path``: the conversation API, the façade, the MCP server."""
    return path in CONVERSATION_PATHS or is_openai_path(path)


@web.middleware
async def access_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Let ingress and token holders through within their scope, tagging the request."""
    settings = request.config_dict[keys.SETTINGS]
    if request.path in OPEN_PATHS:
        # Open to all; who it is only decides how much /health tells.
        access = _identify(request, settings)
        if access is not None:
            request[ACCESS] = access
        return await handler(request)
    if is_ingress(request, settings):
        request[ACCESS] = "ingress"
        request[INGRESS_PATH] = _ingress_path(request)
        return await handler(request)
    options = settings.options
    if not (options.api_token.get_secret_value() or options.admin_token.get_secret_value()):
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
    access = _token_access(presented, options)
    if access is None:
        return _refuse(
            request,
            RequestProblem(
                401,
                "invalid_token",
                "The bearer token matches neither the add-on's api_token nor its admin_token.",
                headers={"WWW-Authenticate": f'{REALM}, error="invalid_token"'},
            ),
        )
    if access == "api_token" and not in_conversation_scope(request.path):
        return _refuse(
            request,
            RequestProblem(
                403,
                "insufficient_scope",
                "The api_token only opens the conversation API (/api/conversation, /v1, /mcp). "
                "Administration (tools, secrets, MCP servers, memories, evaluation, the panel) "
                "is done through the Home Assistant panel, or with the add-on's admin_token.",
                headers={"WWW-Authenticate": f'{REALM}, error="insufficient_scope"'},
            ),
        )
    request[ACCESS] = access
    request[INGRESS_PATH] = ""
    return await handler(request)


def _identify(request: web.Request, settings: Settings) -> Access | None:
    """How the caller would be let in, without refusing anyone (for open paths)."""
    if is_ingress(request, settings):
        return "ingress"
    presented = _bearer(request)
    return _token_access(presented, settings.options) if presented is not None else None


def is_ingress(request: web.Request, settings: Settings) -> bool:
    """Whether the request came through the ingress proxy: its address, and its secret if set.

    Under Supervisor no secret is set and the address decides, as Supervisor's proxy alone
    connects from it. The demo's proxy connects from 127.0.0.2, which any local process can
    bind, so there the proxy must also send the secret the demo gave both of them.
    """
    if not is_trusted(request.remote, settings.trusted_proxies):
        return False
    secret = settings.ingress_secret
    if secret is None:
        return True
    sent = request.headers.get(INGRESS_SECRET_HEADER, "")
    if _matches(sent, secret.get_secret_value()):
        return True
    _LOGGER.warning(
        "A request from the trusted proxy address %s without the ingress secret is not ingress",
        request.remote,
    )
    return False


def _token_access(presented: str, options: Options) -> Access | None:
    """Which configured token ``presented`` is, if any.

    Both are compared, in constant time, so the answer's timing reveals neither which token was
    tried nor how much of a guess was right. An empty (unset) token matches nothing.
    """
    admin = _matches(presented, options.admin_token.get_secret_value())
    api = _matches(presented, options.api_token.get_secret_value())
    if admin:
        return "admin_token"
    return "api_token" if api else None


def _matches(presented: str, token: str) -> bool:
    same = hmac.compare_digest(presented.encode(errors="surrogatepass"), token.encode())
    return same and bool(token)


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


@dataclass(frozen=True, slots=True)
class IngressIdentity:
    """The Home Assistant user ingress let in: their id and the name they are shown by."""

    user_id: str | None = None
    name: str | None = None


NO_IDENTITY = IngressIdentity()


def ingress_identity(request: web.Request) -> IngressIdentity:
    """Who ingress says is asking (``X-Remote-User-Id`` and a name), on ingress requests only.

    On the direct port anyone could send the headers, so a request there names no user: a
    person's rule applies only where ingress vouches for the person.
    """
    if request.get(ACCESS) != "ingress":
        return NO_IDENTITY
    user_id = request.headers.get("X-Remote-User-Id", "").strip()[:64] or None
    return IngressIdentity(user_id, ingress_user(request))


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
    # A missing token is usually a misconfigured client; a wrong one may be someone guessing, and
    # a conversation token on an administration route someone trying more than they were given.
    level = (
        logging.WARNING
        if problem.error in ("invalid_token", "insufficient_scope")
        else logging.INFO
    )
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
