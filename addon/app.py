"""The composition root: builds the aiohttp app and wires every resource, doing no I/O itself.

Resources are ``cleanup_ctx`` generators, opened in the order they are added here and closed in
reverse, so each may rely on the ones before it. Each is written in the ``lifecycle.py`` of the
package it belongs to (docs/DECISIONS.md, "One composition root"); this module only orders them
and sets the plain values that need no start.
"""

from __future__ import annotations

from aiohttp import web

from addon import keys
from addon.agent.lifecycle import agent_ctx
from addon.config.settings import Settings
from addon.custom_tools.lifecycle import custom_tools_ctx, definition_check
from addon.embeddings.lifecycle import embeddings_ctx
from addon.eval.lifecycle import eval_ctx
from addon.ha.lifecycle import ha_link_ctx
from addon.health import HealthRegistry
from addon.llm.lifecycle import llm_ctx
from addon.local.library import SentenceLibrary
from addon.mcp_client.lifecycle import mcp_hub_ctx
from addon.memory.lifecycle import memory_ctx
from addon.store.lifecycle import retention_ctx, store_ctx
from addon.web.access import access_middleware
from addon.web.api.routes import add_api_routes
from addon.web.health import health_view
from addon.web.lifecycle import csrf_key_ctx, mcp_server_ctx
from addon.web.mcp.routes import McpServer, add_mcp_routes
from addon.web.middleware import error_middleware
from addon.web.ui.setup import setup_ui
from addon.wyoming.lifecycle import wyoming_ctx


def create_app(settings: Settings, *, sentences: SentenceLibrary | None = None) -> web.Application:
    """Build the application for ``settings``; nothing connects until it starts.

    ``sentences`` are parsed sentence sets to share with other apps in the same process (the
    test suite's, which would otherwise parse them again for every app); by default the app
    has its own, loaded on first use.
    """
    # Errors outermost, so a failure while checking access is still answered in JSON.
    app = web.Application(
        middlewares=[error_middleware, access_middleware], client_max_size=1024**2
    )
    app[keys.SETTINGS] = settings
    app[keys.HEALTH] = HealthRegistry()
    app[keys.SENTENCES] = sentences if sentences is not None else SentenceLibrary()
    # Custom tools are checked by the same parser the agent runs them with before they are stored.
    app[keys.CUSTOM_TOOL_VALIDATOR] = definition_check()

    # The store comes first: everything after it records into it.
    app.cleanup_ctx.append(store_ctx)
    # Pruning old conversations needs only the store.
    app.cleanup_ctx.append(retention_ctx)
    # The Home Assistant link connects in the background, so the app starts (and /health
    # answers) even while Home Assistant is down; what acts in the home comes after it.
    app.cleanup_ctx.append(ha_link_ctx)
    # The model endpoint is independent of Home Assistant; the agent needs both.
    app.cleanup_ctx.append(llm_ctx)
    # Memory recall and a large home's selection share one embedding source, which may be the
    # model endpoint's.
    app.cleanup_ctx.append(embeddings_ctx)
    # Memory keeps its rows in the store, learns through the model and recalls by the embeddings.
    app.cleanup_ctx.append(memory_ctx)
    # Custom tools act in the home through the Home Assistant link and read their definitions
    # from the store; closed after the agent, whose last turns may still run one.
    app.cleanup_ctx.append(custom_tools_ctx)
    # The MCP servers the user added are read from the store; their tools refresh in the background.
    app.cleanup_ctx.append(mcp_hub_ctx)
    # The agent uses all of the above.
    app.cleanup_ctx.append(agent_ctx)
    # Evaluation runs need only the store and the options; closed before the store, so a run
    # cut off by the shutdown is still marked interrupted.
    app.cleanup_ctx.append(eval_ctx)
    # The Wyoming server hands transcripts to the agent, so it listens only once that exists.
    app.cleanup_ctx.append(wyoming_ctx)
    # The MCP server's transport (started by the first /mcp request) hands them to the agent too;
    # only its route reaches it, so it is built here and the route holds it.
    mcp_server = McpServer()
    app.cleanup_ctx.append(mcp_server_ctx(mcp_server))
    # The key the panel's CSRF tokens are signed with: read from the data directory.
    app.cleanup_ctx.append(csrf_key_ctx)

    app.router.add_get("/health", health_view, name="health")
    add_api_routes(app)
    add_mcp_routes(app, mcp_server)
    setup_ui(app)
    return app
