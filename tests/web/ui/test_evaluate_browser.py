"""The Evaluate page in real Chromium: start a run, progress, results, a trace, compare, reload."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import expect

from devtools.scripted_llm import Completion, ScriptedLLM
from tests.eval.tasks import TASKS_YAML
from tests.web.ui.conftest import UI, MakeBrowsing

pytestmark = pytest.mark.browser
SCREENSHOTS = Path("/tmp/home-agent-evaluate-screenshots")


@pytest.fixture(scope="module", autouse=True)
def screenshot_dir() -> None:
    """Where the tests leave screenshots for a person to look at."""
    SCREENSHOTS.mkdir(exist_ok=True)


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


async def test_a_bad_task_file_lists_every_problem_with_its_line(
    ingress_ui: UI, browsing: MakeBrowsing
) -> None:
    """A misspelt key and an unknown entity are shown together, each with its line."""
    bad = TASKS_YAML.replace('{switch.kettle: {state: "on"}}', '{switch.nope: {state: "on"}}')
    session = await browsing()
    page = await session.open("/evaluate")
    await page.get_by_label("A task file (paste it, or choose a file)").check()
    await page.get_by_label("Task file (YAML)").fill(bad + "  - sentense: typo\n")
    await page.get_by_role("button", name="Run").click()
    problems = page.locator("#eval-problems li[data-line]")
    await expect(problems.filter(has_text="tasks[1].expect.switch.nope")).to_contain_text("line ")
    await expect(problems.filter(has_text="tasks[3].sentense")).to_contain_text("line ")
    await page.screenshot(path=SCREENSHOTS / "evaluate-problems-1280.png", full_page=True)
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.screenshot(path=SCREENSHOTS / "evaluate-problems-390.png", full_page=True)
