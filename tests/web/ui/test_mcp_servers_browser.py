"""The MCP servers page in real Chromium: add a server, switch one of its tools on."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from addon import keys
from addon.store.tools import mcp_servers as stored
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


async def add_notes(ui: UI, url: str) -> None:
    """The notes server, added and listed, as the add form would."""
    async with ui.store.sessionmaker.begin() as db:
        server = await stored.add_server(
            db,
            name="notes",
            url=url,
            header_name="Authorization",
            header_value=f"Bearer {NOTES_TOKEN}",
        )
    await ui.client.app[keys.MCP_HUB].refresh(server.id)


async def test_a_switch_changes_its_row_in_place(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """Switching a tool on swaps in its row and the notice; the page is not loaded again."""
    async with notes_server() as notes:
        await add_notes(ingress_ui, notes.url)
        session = await browsing(viewport={"width": 390, "height": 500})
        page = await session.open("/mcp-servers")
        await page.evaluate("window.__samePage = true")
        tool = page.locator('.mcp-tool[data-tool="list_notes"]')
        await tool.scroll_into_view_if_needed()
        assert await page.evaluate("window.scrollY") > 0
        await tool.get_by_role("button", name="Switch on list_notes").click()
        switch_off = tool.get_by_role("button", name="Switch off list_notes")
        await expect(switch_off).to_be_focused()
        await expect(page.get_by_role("status").first).to_contain_text("Switched on")
        assert await page.evaluate("window.__samePage === true")
        # Not back at the top as a reload would be, where the tool is off screen.
        assert await page.evaluate("window.scrollY") > 0
        await tool.get_by_role("button", name="Mark read-only list_notes").click()
        await expect(tool.locator("[data-read-only]")).to_have_text("read-only")
        assert await page.evaluate("window.__samePage === true")
        assert session.console_errors == []
        assert await session.csp_violations() == []
    async with ingress_ui.store.sessionmaker() as db:
        (server,) = await stored.list_servers(db)
    assert (server.enabled_tools, server.read_only_tools) == ({"list_notes"}, {"list_notes"})


async def test_a_switch_works_without_script(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """With JavaScript off the switch is an ordinary form: posted, the page shows it on."""
    async with notes_server() as notes:
        await add_notes(ingress_ui, notes.url)
        session = await browsing(java_script_enabled=False)
        page = await session.open("/mcp-servers")
        tool = page.locator('.mcp-tool[data-tool="list_notes"]')
        await tool.get_by_role("button", name="Switch on list_notes").click()
        await expect(page.get_by_role("status").first).to_contain_text("Switched on")
        await expect(tool.get_by_role("button", name="Switch off list_notes")).to_be_visible()
    async with ingress_ui.store.sessionmaker() as db:
        (server,) = await stored.list_servers(db)
    assert server.enabled_tools == {"list_notes"}
