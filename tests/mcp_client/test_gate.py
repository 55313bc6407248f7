"""The gate on MCP servers' tools: dry runs hold them unless read-only; changes are withheld."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from addon.mcp_client.hub import McpHub, schema_text
from addon.tools.base import ToolContext
from addon.tools.registry import ToolRegistry
from tests.mcp_client.notes_server import ADD_NOTE, TOKEN, NotesServer, notes_server
from tests.mcp_client.sources import Approved, Settings, Source

DRY_RUN = ToolContext(home=None, executor=None, language="en", now=datetime.now(UTC), dry_run=True)


@pytest.fixture
async def notes() -> AsyncIterator[NotesServer]:
    async with notes_server() as server:
        yield server


def settings(notes: NotesServer, *, read_only: bool = False) -> Settings:
    return Settings(
        1,
        "notes",
        notes.url,
        (("Authorization", f"Bearer {TOKEN}"),),
        frozenset({"add_note"}),
        frozenset({"add_note"}) if read_only else frozenset(),
    )


async def test_a_dry_run_holds_an_mcp_tool_not_marked_read_only(notes: NotesServer) -> None:
    """By default an MCP tool acts, so a dry run records the call and never sends it."""
    hub = McpHub(Source([settings(notes)]))
    await hub.refresh()
    registry = ToolRegistry(await hub.tools())
    outcome = await registry.execute("notes__add_note", '{"text": "buy milk"}', DRY_RUN)
    assert outcome.error is None
    assert outcome.result.content["dry_run"] is True
    assert notes.notes == []
    assert [(d.verdict, d.rule) for d in outcome.decisions] == [("hold", "dry_run")]


async def test_a_dry_run_runs_an_mcp_tool_marked_read_only(notes: NotesServer) -> None:
    """A tool the user marked read-only runs in a dry run too."""
    hub = McpHub(Source([settings(notes, read_only=True)]))
    await hub.refresh()
    registry = ToolRegistry(await hub.tools())
    outcome = await registry.execute("notes__add_note", '{"text": "buy milk"}', DRY_RUN)
    assert outcome.error is None
    assert notes.notes == ["buy milk"]


async def test_a_tool_whose_description_changed_is_withheld(notes: NotesServer) -> None:
    """A switched-on tool that no longer matches what the user approved is not offered."""
    server = settings(notes)
    parameters = '{"properties": {}}'
    server.approved_tools["add_note"] = Approved("Add a note.", parameters)
    hub = McpHub(Source([server]))
    await hub.refresh()
    assert await hub.tools() == []


async def test_a_tool_switched_on_before_its_listing_is_approved_as_first_listed(
    notes: NotesServer,
) -> None:
    """A tool never approved is approved as its first listing describes it, then offered."""
    server = settings(notes)
    hub = McpHub(Source([server]))
    await hub.refresh()
    approved = server.approved_tools["add_note"]
    assert approved.description == ADD_NOTE
    listed = {tool.name: tool for tool in hub.status(1).tools}["add_note"]
    assert approved.parameters == schema_text(listed.parameters)
    assert [tool.name for tool in await hub.tools()] == ["notes__add_note"]
