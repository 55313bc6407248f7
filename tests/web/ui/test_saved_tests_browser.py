"""Save as test in real Chromium: from a chat turn's trace to a passing run of your tests."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import expect

from tests.web.ui.conftest import UI, MakeBrowsing

pytestmark = pytest.mark.browser


async def test_save_a_turn_as_a_test_then_run_it(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """Chat, open the trace, Save as test, save the draft, run your tests: it passes."""
    session = await browsing()
    page = await session.open("/chat")
    await page.get_by_label("Message").fill("turn off the kitchen lights")
    await page.get_by_role("button", name="Send").click()
    await page.get_by_role("link", name="Trace").last.click()
    await expect(page).to_have_url(re.compile(r"/conversations/"))
    await page.get_by_role("link", name="Save as test").last.click()
    await expect(page.get_by_label("Test (YAML, as a task of a task file)")).to_contain_text(
        "light.kitchen_lights"
    )
    await page.get_by_role("button", name="Save test").click()
    await expect(page.locator("#saved-test-list")).to_contain_text("turn off the kitchen lights")
    await page.get_by_label("Your tests, saved from conversations (1)").check()
    await page.get_by_role("button", name="Run").click()
    await expect(page.locator("#eval-status")).to_have_text("done")
    await expect(page.locator("#eval-accuracy")).to_contain_text("100.0 % (1/1)")
    assert session.console_errors == []
    assert await session.csp_violations() == []
