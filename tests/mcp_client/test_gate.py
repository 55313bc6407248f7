"""The gate on MCP servers' tools: dry runs, changed tools, and the servers' safety labels.

A dry run holds a tool unless it is read-only; a changed tool is withheld; a tool labelled
destructive is held for confirmation, and one labelled read-only runs in a dry run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from addon.home.actions.confirmation import ConfirmationPolicy, Holds, PolicyEntry
from addon.home.actions.gate import UNLABELLED, ToolLabels
from addon.mcp_client.hub import McpHub, schema_text
from addon.tools.base import ToolContext
from addon.tools.registry import ToolOutcome, ToolRegistry
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


async def _run(
    notes: NotesServer,
    tool: str,
    *,
    dry_run: bool,
    entries: tuple[PolicyEntry, ...] = (),
    arguments: str = "{}",
) -> tuple[ToolOutcome, Holds]:
    """Call ``notes__<tool>`` (switched on, not marked read-only) in a turn with ``entries``."""
    server = Settings(
        1, "notes", notes.url, (("Authorization", f"Bearer {TOKEN}"),), frozenset({tool})
    )
    hub = McpHub(Source([server]))
    await hub.refresh()
    holds = Holds(ConfirmationPolicy.of(entries))
    context = dataclasses.replace(DRY_RUN, dry_run=dry_run, holds=holds)
    outcome = await ToolRegistry(await hub.tools()).execute(f"notes__{tool}", arguments, context)
    return outcome, holds


async def test_listing_reads_each_tools_labels(notes: NotesServer) -> None:
    """The listing keeps each tool's hints; a hint left out, or no annotations, is the default."""
    hub = McpHub(Source([settings(notes)]))
    await hub.refresh()
    labels = {tool.name: tool.labels for tool in hub.status(1).tools}
    assert labels["list_notes"] == ToolLabels(read_only=True, open_world=False)
    assert labels["add_note"] == ToolLabels(destructive=False, open_world=False)
    assert labels["clear_notes"] == ToolLabels(idempotent=True)
    assert labels["broken"] == UNLABELLED
    spec = ToolLabels(read_only=False, destructive=True, idempotent=False, open_world=True)
    assert spec == UNLABELLED


async def test_a_dry_run_runs_a_tool_the_server_labels_read_only(notes: NotesServer) -> None:
    """list_notes, labelled read-only and not marked by the user, answers for real in a dry run."""
    notes.notes.append("buy milk")
    outcome, holds = await _run(notes, "list_notes", dry_run=True)
    assert outcome.error is None
    assert outcome.result.content == {"result": {"result": "buy milk"}}
    assert outcome.decisions == ()
    assert holds.held == []


async def test_a_destructive_tool_is_held_for_confirmation(notes: NotesServer) -> None:
    """clear_notes, labelled destructive, is held for a yes though no entry names it."""
    notes.notes.append("buy milk")
    outcome, holds = await _run(notes, "clear_notes", dry_run=False)
    assert outcome.result.content["held_for_confirmation"] is True
    assert notes.notes == ["buy milk"]
    held = [(held.action, held.method) for held in holds.held]
    assert held == [("mcp.notes__clear_notes", "yes")]
    assert [(d.verdict, d.rule) for d in outcome.decisions] == [("confirm", "confirmation")]


async def test_an_unlabelled_tool_is_held_as_the_specification_says(notes: NotesServer) -> None:
    """The broken tool has no labels: by the defaults it may destroy, so it is held, not called."""
    outcome, holds = await _run(notes, "broken", dry_run=False)
    assert outcome.error is None
    assert outcome.result.content["held_for_confirmation"] is True
    assert [held.action for held in holds.held] == ["mcp.notes__broken"]


async def test_an_additive_tool_keeps_todays_rules(notes: NotesServer) -> None:
    """add_note (not destructive, not read-only) runs live unasked and is held in a dry run."""
    milk = '{"text": "milk"}'
    live, holds = await _run(notes, "add_note", dry_run=False, arguments=milk)
    assert live.result.content == {"result": {"saved": "milk", "count": 1}}
    assert holds.held == []
    dry, holds = await _run(notes, "add_note", dry_run=True, arguments=milk)
    assert [(d.verdict, d.rule) for d in dry.decisions] == [("hold", "dry_run")]
    assert holds.held == []
    assert notes.notes == ["milk"]


async def test_a_read_only_label_does_not_pass_over_a_policy_entry(notes: NotesServer) -> None:
    """An entry naming list_notes holds it although its server labels it read-only."""
    entry = PolicyEntry(1, "domain", "mcp", ("notes__list_notes",), "pin", pin_hash="x")
    outcome, holds = await _run(notes, "list_notes", dry_run=True, entries=(entry,))
    assert outcome.result.content["held_for_confirmation"] is True
    assert [held.method for held in holds.held] == ["pin"]


async def test_an_entry_switched_off_waives_the_destructive_label(notes: NotesServer) -> None:
    """The user switched off an entry naming clear_notes: it runs without asking."""
    notes.notes.append("buy milk")
    entry = PolicyEntry(1, "domain", "mcp", ("notes__clear_notes",), enabled=False)
    outcome, holds = await _run(notes, "clear_notes", dry_run=False, entries=(entry,))
    assert outcome.error is None
    assert notes.notes == []
    assert holds.held == []
