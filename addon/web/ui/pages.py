"""The dashboard and settings pages, and HTML error pages for the UI's routes."""

from __future__ import annotations

import logging
from datetime import datetime

from aiohttp import web
from aiohttp.typedefs import Handler

from addon.errors import NotFoundError
from addon.web.ui.dashboard import SPANS, load_dashboard
from addon.web.ui.security import is_ui_request
from addon.web.ui.settings_info import load_settings_info
from addon.web.ui.templating import home_timezone, render

_LOGGER = logging.getLogger(__name__)

STATIC_ROUTE = "ui.static"


async def dashboard_view(request: web.Request) -> web.Response:
    """Link status, today's activity, latency and token plots, recent failures and flags."""
    span = request.query.get("span", "day")
    if span not in SPANS:
        raise web.HTTPBadRequest(text=f"unknown span {span[:20]!r}; use 'day' or 'month'")
    tz = home_timezone(request)
    dashboard = await load_dashboard(request.app, tz, span)
    return render(request, "dashboard.html", {"dashboard": dashboard, "spans": list(SPANS)})


async def settings_view(request: web.Request) -> web.Response:
    """The effective configuration (secrets masked) and the entities the agent sees."""
    info = load_settings_info(request.app, datetime.now(home_timezone(request)))
    return render(request, "settings.html", {"info": info})


@web.middleware
async def ui_error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Show UI errors as pages in the UI's frame rather than as bare text or JSON.

    Redirects pass through; a missing record becomes a 404 page here, since the app-wide error
    middleware answers JSON for the API. So does a static file name the filesystem refuses to
    look up (longer than a name may be, say): aiohttp's static handler turns only a missing
    file into a 404 and lets such an ``OSError`` out as a 500.
    """
    if not is_ui_request(request):
        return await handler(request)
    try:
        return await handler(request)
    except NotFoundError as err:
        return _error_page(request, 404, "Not found", str(err))
    except OSError as err:
        if request.match_info.route.name != STATIC_ROUTE or isinstance(err, ConnectionError):
            raise
        _LOGGER.debug("Static file %r not looked up: %s", request.path[:200], err)
        return _error_page(request, 404, "Not found", "There is no such file.")
    except web.HTTPException as err:
        if err.status < 400:
            raise
        return _error_page(request, err.status, err.reason, err.text or "")


def _error_page(request: web.Request, status: int, title: str, message: str) -> web.Response:
    _LOGGER.info("UI %s %s answered %d: %s", request.method, request.path, status, message)
    return render(
        request,
        "error.html",
        {"status": status, "title": title, "message": message},
        status=status,
    )
