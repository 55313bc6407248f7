"""Wiring of the UI into the app: templates, routes, static files, middlewares, headers.

Called once from :func:`addon.app.create_app`; does no I/O. Every route is named ``ui.*``: the
URL builder finds routes by name, and the UI's middlewares and headers apply to those names only,
leaving the JSON API and ``/health`` as they are.
"""

from __future__ import annotations

from aiohttp import web

from addon import keys
from addon.web.ui.pages import ui_error_middleware
from addon.web.ui.routes import UI_ROUTES
from addon.web.ui.security import csrf_middleware, on_response_prepare
from addon.web.ui.templating import create_environment


def setup_ui(app: web.Application) -> None:
    """Add the UI to ``app`` (before it starts); templates and assets come from webui_dir."""
    webui = app[keys.SETTINGS].webui_dir
    create_environment(app, webui / "templates")
    # Appended after the app's own middlewares (errors, access), so by the time these run the
    # request has passed the access check and its ingress prefix is known.
    app.middlewares.append(ui_error_middleware)
    app.middlewares.append(csrf_middleware)
    app.on_response_prepare.append(on_response_prepare)
    router = app.router
    router.add_routes(UI_ROUTES)
    router.add_static("/static", webui / "static", name="ui.static", append_version=True)
