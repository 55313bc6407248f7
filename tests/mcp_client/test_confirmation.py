"""An MCP server's acting tool named by the Safety policy is held until the user says yes."""

from __future__ import annotations

from addon import keys
from addon.store.tools import mcp_servers as stored
from devtools.scripted_llm import ScriptedLLM
from tests.mcp_client.notes_server import TOKEN, notes_server
from tests.web.api.conftest import AppClient


async def test_an_acting_mcp_tool_in_the_policy_waits_for_yes(
    api: AppClient, scripted_llm: ScriptedLLM
) -> None:
    """The model's notes__add_note is held (the server sees nothing); the user's yes sends it."""
    await api.app[keys.CONFIRMATION_POLICY].add("domain", "mcp", ["notes__add_note"], "yes", None)
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
        scripted_llm.tool_calls(("notes__add_note", {"text": "milk"}))
        response = await api.post("/api/conversation", json={"text": "Remember milk"})
        held = await response.json()
        assert held["needs_confirmation"]["actions"][0]["action"] == "mcp.notes__add_note"
        assert notes.notes == []
        response = await api.post(
            "/api/conversation",
            json={"text": "yes", "conversation_id": held["conversation_id"]},
        )
        done = await response.json()
        assert done["reply"] == "Done."
        assert notes.notes == ["milk"]


async def test_a_tool_labelled_destructive_waits_for_yes_with_no_entry(
    api: AppClient, scripted_llm: ScriptedLLM
) -> None:
    """The server labels clear_notes destructive: held as a lock is, though no entry names it."""
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
            await stored.set_tool_enabled(session, server.id, "clear_notes", True)
        await api.app[keys.MCP_HUB].refresh(server.id)
        scripted_llm.tool_calls(("notes__clear_notes", {}))
        response = await api.post("/api/conversation", json={"text": "Clear my notes"})
        held = await response.json()
        assert held["needs_confirmation"]["actions"][0]["action"] == "mcp.notes__clear_notes"
        assert notes.notes == ["milk"]
        response = await api.post(
            "/api/conversation",
            json={"text": "yes", "conversation_id": held["conversation_id"]},
        )
        assert (await response.json())["reply"] == "Done."
        assert notes.notes == []
