"""An MCP server's tools inside the app: offered to the scripted model, called, traced, stored."""

from __future__ import annotations

from sqlalchemy import select

from addon import keys
from addon.store.models import ToolCall
from addon.store.tools import mcp_servers as stored
from devtools.scripted_llm import ScriptedLLM
from tests.mcp_client.notes_server import TOKEN, notes_server
from tests.web.api.conftest import AppClient


async def _add(api: AppClient, url: str, *enabled: str) -> int:
    async with api.app[keys.STORE].sessionmaker.begin() as session:
        server = await stored.add_server(
            session,
            name="notes",
            url=url,
            header_name="Authorization",
            header_value=f"Bearer {TOKEN}",
        )
        for tool in enabled:
            await stored.set_tool_enabled(session, server.id, tool, True)
    await api.app[keys.MCP_HUB].refresh(server.id)
    return server.id


async def test_switched_on_tools_reach_the_model(api: AppClient, scripted_llm: ScriptedLLM) -> None:
    """The model's tool list holds the switched-on tool, namespaced, and no other of the server."""
    async with notes_server() as notes:
        await _add(api, notes.url, "add_note")
        scripted_llm.reply("Noted.")
        await api.post("/api/conversation", json={"text": "Remember milk"})
    names = [tool["function"]["name"] for tool in scripted_llm.chat_requests[0].tools]
    assert "notes__add_note" in names
    assert "notes__list_notes" not in names


async def test_a_call_is_traced_with_the_server_and_its_answer(
    api: AppClient, scripted_llm: ScriptedLLM
) -> None:
    """The model's call reaches the server; the stored tool call names the server, secret masked."""
    async with notes_server() as notes:
        await _add(api, notes.url, "add_note")
        scripted_llm.tool_calls(("notes__add_note", {"text": "milk"})).reply("Noted.")
        body = await (await api.post("/api/conversation", json={"text": "Remember milk"})).json()
        assert notes.notes == ["milk"]
    await api.app[keys.STORE].writer.flush()
    async with api.app[keys.STORE].sessionmaker() as session:
        call = (
            await session.execute(select(ToolCall).where(ToolCall.turn_id == body["turn_id"]))
        ).scalar_one()
    assert call.executor == "mcp"
    assert call.error is None
    assert call.result["result"] == {"saved": "milk", "count": 1}
    assert call.result["custom_tool"]["mcp_server"] == "notes"
    assert TOKEN not in str(call.result)
