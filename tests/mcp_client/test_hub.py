"""The hub against a real MCP server built with the official package: list, call, go away."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from addon.mcp_client.hub import McpHub, tool_name
from addon.tools.base import ToolContext
from addon.tools.registry import ToolRegistry
from tests.mcp_client.notes_server import TOKEN, NotesServer, notes_server
from tests.mcp_client.sources import Settings, Source

CONTEXT = ToolContext(home=None, executor=None, language="en", now=datetime.now(UTC))


@pytest.fixture
async def notes() -> AsyncIterator[NotesServer]:
    async with notes_server() as server:
        yield server


def _settings(server: NotesServer, *enabled: str, token: str = TOKEN) -> Settings:
    headers = (("Authorization", f"Bearer {token}"),)
    return Settings(1, "notes", server.url, headers, frozenset(enabled))


async def test_listing_finds_the_tools_with_their_schemas(notes: NotesServer) -> None:
    """A refresh lists every tool of the server with its input schema; the server is up."""
    hub = McpHub(Source([_settings(notes)]))
    await hub.refresh()
    status = hub.status(1)
    assert status.state == "up"
    tools = {tool.name: tool for tool in status.tools}
    assert set(tools) == {"add_note", "list_notes", "clear_notes", "broken"}
    assert tools["add_note"].parameters["required"] == ["text"]


async def test_only_switched_on_tools_are_offered(notes: NotesServer) -> None:
    """The agent gets the enabled tools, namespaced by the server's name."""
    hub = McpHub(Source([_settings(notes, "add_note")]))
    await hub.refresh()
    assert [tool.name for tool in await hub.tools()] == ["notes__add_note"]


async def test_a_call_reaches_the_server_and_is_traced(notes: NotesServer) -> None:
    """The registry runs the tool on the server; the detail names server, tool and answer."""
    hub = McpHub(Source([_settings(notes, "add_note")]))
    await hub.refresh()
    registry = ToolRegistry(await hub.tools())
    outcome = await registry.execute("notes__add_note", '{"text": "buy milk"}', CONTEXT)
    assert outcome.error is None
    assert outcome.executor == "mcp"
    assert outcome.result.content == {"result": {"saved": "buy milk", "count": 1}}
    assert notes.notes == ["buy milk"]
    assert outcome.detail is not None
    assert outcome.detail["mcp_server"] == "notes"
    assert outcome.detail["tool"] == "add_note"


async def test_a_tool_error_reaches_the_model(notes: NotesServer) -> None:
    """A tool the server reports as failed is an error the model reads; the server stays up."""
    hub = McpHub(Source([_settings(notes, "broken")]))
    await hub.refresh()
    outcome = await ToolRegistry(await hub.tools()).execute("notes__broken", "{}", CONTEXT)
    assert outcome.error is not None
    assert "locked" in outcome.error
    assert hub.status(1).state == "up"


async def test_a_wrong_token_leaves_the_server_down(notes: NotesServer) -> None:
    """A refused header is a server that is down, with nothing offered."""
    hub = McpHub(Source([_settings(notes, "add_note", token="wrong")]))
    await hub.refresh()
    assert hub.status(1).state == "down"
    assert await hub.tools() == []


async def test_a_server_that_goes_away_is_withheld(notes: NotesServer) -> None:
    """A call to a stopped server fails for the model, marks it down and withholds its tools."""
    hub = McpHub(Source([_settings(notes, "add_note")]), call_timeout=5)
    await hub.refresh()
    registry = ToolRegistry(await hub.tools())
    await notes.stop()
    outcome = await registry.execute("notes__add_note", '{"text": "x"}', CONTEXT)
    assert outcome.result.content["error"] == "McpError"
    assert hub.status(1).state == "down"
    assert await hub.tools() == []
    await hub.refresh()
    assert hub.status(1).state == "down"


def test_tool_names_fit_function_names() -> None:
    """Characters a function name may not hold become _, and the name is cut to 64."""
    assert tool_name("cal", "events.list/v2") == "cal__events_list_v2"
    assert len(tool_name("server", "x" * 100)) == 64
