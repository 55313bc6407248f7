"""The MCP servers page: add a server, see whether it answers and its tools, switch tools on.

Thin views over :mod:`addon.store.tools.mcp_servers` and the MCP hub (``keys.MCP_HUB``), which lists
a server's tools and says whether it answered. Every change is a form POST answered with a
redirect, so it all works without script. A header's value is written here and never shown
again: it is kept as a secret.
"""

from __future__ import annotations

import difflib
import json
import logging
from dataclasses import dataclass
from datetime import datetime

from aiohttp import web

from addon import keys
from addon.errors import McpServerInvalid, NotFoundError
from addon.store.tools import mcp_servers as stored
from addon.text import JsonObject
from addon.web.ui import notices
from addon.web.ui.forms import text_fields
from addon.web.ui.templating import render
from addon.web.ui.urls import Urls

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ListedTool:
    """One tool of a server as the page lists it: its switches, and its change if any."""

    name: str
    offered_as: str
    description: str
    schema: str
    """The tool's parameters as indented, key-sorted JSON."""
    enabled: bool
    read_only: bool
    change: str | None
    """Since the user approved it, as a unified diff; None when unchanged or not switched on."""


@dataclass(frozen=True, slots=True)
class ServerRow:
    """One server on the page: as stored, what its last listing found, and its tools."""

    server: stored.StoredMcpServer
    state: str
    """``up``, ``down`` or ``unknown`` (not listed yet)."""
    checked_at: datetime | None
    error: str | None
    tools: tuple[ListedTool, ...]


async def mcp_servers_view(request: web.Request) -> web.Response:
    """Every server with its state and tools (schemas and switches), and the form to add one."""
    return await _page(request)


async def mcp_server_add_view(request: web.Request) -> web.Response:
    """Add a server (name, URL, optional bearer token or header), then list its tools."""
    form = await text_fields(request)
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
    form = await text_fields(request)
    enabled = form.get("enabled") == "on"
    server_id, tool = _id(request), form.get("tool", "")
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        # Switching on approves the tool as the page showed it (its current listing).
        await stored.set_tool_enabled(
            session, server_id, tool, enabled, _listed(request, server_id, tool)
        )
    raise web.HTTPSeeOther(_url(request, "enabled" if enabled else "disabled"))


async def mcp_tool_read_only_view(request: web.Request) -> web.Response:
    """Mark a tool read-only (runs in a dry run) or acting: ``tool=<name>&read_only=on|off``."""
    form = await text_fields(request)
    read_only = form.get("read_only") == "on"
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        await stored.set_tool_read_only(session, _id(request), form.get("tool", ""), read_only)
    raise web.HTTPSeeOther(_url(request, "read_only" if read_only else "acting"))


async def mcp_tool_approve_view(request: web.Request) -> web.Response:
    """Approve a tool's changed description and schema as the server lists them now."""
    form = await text_fields(request)
    server_id, tool = _id(request), form.get("tool", "")
    listed = _listed(request, server_id, tool)
    if listed is None:
        raise NotFoundError(f"the server does not list a tool named {tool!r} now")
    async with request.app[keys.STORE].sessionmaker.begin() as session:
        await stored.approve_tool(session, server_id, tool, listed)
    _LOGGER.info("MCP tool %s of server %d approved as changed", tool, server_id)
    raise web.HTTPSeeOther(_url(request, "approved"))


def _listed(request: web.Request, server_id: int, tool: str) -> stored.ApprovedTool | None:
    """The tool as the server's last listing describes it, None when not listed."""
    for remote in request.app[keys.MCP_HUB].status(server_id).tools:
        if remote.name == tool:
            return stored.ApprovedTool.of(remote.description, remote.parameters)
    return None


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
    rows: list[ServerRow] = []
    for server in servers:
        state = hub.status(server.id)
        tools = tuple(
            ListedTool(
                name=tool.name,
                offered_as=hub.offered_name(server.name, tool.name),
                description=tool.description,
                schema=json.dumps(tool.parameters, indent=2, sort_keys=True),
                enabled=tool.name in server.enabled_tools,
                read_only=tool.name in server.read_only_tools,
                change=_change(server, tool.name, tool.description, tool.parameters),
            )
            for tool in state.tools
        )
        rows.append(ServerRow(server, state.state, state.checked_at, state.error, tools))
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
            "notice": notices.notice(request, notices.MCP_SERVERS),
        },
        status=status,
    )


def _change(
    server: stored.StoredMcpServer, tool: str, description: str, parameters: JsonObject
) -> str | None:
    """A switched-on tool's change since it was approved, as a unified diff (None: unchanged)."""
    approved = server.approved_tools.get(tool)
    if tool not in server.enabled_tools or approved is None:
        return None
    now = stored.ApprovedTool.of(description, parameters)
    if now == approved:
        return None
    before = _described(approved)
    after = _described(now)
    return "\n".join(
        difflib.unified_diff(before, after, "approved", "listed now", lineterm="", n=2)
    )


def _described(tool: stored.ApprovedTool) -> list[str]:
    schema = json.dumps(json.loads(tool.parameters), indent=2, sort_keys=True)
    return ["description:", *tool.description.splitlines(), "schema:", *schema.splitlines()]


def _id(request: web.Request) -> int:
    try:
        return int(request.match_info["server_id"])
    except ValueError:
        raise NotFoundError("no such MCP server") from None


def _url(request: web.Request, done: str) -> str:
    return Urls.of(request).page("ui.mcp_servers", {notices.DONE: done})
