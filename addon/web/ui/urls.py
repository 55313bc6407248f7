"""Every URL the UI emits, built from the router and the ingress prefix of the request.

Behind Home Assistant's ingress the browser sees the UI under
``/api/hassio_ingress/<token>/`` while the add-on serves it at ``/``; Supervisor says which prefix
in the ``X-Ingress-Path`` header. Links are therefore never written by hand in templates: the
``url`` and ``static`` template globals (and views, for redirects) go through :class:`Urls`, so a
route can move and the prefix can change without a single broken link, and no ``sub_filter``
rewriting is needed.

The header is only believed on ingress requests: the access middleware stores the prefix under
:data:`addon.web.access.INGRESS_PATH` once it has checked the peer (and "" for token callers);
where it has not run, the peer is checked here the same way. A prefix is also checked for shape
here, so a header can at worst produce a wrong path, never markup or another origin.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping

from aiohttp import web
from yarl import URL

from addon import keys
from addon.web.access import INGRESS_PATH, is_ingress

_LOGGER = logging.getLogger(__name__)

INGRESS_HEADER = "X-Ingress-Path"
# Path segments of unreserved characters only: no "//" (another host), no quotes, no "..".
_PREFIX = re.compile(r"(/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*")

QueryValue = str | int | None
Query = Mapping[str, QueryValue]


def ingress_prefix(request: web.Request) -> str:
    """The path prefix the browser used for this request, without a trailing slash ("" if none)."""
    prefix = request.get(INGRESS_PATH)
    if prefix is None:
        if not is_ingress(request, request.config_dict[keys.SETTINGS]):
            return ""
        prefix = request.headers.get(INGRESS_HEADER, "")
    prefix = prefix.rstrip("/")
    if not _PREFIX.fullmatch(prefix) or "/../" in f"{prefix}/":
        _LOGGER.warning(
            "Ignoring malformed ingress prefix %r from %s", prefix[:200], request.remote
        )
        return ""
    return prefix


class Urls:
    """URLs for one request: routes by name, static files, and pages of Home Assistant itself."""

    def __init__(self, request: web.Request) -> None:
        self._router = request.app.router
        self.prefix = ingress_prefix(request)

    @classmethod
    def of(cls, request: web.Request) -> Urls:
        """The builder for ``request``, made once and kept on the request."""
        if URLS not in request:
            request[URLS] = cls(request)
        return request[URLS]

    @property
    def ingress(self) -> bool:
        """Whether the page is shown inside Home Assistant (so its own pages can be linked)."""
        return bool(self.prefix)

    @property
    def root(self) -> str:
        """The UI's root as the browser sees it; also the path of the UI's cookies."""
        return self.prefix + "/"

    def page(self, name: str, query: Query | None = None, fragment: str = "", **parts: str) -> str:
        """The URL of the named route (``ui.conversation`` with ``conversation_id=…``).

        Query values that are None or "" are left out, so a form's blank fields do not pile up
        in every link.
        """
        url = self._router[name].url_for(**parts)
        if query:
            kept = {key: str(value) for key, value in query.items() if value not in (None, "")}
            url = url.with_query(kept)
        if fragment:
            url = url.with_fragment(fragment)
        return self.prefix + str(url)

    def static(self, filename: str) -> str:
        """The URL of a file under ``webui/static``, versioned by content for caching."""
        resource = self._router["ui.static"]
        return self.prefix + str(resource.url_for(filename=filename))

    def home_assistant(self, path: str, query: Query | None = None) -> str | None:
        """A page of Home Assistant's own frontend, or None when not shown inside it.

        Ingress pages share Home Assistant's origin, so an absolute path reaches its frontend;
        the link must open in the top window (``target="_top"``), not in the ingress iframe.
        """
        if not self.ingress:
            return None
        url = URL.build(path=path)
        if query:
            url = url.with_query({k: str(v) for k, v in query.items() if v not in (None, "")})
        return str(url)


URLS: web.RequestKey[Urls] = web.RequestKey("ui_urls", Urls)
