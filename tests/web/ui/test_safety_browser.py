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


async def test_an_entry_is_picked_edited_and_deleted(
    ingress_ui: UI, browsing: MakeBrowsing
) -> None:
    """An entry picked from the home's lists, then changed and deleted from its row.

    The actions come from the picked domain's buttons; each change is in the list of changes.
    """
    session = await browsing()
    page = await session.open("/safety")
    await page.get_by_label("Covers", exact=True).select_option("entity")
    target = page.get_by_label("Domain, device class or entity")
    await target.fill("cover.garage_door")
    choices = page.locator('.action-choices[data-domain="cover"]')
    await expect(choices).to_be_visible()
    await expect(page.locator('.action-choices[data-domain="lock"]')).to_be_hidden()
    await choices.get_by_role("button", name="open_cover", exact=True).click()
    await choices.get_by_role("button", name="toggle", exact=True).click()
    await expect(page.get_by_label("Actions (comma-separated)")).to_have_value("open_cover, toggle")
    await page.get_by_role("button", name="Add entry").click()
    row = page.locator('.policy-entry[data-target="cover.garage_door"]')
    await expect(row).to_contain_text("open_cover, toggle")
    await row.get_by_role("link", name="Edit cover.garage_door").click()
    await expect(page.get_by_label("Actions (comma-separated)")).to_have_value("open_cover, toggle")
    await page.get_by_label("Actions (comma-separated)").fill("open_cover")
    await page.get_by_role("button", name="Save entry").click()
    await expect(page.get_by_role("status").first).to_contain_text("Entry changed")
    await expect(row.locator("td.mono")).to_have_text("open_cover")
    await row.get_by_role("button", name="Delete cover.garage_door").click()
    await expect(page.get_by_role("status").first).to_contain_text("Entry deleted")
    await expect(row).to_have_count(0)
    changes = page.locator("ul.changes")
    await expect(changes).to_contain_text("added")
    await expect(changes).to_contain_text("edited")
    await expect(changes).to_contain_text("deleted")
    assert session.console_errors == []
    assert await session.csp_violations() == []
