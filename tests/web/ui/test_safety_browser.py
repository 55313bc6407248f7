"""The Safety page in real Chromium: add a policy entry for one entity."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from addon import keys
from tests.web.ui.conftest import UI, MakeBrowsing

pytestmark = pytest.mark.browser


async def test_add_an_entry_for_one_entity(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """An entry for the garage door, confirmed by yes, is added through the form and stored."""
    session = await browsing()
    page = await session.open("/safety")
    await page.get_by_label("Covers", exact=True).select_option("entity")
    await page.get_by_label("Domain, device class or entity").fill("cover.garage_door")
    await page.get_by_label("Actions (comma-separated)").fill("open_cover, toggle")
    await page.get_by_role("button", name="Add entry").click()
    await expect(page.get_by_role("status").first).to_contain_text("Entry added")
    row = page.locator('.policy-entry[data-target="cover.garage_door"]')
    await expect(row).to_contain_text("open_cover, toggle")
    await expect(row.get_by_role("button", name="Turn off cover.garage_door")).to_be_visible()
    assert await session.csp_violations() == []
    entries = ingress_ui.client.app[keys.CONFIRMATION_POLICY].entries
    added = next(entry for entry in entries if entry.target == "cover.garage_door")
    assert (added.scope, added.actions, added.method) == ("entity", ("open_cover", "toggle"), "yes")
