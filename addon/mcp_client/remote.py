"""Talking to one MCP server with the official ``mcp`` client: list its tools, call one.

Each request opens its own connection (the client probes the server's protocol era, or does the
``initialize`` handshake, then asks): nothing is held open between turns, so a server that
restarts or moves is simply reached again, and no anyio task group outlives the call that
opened it. Every failure, an unreachable server, a refused token, a protocol error, a timeout,
becomes :class:`~addon.errors.McpError` with a message for people.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from addon.errors import McpError
from addon.home.actions.gate import UNLABELLED, ToolLabels
from addon.mcp_client.source import ServerSettings
from addon.text import JsonObject, JsonValue

if TYPE_CHECKING:
    import mcp_types as types
    from mcp import Client

_T = TypeVar("_T")

MAX_PAGES = 20
"""Pages of ``tools/list`` read at most: a server that pages forever cannot hold a refresh."""


@dataclass(frozen=True, slots=True)
class RemoteTool:
    """A tool as the server describes it."""

    name: str
    description: str
    parameters: JsonObject
    labels: ToolLabels = UNLABELLED
    """Its safety hints (``annotations``), a hint left out taking the specification's default."""


def labels_of(annotations: types.ToolAnnotations | None) -> ToolLabels:
    """A tool's ``ToolAnnotations`` hints as labels; each hint it leaves out, the spec's default."""
    if annotations is None:
        return UNLABELLED

    def hint(value: bool | None, default: bool) -> bool:
        return default if value is None else value

    return ToolLabels(
        read_only=hint(annotations.read_only_hint, UNLABELLED.read_only),
        destructive=hint(annotations.destructive_hint, UNLABELLED.destructive),
        idempotent=hint(annotations.idempotent_hint, UNLABELLED.idempotent),
        open_world=hint(annotations.open_world_hint, UNLABELLED.open_world),
    )


@dataclass(frozen=True, slots=True)
class RemoteCall:
    """What a ``tools/call`` answered."""

    content: JsonValue
    """What the server answered: its structured content, else its text."""
    error: str | None
    """The server's own error text when it flagged the result as an error."""
    duration_ms: float


class Connector:
    """Opens one connection per request to a server, with a deadline for the whole of it."""

    async def list_tools(self, server: ServerSettings, *, deadline_s: float) -> list[RemoteTool]:
        """The server's tools, every page; raises McpError."""

        async def ask(client: Client) -> list[RemoteTool]:
            tools: list[RemoteTool] = []
            cursor: str | None = None
            for _ in range(MAX_PAGES):
                page = await client.list_tools(cursor=cursor)
                tools.extend(
                    RemoteTool(
                        tool.name,
                        tool.description or "",
                        dict(tool.input_schema),
                        labels_of(tool.annotations),
                    )
                    for tool in page.tools
                )
                cursor = page.next_cursor
                if not cursor:
                    break
            return tools

        return await self._with_client(server, deadline_s, ask)

    async def call_tool(
        self,
        server: ServerSettings,
        name: str,
        arguments: Mapping[str, JsonValue],
        *,
        deadline_s: float,
    ) -> RemoteCall:
        """Call ``name`` with ``arguments``; raises McpError when the call did not happen."""
        started = time.perf_counter()

        async def ask(client: Client) -> types.CallToolResult:
            return await client.call_tool(name, dict(arguments))

        answer = await self._with_client(server, deadline_s, ask)
        text = _text(answer)
        return RemoteCall(
            content=answer.structured_content if answer.structured_content is not None else text,
            error=(text or "the tool reported an error") if answer.is_error else None,
            duration_ms=(time.perf_counter() - started) * 1000,
        )

    async def _with_client(
        self, server: ServerSettings, deadline_s: float, ask: Callable[[Client], Awaitable[_T]]
    ) -> _T:
        # The client stack (mcp, httpx2, anyio) is loaded with the first server's first request,
        # not with the add-on: most homes add no MCP server, and it costs tens of megabytes.
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        try:
            async with asyncio.timeout(deadline_s):
                http = create_mcp_http_client(
                    headers=dict(server.headers), timeout=httpx2.Timeout(deadline_s)
                )
                async with http:
                    transport = streamable_http_client(server.url, http_client=http)
                    async with Client(transport, cache=None) as client:
                        return await ask(client)
        except TimeoutError as err:
            raise McpError(f"{server.name}: no answer within {deadline_s:g} s") from err
        except Exception as err:  # the client's errors come wrapped in task groups
            raise McpError(f"{server.name}: {describe(err)}") from err


def describe(error: BaseException) -> str:
    """A person's reading of what went wrong, from inside anyio's exception groups."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(dict.fromkeys(describe(inner) for inner in error.exceptions))
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _text(result: types.CallToolResult) -> str:
    import mcp_types as types  # loaded by the request that answered; see _with_client

    parts = []
    for block in result.content:
        if isinstance(block, types.TextContent):
            parts.append(block.text)
        else:
            parts.append(f"[{block.type} content not shown]")
    return "\n".join(parts)
