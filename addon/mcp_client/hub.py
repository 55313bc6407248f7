"""The MCP servers the user added, watched: their tools, whether they answer, and the agent's share.

The hub lists every server's tools at start, every :data:`REFRESH_INTERVAL` seconds and when the
panel asks, and remembers what each answered. :meth:`McpHub.tools` is one of the agent's tool
providers: at every turn it reads the servers and their switches from the source and offers the
switched-on tools of the servers that answered last time, named ``<server>__<tool>``. A server that
did not answer is shown as down and its tools are withheld until it answers again; a call that
cannot reach its server marks it down at once. A switched-on tool whose description or schema
differs from what the user approved is withheld until the user approves the change.

The gate (:mod:`addon.home.actions.gate`) judges each call by what the user said of the tool and
what the server's labels (its ``ToolAnnotations``, the specification's defaults where it gives none)
say: in a dry run it holds every call but those of tools marked read-only by the user or labelled
read-only by the server; a tool labelled destructive (not read-only) is held for the user's "yes"
as a lock is, unless the user marked it read-only or switched off a Safety entry naming it. A label
never passes over an entry of the Safety policy: only the user's read-only mark does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from addon.custom_tools.secrets_mask import SecretMask
from addon.errors import McpError
from addon.home.actions.gate import Gate
from addon.mcp_client.remote import Connector, RemoteTool
from addon.mcp_client.source import ServerSettings, ServerSource
from addon.text import JsonObject, JsonValue
from addon.tools.base import Tool, ToolContext, ToolReply

_LOGGER = logging.getLogger(__name__)

REFRESH_INTERVAL = 300.0
"""Seconds between two listings of every server's tools."""
LIST_TIMEOUT = 10.0
"""Seconds a server has to list its tools before it counts as down."""
CALL_TIMEOUT = 30.0
"""Seconds a tool call may take, connection included, before the model is told it failed."""
MAX_NAME = 64
"""The longest function name OpenAI-compatible endpoints accept."""

State = Literal["unknown", "up", "down"]
NOT_SENT = "dry run: the call was recorded, not sent (mark the tool read-only to let it run)"


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class ServerStatus:
    """What the hub last learnt of one server."""

    state: State
    tools: tuple[RemoteTool, ...] = ()
    error: str | None = None
    checked_at: datetime | None = None


UNKNOWN = ServerStatus("unknown")


def tool_name(server: str, tool: str) -> str:
    """The name the model sees: ``<server>__<tool>``, in the characters function names allow."""
    return f"{server}__{re.sub(r'[^A-Za-z0-9_-]', '_', tool)}"[:MAX_NAME]


@dataclass(frozen=True, slots=True)
class McpTool:
    """One switched-on tool of a server, as the registry runs it."""

    server: ServerSettings
    remote: RemoteTool
    hub: McpHub
    name: str
    parameters: JsonObject
    read_only: bool = False
    """Marked read-only by the user: runs in a dry run and is never asked about."""

    @property
    def description(self) -> str:
        """The server's description of the tool."""
        return self.remote.description

    @property
    def kind(self) -> str:
        """Traces show ``mcp``; the MCP server does not pass these on."""
        return "mcp"

    async def call(self, arguments: JsonObject, context: ToolContext) -> ToolReply:
        """Call the tool on its server, unless the gate holds it (for confirmation, or a dry run).

        The server's labels count only where they are stricter than the user's word, or let a
        tool it labels read-only run in a dry run; an entry of the policy holds such a tool all
        the same.
        """
        gate = context.gate if context.gate is not None else Gate(context.dry_run)
        labels = self.remote.labels
        if not self.read_only:
            # An acting tool the Safety policy names (domain ``mcp``, action the tool's name),
            # or one its server labels destructive.
            confirm = gate.confirm(
                f"mcp.{self.name}",
                [],
                arguments,
                replay=lambda: self.hub.call(self.server, self.remote.name, arguments),
                labels=labels,
            )
            if not confirm.allowed:
                return ToolReply(result={"held_for_confirmation": True})
        acting = not (self.read_only or labels.read_only)
        if not gate.send(self.name, kind="mcp", declared=acting):
            return ToolReply(
                result={"success": True, "result": NOT_SENT, "dry_run": True},
                detail={
                    "mcp_server": self.server.name,
                    "tool": self.remote.name,
                    "arguments": dict(arguments),
                    "sent": False,
                },
            )
        return await self.hub.call(self.server, self.remote.name, arguments)


@dataclass(slots=True)
class McpHub:
    """Every server's last known tools and state; the agent's MCP tool provider."""

    source: ServerSource
    connector: Connector = field(default_factory=Connector)
    list_timeout: float = LIST_TIMEOUT
    call_timeout: float = CALL_TIMEOUT
    clock: Callable[[], datetime] = _utc_now
    _status: dict[int, ServerStatus] = field(init=False, default_factory=dict)

    @staticmethod
    def offered_name(server: str, tool: str) -> str:
        """The name the model sees for ``tool`` of ``server`` (for the panel)."""
        return tool_name(server, tool)

    def status(self, server_id: int) -> ServerStatus:
        """What the last listing of the server found (``unknown`` before the first)."""
        return self._status.get(server_id, UNKNOWN)

    async def refresh(self, server_id: int | None = None) -> None:
        """List the tools of one server, or of all of them at once; never raises."""
        servers = await self.source.servers()
        known = {server.id for server in servers}
        for stale in set(self._status) - known:
            del self._status[stale]
        chosen = [s for s in servers if server_id is None or s.id == server_id]
        await asyncio.gather(*(self._list(server) for server in chosen))

    async def refresh_periodically(
        self, stop: asyncio.Event, interval: float = REFRESH_INTERVAL
    ) -> None:
        """Refresh now and every ``interval`` seconds until ``stop`` is set.

        Stopping waits for the refresh under way rather than cancelling it: a store read
        cancelled half-way leaves its SQLite connection checked out until the garbage collector
        finds it, after the store has closed.
        """
        while not stop.is_set():
            try:
                await self.refresh()
            except Exception:  # the source failed (the store is away): try again next time
                _LOGGER.exception("Could not refresh the MCP servers' tools")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)

    async def tools(self) -> list[Tool]:
        """The switched-on tools of the servers that answered, sorted by name (a turn's share)."""
        tools: dict[str, Tool] = {}
        for server in await self.source.servers():
            status = self.status(server.id)
            if status.state != "up":
                continue
            for remote in status.tools:
                if remote.name not in server.enabled_tools or changed(server, remote):
                    continue
                name = tool_name(server.name, remote.name)
                if name in tools:
                    _LOGGER.warning("Two MCP tools are offered as %s; using one", name)
                    continue
                tools[name] = McpTool(
                    server,
                    remote,
                    self,
                    name,
                    _canonical(remote.parameters),
                    remote.name in server.read_only_tools,
                )
        return [tools[name] for name in sorted(tools)]

    async def call(
        self, server: ServerSettings, name: str, arguments: Mapping[str, JsonValue]
    ) -> ToolReply:
        """Call a tool; a server that cannot be reached is marked down (its tools withheld)."""
        mask = SecretMask.of_connection(server.url, (value for _header, value in server.headers))
        detail: JsonObject = {
            "mcp_server": server.name,
            "url": server.url,
            "tool": name,
            "arguments": dict(arguments),
        }
        try:
            call = await self.connector.call_tool(
                server, name, arguments, deadline_s=self.call_timeout
            )
        except McpError as err:
            message = mask.text(str(err))
            _LOGGER.warning("MCP tool %s of %s failed: %s", name, server.name, message)
            self._status[server.id] = ServerStatus(
                "down", self.status(server.id).tools, message, self.clock()
            )
            return ToolReply(
                result={"error": "McpError", "error_text": message},
                error=message,
                detail=mask.value({**detail, "error": message}),
            )
        # What the model reads: ``{"result": …}``, made here rather than by the connector.
        result: JsonObject = {"result": call.content}
        detail.update(response=result, duration_ms=round(call.duration_ms, 3))
        if call.error is not None:
            error = mask.text(call.error)
            return ToolReply(
                result={"error": "McpToolError", "error_text": error},
                error=error,
                detail=mask.value({**detail, "error": error}),
            )
        return ToolReply(result=mask.value(result), detail=mask.value(detail))

    async def _list(self, server: ServerSettings) -> None:
        try:
            tools = await self.connector.list_tools(server, deadline_s=self.list_timeout)
        except McpError as err:
            message = SecretMask.of_connection(
                server.url, (value for _header, value in server.headers)
            ).text(str(err))
            if self.status(server.id).state != "down":
                _LOGGER.warning("MCP server %s is down: %s", server.name, message)
            previous = self.status(server.id).tools
            self._status[server.id] = ServerStatus("down", previous, message, self.clock())
            return
        if self.status(server.id).state == "down":
            _LOGGER.info("MCP server %s answers again", server.name)
        for remote in tools:
            if remote.name not in server.enabled_tools:
                continue
            if remote.name not in server.approved_tools:
                # Switched on before it was ever listed: approved as it is first seen.
                await self.source.approve(
                    server.id, remote.name, remote.description, schema_text(remote.parameters)
                )
            elif changed(server, remote):
                _LOGGER.warning(
                    "MCP server %s changed the description or schema of %s; the tool is "
                    "withheld until the change is approved on the MCP servers page",
                    server.name,
                    remote.name,
                )
        self._status[server.id] = ServerStatus("up", tuple(tools), None, self.clock())


def schema_text(schema: Mapping[str, JsonValue]) -> str:
    """A schema as JSON with sorted keys: how an approved one is kept and compared."""
    return json.dumps(schema, sort_keys=True, ensure_ascii=False)


def changed(server: ServerSettings, remote: RemoteTool) -> bool:
    """Whether a switched-on tool no longer matches what the user approved.

    A tool never approved counts as changed: it is withheld until its first listing approves
    it (a tool switched on before it was listed) or the user does.
    """
    approved = server.approved_tools.get(remote.name)
    return approved is None or (
        approved.description != remote.description
        or approved.parameters != schema_text(remote.parameters)
    )


def _canonical(schema: Mapping[str, JsonValue]) -> JsonObject:
    """The schema with keys sorted, so the model's tool list keeps its bytes between turns."""
    loaded: JsonObject = json.loads(json.dumps(schema, sort_keys=True, ensure_ascii=False))
    return loaded
