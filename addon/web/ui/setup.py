"""Wiring of the UI into the app: templates, routes, static files, middlewares, headers.

Called once from :func:`addon.app.create_app`; does no I/O. Every route is named ``ui.*``: the
URL builder finds routes by name, and the UI's middlewares and headers apply to those names only,
leaving the JSON API and ``/health`` as they are.
"""

from __future__ import annotations

from aiohttp import web

from addon import keys
from addon.web.ui.automations import add_automation_pages
from addon.web.ui.chat import chat_send_view, chat_stream_view, chat_view
from addon.web.ui.conversations import conversation_view, conversations_view
from addon.web.ui.evaluate import add_evaluate_pages
from addon.web.ui.mcp_servers import add_mcp_pages
from addon.web.ui.memories import add_memory_pages
from addon.web.ui.model_check import add_model_check
from addon.web.ui.pages import dashboard_view, settings_view, ui_error_middleware
from addon.web.ui.safety import add_safety_pages
from addon.web.ui.saved_tests import add_saved_test_pages
from addon.web.ui.security import csrf_middleware, on_response_prepare
from addon.web.ui.templating import create_environment
from addon.web.ui.tools import add_tool_pages


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
    router.add_get("/", dashboard_view, name="ui.dashboard")
    router.add_get("/conversations", conversations_view, name="ui.conversations")
    router.add_get("/conversations/{conversation_id}", conversation_view, name="ui.conversation")
    router.add_get("/chat", chat_view, name="ui.chat")
    router.add_post("/chat", chat_send_view, name="ui.chat_send")
    router.add_post("/chat/stream", chat_stream_view, name="ui.chat_stream")
    router.add_get("/settings", settings_view, name="ui.settings")
    add_tool_pages(router)
    add_evaluate_pages(router)
    add_saved_test_pages(router)
    add_model_check(router)
    add_memory_pages(router)
    add_mcp_pages(router)
    add_automation_pages(router)
    add_safety_pages(router)
    router.add_static("/static", webui / "static", name="ui.static", append_version=True)
