"""A dry-run turn through the app: the model's MCP call is held, and the trace says why."""

from __future__ import annotations

from sqlalchemy import select

from addon import keys
from addon.store.models import ToolCall
from addon.store.tools import mcp_servers as stored
from devtools.scripted_llm import ScriptedLLM
from tests.mcp_client.notes_server import TOKEN, notes_server
from tests.web.api.conftest import AppClient


async def test_a_dry_run_turn_holds_the_mcp_call_and_traces_the_gate(
    api: AppClient, scripted_llm: ScriptedLLM
) -> None:
    """``"dry_run": true`` on the API: the server never sees the call; the trace holds the hold."""
    async with notes_server() as notes:
        async with api.app[keys.STORE].sessionmaker.begin() as session:
            server = await stored.add_server(
                session,
                name="notes",
                url=notes.url,
                header_name="Authorization",
                header_value=f"Bearer {TOKEN}",
            )
            await stored.set_tool_enabled(session, server.id, "add_note", True)
        await api.app[keys.MCP_HUB].refresh(server.id)
        scripted_llm.tool_calls(("notes__add_note", {"text": "milk"})).reply("Noted.")
        response = await api.post(
            "/api/conversation", json={"text": "Remember milk", "dry_run": True}
        )
        body = await response.json()
        assert notes.notes == []
    await api.app[keys.STORE].writer.flush()
    async with api.app[keys.STORE].sessionmaker() as session:
        call = (
            await session.execute(select(ToolCall).where(ToolCall.turn_id == body["turn_id"]))
        ).scalar_one()
    assert call.result["dry_run"] is True
    assert call.result["gate"] == [
        {
            "verdict": "hold",
            "subject": "notes__add_note",
            "rule": "dry_run",
            "reason": "a dry run records it without sending it",
        }
    ]


async def test_a_dry_run_turn_runs_a_tool_its_server_labels_read_only(
    api: AppClient, scripted_llm: ScriptedLLM
) -> None:
    """list_notes is labelled read-only by its server: a dry-run turn reads the real notes."""
    async with notes_server() as notes:
        notes.notes.append("milk")
        async with api.app[keys.STORE].sessionmaker.begin() as session:
            server = await stored.add_server(
                session,
                name="notes",
                url=notes.url,
                header_name="Authorization",
                header_value=f"Bearer {TOKEN}",
            )
            await stored.set_tool_enabled(session, server.id, "list_notes", True)
        await api.app[keys.MCP_HUB].refresh(server.id)
        scripted_llm.tool_calls(("notes__list_notes", {})).reply("You have milk.")
        response = await api.post(
            "/api/conversation", json={"text": "What are my notes?", "dry_run": True}
        )
        body = await response.json()
    await api.app[keys.STORE].writer.flush()
    async with api.app[keys.STORE].sessionmaker() as session:
        call = (
            await session.execute(select(ToolCall).where(ToolCall.turn_id == body["turn_id"]))
        ).scalar_one()
    assert call.result["result"] == {"result": "milk"}
    assert "gate" not in call.result
