"""Where the HTTP API and the OpenAI façade are mounted; ``create_app`` calls this once."""

from __future__ import annotations

from aiohttp import web

from addon.web.api.conversation import conversation_stream_view, conversation_view
from addon.web.api.evaluations import add_evaluation_routes
from addon.web.api.openai_views import openai_app
from addon.web.api.openapi import openapi_view
from addon.web.api.tools import add_tool_routes
from addon.web.problems import OPENAI_PREFIX


def add_api_routes(app: web.Application) -> None:
    """Add ``/api/conversation``, its stream, custom tools, evaluations, OpenAPI, ``/v1``."""
    app.router.add_post("/api/conversation", conversation_view, name="api_conversation")
    app.router.add_post(
        "/api/conversation/stream", conversation_stream_view, name="api_conversation_stream"
    )
    add_tool_routes(app)
    add_evaluation_routes(app)
    app.router.add_get("/api/openapi.json", openapi_view, name="api_openapi")
    app.add_subapp(OPENAI_PREFIX, openai_app())
