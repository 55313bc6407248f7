"""The MCP servers the user added: their addresses, headers and tool switches.

A header's value is a secret (``secrets`` table, named ``mcp_<server>``): write-only in the panel,
masked in traces like the custom tools' secrets. :class:`StoredMcpServers` is what the MCP hub
reads (it matches ``addon.mcp.source.ServerSource`` without importing it: the store imports
nothing above it), the only read that resolves the value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from addon.errors import McpServerInvalid
from addon.logs import header_secrets, remember_secrets, secret_forms, url_secrets
from addon.store.models import McpServer, Secret, utcnow
from addon.store.rows import record_of, stored_row
from addon.store.tools.changes import KeptRead, TableChanges
from addon.text import JsonValue

NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
HEADER = re.compile(r"^[A-Za-z0-9-]{1,64}$")
BEARER_HEADER = "Authorization"
_TABLES = ("mcp_servers", "secrets")
SHOWN_MASK = "••••••"


@dataclass(frozen=True, slots=True)
class StoredMcpServer:
    """One server as the panel shows it: never the header's value, its URL's credentials masked."""

    id: int
    name: str
    url: str
    header_name: str | None
    enabled_tools: frozenset[str]
    created_at: datetime
    read_only_tools: frozenset[str] = frozenset()
    approved_tools: Mapping[str, ApprovedTool] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ApprovedTool:
    """A tool's description and schema as the user approved them (switched on, or a change)."""

    description: str
    parameters: str
    """The JSON schema, keys sorted (so a reordering is no change)."""

    @classmethod
    def of(cls, description: str, parameters: Mapping[str, JsonValue]) -> ApprovedTool:
        """From what the server lists."""
        return cls(description, json.dumps(parameters, sort_keys=True, ensure_ascii=False))


@dataclass(frozen=True, slots=True)
class McpServerSettings:
    """One server as the hub connects to it, the header's value included."""

    id: int
    name: str
    url: str
    headers: tuple[tuple[str, str], ...]
    enabled_tools: frozenset[str]
    read_only_tools: frozenset[str] = frozenset()
    approved_tools: Mapping[str, ApprovedTool] = field(default_factory=dict)


def secret_name(server_name: str) -> str:
    """Where the header value of the server ``server_name`` is kept."""
    return f"mcp_{server_name}"


async def list_servers(session: AsyncSession) -> list[StoredMcpServer]:
    """Every server, by name."""
    rows = await session.scalars(select(McpServer).order_by(McpServer.name))
    return [_stored(row) for row in rows]


async def add_server(
    session: AsyncSession,
    *,
    name: str,
    url: str,
    header_name: str | None = None,
    header_value: str | None = None,
) -> StoredMcpServer:
    """Add a server with no tool switched on; a header value is kept as a secret.

    A bearer token is given as ``header_name="Authorization"`` and ``header_value="Bearer …"``.
    """
    name, url = name.strip(), url.strip()
    if not NAME.match(name):
        raise McpServerInvalid(
            "the name is 1 to 32 lowercase letters, digits and _ starting with a letter "
            "(it prefixes the server's tools)"
        )
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise McpServerInvalid("the URL is an http:// or https:// address, such as http://host/mcp")
    header_name = (header_name or "").strip() or None
    if header_value and header_name is None:
        header_name = BEARER_HEADER
    if header_name is not None and not HEADER.match(header_name):
        raise McpServerInvalid(f"{header_name!r} is not a header name")
    if header_name is not None and not header_value:
        raise McpServerInvalid(f"give the value of the {header_name} header")
    if await session.scalar(select(McpServer.id).where(McpServer.name == name)) is not None:
        raise McpServerInvalid(f"a server named {name!r} already exists")
    remember_secrets([*url_secrets(url), *header_secrets(header_value or "")])
    server = McpServer(
        name=name,
        url=url,
        header_name=header_name,
        secret_name=secret_name(name) if header_value else None,
        enabled_tools=[],
    )
    session.add(server)
    if header_value:
        secret = await session.get(Secret, secret_name(name))
        if secret is None:
            session.add(Secret(name=secret_name(name), value=header_value, updated_at=utcnow()))
        else:
            secret.value, secret.updated_at = header_value, utcnow()
    await session.flush()
    return _stored(server)


async def set_tool_enabled(
    session: AsyncSession,
    server_id: int,
    tool: str,
    enabled: bool,
    approved: ApprovedTool | None = None,
) -> StoredMcpServer:
    """Switch one of the server's tools (by the server's name for it) on or off.

    ``approved`` is the tool as the user saw it when switching it on; a tool switched on before
    its server listed it is approved as the next listing finds it.
    """
    server = await _server(session, server_id)
    server.enabled_tools = _marked(server.enabled_tools, tool, enabled)
    if enabled and approved is not None:
        _set_approved(server, tool, approved)
    return await _changed(session, server)


async def approve_tool(
    session: AsyncSession, server_id: int, tool: str, approved: ApprovedTool
) -> StoredMcpServer:
    """Approve the tool's description and schema as they are now (a change the user accepts)."""
    server = await _server(session, server_id)
    _set_approved(server, tool, approved)
    return await _changed(session, server)


async def set_tool_read_only(
    session: AsyncSession, server_id: int, tool: str, read_only: bool
) -> StoredMcpServer:
    """Mark one of the server's tools read-only (a dry run lets it run) or acting (held)."""
    server = await _server(session, server_id)
    server.read_only_tools = _marked(server.read_only_tools, tool, read_only)
    return await _changed(session, server)


def _marked(tools: Iterable[str], tool: str, marked: bool) -> list[str]:
    """The server's list of tools with ``tool`` in it (``marked``) or not, sorted as stored."""
    return sorted({*tools, tool} if marked else set(tools) - {tool})


async def _changed(session: AsyncSession, server: McpServer) -> StoredMcpServer:
    """The server as changed now: its time moved, the change flushed."""
    server.updated_at = utcnow()
    await session.flush()
    return _stored(server)


def _set_approved(server: McpServer, tool: str, approved: ApprovedTool) -> None:
    # A new mapping: SQLAlchemy sees a JSON column change only when the value is replaced.
    server.approved_tools = {
        **server.approved_tools,
        tool: {"description": approved.description, "parameters": approved.parameters},
    }


def _approved(value: object) -> dict[str, ApprovedTool]:
    if not isinstance(value, Mapping):
        return {}
    return {
        str(tool): ApprovedTool(str(entry.get("description", "")), str(entry.get("parameters")))
        for tool, entry in value.items()
        if isinstance(entry, Mapping)
    }


async def delete_server(session: AsyncSession, server_id: int) -> None:
    """Forget the server and its header's secret."""
    server = await _server(session, server_id)
    if server.secret_name is not None:
        secret = await session.get(Secret, server.secret_name)
        if secret is not None:
            await session.delete(secret)
    await session.delete(server)
    await session.flush()


class StoredMcpServers:
    """The servers the MCP hub connects to, read from the store each time it asks.

    Given the store's ``changes``, what was read is kept until a commit touches the servers or
    the secrets: the hub asks at every turn and every MCP call.
    """

    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        changes: TableChanges | None = None,
    ) -> None:
        self._sessionmaker = sessionmaker
        self._kept = KeptRead[tuple[McpServerSettings, ...]](changes, *_TABLES)

    async def servers(self) -> list[McpServerSettings]:
        """Every server with its headers, by name."""
        return list(await self._kept.read(self._read))

    async def _read(self) -> tuple[McpServerSettings, ...]:
        async with self._sessionmaker() as session:
            rows = (await session.scalars(select(McpServer).order_by(McpServer.name))).all()
            names = [row.secret_name for row in rows if row.secret_name is not None]
            secrets = {
                secret.name: secret.value
                for secret in await session.scalars(select(Secret).where(Secret.name.in_(names)))
            }
        settings = []
        for row in rows:
            value = secrets.get(row.secret_name) if row.secret_name is not None else None
            remember_secrets([*url_secrets(row.url), *header_secrets(value or "")])
            headers = ((row.header_name, value),) if row.header_name and value else ()
            settings.append(
                McpServerSettings(
                    row.id,
                    row.name,
                    row.url,
                    headers,
                    frozenset(row.enabled_tools),
                    frozenset(row.read_only_tools or ()),
                    _approved(row.approved_tools),
                )
            )
        return tuple(settings)

    async def approve(self, server_id: int, tool: str, description: str, parameters: str) -> None:
        """Approve a switched-on tool as first listed (it was switched on before a listing)."""
        async with self._sessionmaker.begin() as session:
            server = await session.get(McpServer, server_id)
            if server is not None and tool not in server.approved_tools:
                _set_approved(server, tool, ApprovedTool(description, parameters))


async def _server(session: AsyncSession, server_id: int) -> McpServer:
    return await stored_row(session, McpServer, server_id, f"no MCP server with id {server_id}")


def _stored(server: McpServer) -> StoredMcpServer:
    return record_of(
        StoredMcpServer,
        server,
        url=shown_url(server.url),
        enabled_tools=frozenset(server.enabled_tools),
        read_only_tools=frozenset(server.read_only_tools or ()),
        approved_tools=_approved(server.approved_tools),
    )


def shown_url(url: str) -> str:
    """``url`` with its credentials (userinfo, credential-like query values) masked."""
    for secret in sorted(url_secrets(url), key=len, reverse=True):
        for form in sorted(secret_forms(secret), key=len, reverse=True):
            url = url.replace(form, SHOWN_MASK)
    return url
