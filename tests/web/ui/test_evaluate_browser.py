"""The Evaluate page in real Chromium: start a run, progress, results, a trace, compare, reload."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import expect

from devtools.scripted_llm import Completion, ScriptedLLM
from tests.eval.tasks import TASKS_YAML
from tests.web.ui.conftest import UI, MakeBrowsing

pytestmark = pytest.mark.browser


async def test_run_compare_and_reload(
    ingress_ui: UI, browsing: MakeBrowsing, scripted_llm: ScriptedLLM
) -> None:
    """Two runs from the form; the bar fills, results link to traces, compare, reload keeps."""
    scripted_llm.default = Completion("I did nothing.")
    session = await browsing()
    page = await session.open("/evaluate")
    await page.get_by_label("A task file (paste it, or choose a file)").check()
    await page.get_by_label("Task file (YAML)").fill(TASKS_YAML)
    await page.get_by_role("button", name="Run").click()
    await expect(page).to_have_url(re.compile(r"/evaluate/runs/\d+$"))
    await expect(page.locator("#eval-progress")).to_have_attribute("value", "100")
    await expect(page.locator("#eval-status")).to_have_text("done")
    await expect(page.locator("tr.eval-result.pass")).to_have_count(3)
    await expect(page.locator("#eval-accuracy")).to_contain_text("100.0 % (3/3)")
    first_run = page.url

    await page.reload()
    await expect(page.locator("tr.eval-result.pass")).to_have_count(3)

    await page.locator("a.trace-link").first.click()
    await expect(page.locator("body")).to_contain_text("turn on the kitchen ceiling light")

    await page.goto(session.proxy.url("/evaluate"))
    await page.get_by_label("A task file (paste it, or choose a file)").check()
    await page.get_by_label("Task file (YAML)").fill(TASKS_YAML)
    await page.get_by_label("Local first: Home Assistant's sentences before the model").uncheck()
    await page.get_by_role("button", name="Run").click()
    await expect(page.locator("#eval-status")).to_have_text("done")
    await expect(page.locator("tr.eval-result.fail")).to_have_count(3)

    await page.get_by_role("link", name="All runs").click()
    await page.get_by_role("button", name="Compare A and B").click()
    await expect(page.locator("#compare-tasks tr.differs")).to_have_count(3)
    await expect(page.locator("#compare-totals")).to_contain_text("model only")
    await page.goto(first_run)
    await expect(page.locator("tr.eval-result.pass")).to_have_count(3)
    assert session.console_errors == []
    assert await session.csp_violations() == []
