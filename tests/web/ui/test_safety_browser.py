"""The Safety page in real Chromium: entries added, picked from the home, edited and deleted."""

from __future__ import annotations

import pytest
from playwright.async_api import Locator, expect

from addon import keys
from tests.web.ui.conftest import UI, MakeBrowsing

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}


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


async def test_an_entry_is_picked_edited_and_deleted_on_a_phone(
    ingress_ui: UI, browsing: MakeBrowsing
) -> None:
    """At 390 px an entry is picked, changed and deleted, its row fitting its card.

    The domain comes from the home's domains, its actions from its buttons; each change is listed.
    """
    session = await browsing(viewport=PHONE)
    page = await session.open("/safety")
    target = page.get_by_label("Domain, device class or entity")
    await expect(target).to_have_attribute("list", "safety-targets-entity")
    await page.get_by_label("Covers", exact=True).select_option("domain")
    await expect(target).to_have_attribute("list", "safety-targets-domain")
    await expect(target).to_have_attribute("placeholder", "lock")
    suggested = page.locator("#safety-targets-domain option")
    await expect(suggested.and_(page.locator('[value="valve"]'))).to_have_count(1)
    await expect(suggested.and_(page.locator('[value="cover.garage_door"]'))).to_have_count(0)
    await target.fill("valve")
    choices = page.locator('.action-choices[data-domain="valve"]')
    await expect(choices).to_be_visible()
    await choices.get_by_role("button", name="open_valve", exact=True).click()
    await choices.get_by_role("button", name="toggle", exact=True).click()
    actions = page.get_by_label("Actions (comma-separated)")
    await expect(actions).to_have_value("open_valve, toggle")
    await page.get_by_role("button", name="Add entry").click()
    await expect(page.get_by_role("status").first).to_contain_text("Entry added")
    row = page.locator('.policy-entry[data-target="valve"]')
    await expect(row).to_contain_text("open_valve, toggle")
    assert await fits_its_card(row)
    await row.get_by_role("link", name="Edit valve").click()
    await expect(page.get_by_role("heading", name="Change entry")).to_be_visible()
    await expect(target).to_have_value("valve")
    await expect(target).to_have_attribute("list", "safety-targets-domain")
    await expect(actions).to_have_value("open_valve, toggle")
    await actions.fill("")
    await choices.get_by_role("button", name="open_valve", exact=True).click()
    await page.get_by_role("button", name="Save entry").click()
    await expect(page.get_by_role("status").first).to_contain_text("Entry changed")
    await expect(row.locator("td.mono")).to_have_text("open_valve")
    assert await fits_its_card(row)
    await row.get_by_role("button", name="Delete valve").click()
    await expect(page.get_by_role("status").first).to_contain_text("Entry deleted")
    await expect(row).to_have_count(0)
    changes = page.locator("ul.changes li")
    await expect(changes.filter(has_text="added: domain valve: open_valve, toggle")).to_have_count(
        1
    )
    await expect(changes.filter(has_text="edited: domain valve: open_valve;")).to_have_count(1)
    await expect(changes.filter(has_text="deleted: domain valve: open_valve;")).to_have_count(1)
    assert session.console_errors == []
    assert await session.csp_violations() == []


async def fits_its_card(row: Locator) -> bool:
    """Whether every cell of ``row`` lies inside the card around it (nothing cut off)."""
    return bool(
        await row.evaluate(
            """(row) => {
              const card = row.closest(".card").getBoundingClientRect();
              return [...row.cells].every((cell) => {
                const box = cell.getBoundingClientRect();
                return box.left >= card.left && box.right <= card.right;
              });
            }"""
        )
    )
