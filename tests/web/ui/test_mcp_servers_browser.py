"""The MCP servers page in real Chromium: add a server, switch one of its tools on."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from addon.store import mcp_servers as stored
from tests.mcp_client.notes_server import TOKEN as NOTES_TOKEN
from tests.mcp_client.notes_server import notes_server
from tests.web.ui.conftest import UI, MakeBrowsing

pytestmark = pytest.mark.browser


async def test_add_a_server_and_switch_a_tool_on(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """Added through the form, the server's tools show; one switched on is stored as on."""
    async with notes_server() as notes:
        session = await browsing()
        page = await session.open("/mcp-servers")
        await page.get_by_label("Name", exact=True).fill("notes")
        await page.get_by_label("URL", exact=True).fill(notes.url)
        await page.get_by_label("Bearer token (optional)").fill(NOTES_TOKEN)
        await page.get_by_role("button", name="Add server").click()
        await expect(page.get_by_role("status").first).to_contain_text("Server added.")
        tool = page.locator('.mcp-tool[data-tool="add_note"]')
        await expect(tool).to_contain_text("notes__add_note")
        await tool.get_by_role("button", name="Switch on add_note").click()
        await expect(page.get_by_role("status").first).to_contain_text("Switched on")
        await expect(
            page.locator('.mcp-tool[data-tool="add_note"]').get_by_role(
                "button", name="Switch off add_note"
            )
        ).to_be_visible()
        assert await session.csp_violations() == []
    async with ingress_ui.store.sessionmaker() as db:
        (server,) = await stored.list_servers(db)
    assert server.enabled_tools == {"add_note"}
