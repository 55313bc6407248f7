"""The MCP servers page: add a server, see whether it answers and its tools, switch tools on.

Thin views over :mod:`addon.store.mcp_servers` and the MCP hub (``keys.MCP_HUB``), which lists
a server's tools and says whether it answered. Every change is a form POST answered with a
redirect, so it all works without script. A header's value is written here and never shown
again: it is kept as a secret.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from aiohttp import web

from addon import keys
from addon.errors import McpServerInvalid, NotFoundError
from addon.store import mcp_servers as stored
from addon.web.ui.templating import render
from addon.web.ui.urls import Urls

_LOGGER = logging.getLogger(__name__)

NOTICES = {
    "added": "Server added.",
    "refreshed": "Tools listed again.",
    "enabled": "Switched on: the model gets it from its next turn.",
    "disabled": "Switched off: the model no longer gets it.",
    "deleted": "Server removed.",
}


def add_mcp_pages(router: web.UrlDispatcher) -> None:
    """Mount the MCP servers page and its forms (routes named ``ui.*`` like the rest)."""
    server = "/mcp-servers/{server_id:\\d+}"
    router.add_get("/mcp-servers", mcp_servers_view, name="ui.mcp_servers")
    router.add_post("/mcp-servers", mcp_server_add_view, name="ui.mcp_server_add")
    router.add_post(server + "/tool", mcp_tool_switch_view, name="ui.mcp_tool_switch")
    router.add_post(server + "/refresh", mcp_refresh_view, name="ui.mcp_refresh")
    router.add_post(server + "/delete", mcp_server_delete_view, name="ui.mcp_server_delete")


async def mcp_servers_view(request: web.Request) -> web.Response:
    """Every server with its state and tools (schemas and switches), and the form to add one."""
    return await _page(request)


async def mcp_server_add_view(request: web.Request) -> web.Response:
    """Add a server (name, URL, optional bearer token or header), then list its tools."""
    form = await _form(request)
    token = form.get("token", "")
    header_name, header_value = form.get("header_name", ""), form.get("header_value", "")
    if token:
        header_name, header_value = stored.BEARER_HEADER, f"Bearer {token}"
    try:
        async with request.app[keys.STORE].sessionmaker.begin() as session:
            server = await stored.add_server(
                session,
                name=form.get("name", ""),
                url=form.get("url", ""),
                header_name=header_name or None,
                header_value=header_value or None,
            )
    except McpServerInvalid as err:
        return await _page(request, problem=str(err), form=form, status=422)
    _LOGGER.info("MCP server %s added from the panel (%s)", server.name, server.url)
    await request.app[keys.MCP_HUB].refresh(server.id)
    raise web.HTTPSeeOther(_url(request, "added"))


async def mcp_tool_switch_view(request: web.Request) -> web.Response:
    """Switch one of a server's tools on or off: ``tool=<name>&enabled=on|off``."""
    form = await _form(request)
    enabled = form.get("enabled") == "on"
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        await stored.set_tool_enabled(session, _id(request), form.get("tool", ""), enabled)
    raise web.HTTPSeeOther(_url(request, "enabled" if enabled else "disabled"))


async def mcp_refresh_view(request: web.Request) -> web.Response:
    """List the server's tools again now (also done every few minutes)."""
    await request.app[keys.MCP_HUB].refresh(_id(request))
    raise web.HTTPSeeOther(_url(request, "refreshed"))


async def mcp_server_delete_view(request: web.Request) -> web.Response:
    """Remove the server and its header's secret."""
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        await stored.delete_server(session, _id(request))
    await request.app[keys.MCP_HUB].refresh()
    raise web.HTTPSeeOther(_url(request, "deleted"))


async def _page(
    request: web.Request,
    *,
    problem: str = "",
    form: dict[str, str] | None = None,
    status: int = 200,
) -> web.Response:
    async with request.app[keys.STORE].sessionmaker() as session:
        servers = await stored.list_servers(session)
    hub = request.app[keys.MCP_HUB]
    rows: list[dict[str, Any]] = []
    for server in servers:
        state = hub.status(server.id)
        tools = [
            {
                "name": tool.name,
                "offered_as": hub.offered_name(server.name, tool.name),
                "description": tool.description,
                "schema": json.dumps(tool.parameters, indent=2, sort_keys=True),
                "enabled": tool.name in server.enabled_tools,
            }
            for tool in state.tools
        ]
        rows.append({"server": server, "state": state, "tools": tools})
    return render(
        request,
        "mcp_servers.html",
        {
            "rows": rows,
            "problem": problem,
            # A refused form comes back filled in, the URL's credentials masked like the list's.
            "form": {
                k: stored.shown_url(v) if k == "url" else v
                for k, v in (form or {}).items()
                if k in ("name", "url", "header_name")
            },
            "notice": NOTICES.get(request.query.get("done", ""), ""),
        },
        status=status,
    )


async def _form(request: web.Request) -> dict[str, str]:
    posted = await request.post()
    return {key: value for key, value in posted.items() if isinstance(value, str)}


def _id(request: web.Request) -> int:
    try:
        return int(request.match_info["server_id"])
    except ValueError:
        raise NotFoundError("no such MCP server") from None


def _url(request: web.Request, done: str) -> str:
    return Urls.of(request).page("ui.mcp_servers", {"done": done})
