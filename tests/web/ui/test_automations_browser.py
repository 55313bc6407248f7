"""Approving a drafted automation from the Automations page, in Chromium, into a real HA.

The page on the newest release: Home Assistant's side of a draft (its configuration API, the
automation firing) runs on both in ``tests/agent/test_automation_drafts_real_ha.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import expect

from addon import keys
from addon.config.settings import Settings
from devtools.home_assistant import HomeAssistantProcess
from devtools.scripted_llm import ScriptedLLM
from tests.agent.test_agent_real_ha import wait_for_state
from tests.fixtures.app import MakeSettings
from tests.web.ui.conftest import UI, MakeBrowsing

pytestmark = [pytest.mark.browser, pytest.mark.homeassistant, pytest.mark.newest_ha_only]

PHONE = {"width": 390, "height": 844}
LIGHT = "light.kitchen_lights"
CONFIG: dict[str, Any] = {
    "alias": "Kitchen lights at seven",
    "description": "Every weekday at 7:00 it turns on the kitchen lights.",
    "triggers": [{"trigger": "time", "at": "07:00:00"}],
    "conditions": [{"condition": "time", "weekday": ["mon", "tue", "wed", "thu", "fri"]}],
    "actions": [{"action": "light.turn_on", "target": {"entity_id": LIGHT}}],
    "mode": "single",
}


@pytest.fixture
def automation_home(
    home_assistant_template: Path, ha_version: str, tmp_path: Path
) -> Iterator[HomeAssistantProcess]:
    """A demo home with automations and the config API."""
    process = HomeAssistantProcess.from_template(
        home_assistant_template, tmp_path / "home", version=ha_version, automations=True
    )
    process.start()
    yield process
    process.kill()


@pytest.fixture
def ui_settings(
    make_settings: MakeSettings, automation_home: HomeAssistantProcess, scripted_llm: ScriptedLLM
) -> Settings:
    """The add-on on the real home (the page's fixtures take these settings)."""
    return make_settings(
        ha_url=automation_home.url,
        ha_token=automation_home.token,
        llm_base_url=scripted_llm.base_url,
        llm_model="scripted-model",
        retention_days=0,
    )


async def test_a_draft_is_approved_from_the_page_on_a_phone(
    ingress_ui: UI, browsing: MakeBrowsing, automation_home: HomeAssistantProcess
) -> None:
    """At 390 px: Approve creates it in Home Assistant, Disable switches it off, Delete removes it.

    Once approved it is listed with its entity's last run (never, so far).
    """
    app = ingress_ui.client.app
    await app[keys.HOME_SYNC].wait_ready(20.0)
    draft = await app[keys.AUTOMATIONS].records.add(
        str(CONFIG["description"]),
        CONFIG,
        [LIGHT],
        covered=None,
        confirm_by="yes",
        conversation_id=None,
    )
    session = await browsing(viewport=PHONE)
    page = await session.open("/automations")
    card = page.locator(f'[data-draft="{draft.id}"]')
    await expect(card).to_contain_text("Every weekday at 7:00 it turns on the kitchen lights.")
    await expect(card).to_contain_text(LIGHT)
    await card.get_by_role("button", name=f"Approve draft {draft.id}").click()
    await expect(page.get_by_role("status").first).to_contain_text("Approved")
    approved = page.locator(f'[data-draft="{draft.id}"][data-state="approved"]')
    await expect(approved).to_contain_text("Approved by panel")
    assert await session.csp_violations() == []
    stored = await automation_home.request(
        "GET", f"/api/config/automation/config/home_agent_draft_{draft.id}"
    )
    assert stored["alias"] == "Kitchen lights at seven"
    assert stored["description"].startswith("Created by Home Agent")
    for _ in range(40):  # the home model learns of the new automation entity from its events
        await page.reload()
        if await approved.locator(".last-run").count():
            break
    await expect(approved.locator(".last-run")).to_have_text("never")
    await approved.get_by_role("button", name=f"Disable draft {draft.id}").click()
    await expect(page.get_by_role("status").first).to_contain_text("switched off")
    entity_id = await approved.locator(".automation-entity").inner_text()
    await wait_for_state(automation_home, entity_id, "off")
    await approved.get_by_role("button", name=f"Delete draft {draft.id}").click()
    await expect(page.get_by_role("status").first).to_contain_text("deleted")
    await expect(page.locator(f'[data-draft="{draft.id}"][data-state="deleted"]')).to_have_count(1)
    assert (await app[keys.AUTOMATIONS].records.get(draft.id)).state == "deleted"
