"""The Custom tools page in real Chromium: the editor, try it, the trace, versions, import."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from playwright.async_api import Page, expect

from addon.store.tools import custom_tools as stored
from addon.store.tools import stored_secrets
from devtools.scripted_llm import ScriptedLLM
from tests.web.ui.conftest import UI, MakeBrowsing
from tests.web.ui.test_tools import IMPORT_YAML, SECRET, echo_server, echo_source

pytestmark = pytest.mark.browser
SCREENSHOTS = Path("/tmp/home-agent-tools-screenshots")


@pytest.fixture(scope="module", autouse=True)
def screenshot_dir() -> None:
    """Where the layout test leaves its screenshots for a person to look at."""
    SCREENSHOTS.mkdir(exist_ok=True)


__all__ = ["echo_server"]


async def set_editor(page: Page, text: str) -> None:
    """Replace the definition in the highlighting editor (what typing into it would do)."""
    await page.evaluate(
        "(text) => document.querySelector('.CodeMirror').CodeMirror.setValue(text)", text
    )


async def save_tool(ui: UI, source: str) -> int:
    async with ui.store.sessionmaker.begin() as session:
        tool = await stored.save_tool(session, yaml.safe_load(source))
    return tool.id


async def test_create_shows_problem_inline_then_tries(
    ingress_ui: UI, browsing: MakeBrowsing, echo_server: Any
) -> None:
    """A wrong URL is shown under its line in the editor; fixed, the tool saves and runs."""
    session = await browsing()
    page = await session.open("/tools")
    await page.get_by_label("Name").fill("api_key")
    await page.get_by_label("Value").fill(SECRET)
    await page.get_by_role("button", name="Set secret").click()
    await expect(page.locator("#secret-list")).to_contain_text("api_key")
    await page.get_by_role("link", name="New tool").click()
    await expect(page.locator(".CodeMirror")).to_be_visible()
    good = echo_source(echo_server)
    await set_editor(page, good.replace("http://", "ftp://"))
    await page.get_by_role("button", name="Create").click()
    widget = page.locator(".cm-problem-widget")
    await expect(widget).to_contain_text("the URL must start with http")
    line = page.locator(".CodeMirror-code > div").filter(has=widget)
    await expect(line.locator(".CodeMirror-line")).to_contain_text("url:")
    await page.screenshot(path=SCREENSHOTS / "problem.png", full_page=True)
    await set_editor(page, good)
    await page.get_by_role("button", name="Create").click()
    await expect(page.get_by_role("status").first).to_contain_text("Tool created.")
    await page.get_by_label("city (required)").fill("Lisbon")
    await page.get_by_role("button", name="Run").click()
    await expect(page.locator("#try-model-result")).to_contain_text('"result": "Lisbon"')
    await expect(page.locator("#try-request")).to_contain_text("/echo/Lisbon")
    await expect(page.locator("#try-response-body")).to_contain_text('"city": "Lisbon"')
    await expect(page.locator("#try-request")).to_contain_text("Bearer ••••••")
    assert SECRET not in await page.content()
    # The refused save answers 422, which Chromium reports as a failed load; nothing else.
    assert [e for e in session.console_errors if "status of 422" not in e] == []
    assert await session.csp_violations() == []


async def test_model_calls_the_tool_and_the_trace_shows_it(
    ingress_ui: UI, browsing: MakeBrowsing, echo_server: Any, scripted_llm: ScriptedLLM
) -> None:
    """Chatting, the scripted model calls the custom tool; the turn's trace lists the call."""
    await save_tool(ingress_ui, echo_source(echo_server).replace("{{ secrets.api_key }}", "x"))
    scripted_llm.tool_calls(("echo_city", {"city": "Berlin"}))
    scripted_llm.reply("The endpoint said Berlin.")
    session = await browsing()
    page = await session.open("/chat")
    await page.get_by_label("Message").fill("which city does the echo say")
    await page.get_by_role("button", name="Send").click()
    await expect(page.locator(".message.agent .bubble").last).to_have_text(
        "The endpoint said Berlin."
    )
    await page.locator(".message.agent").last.get_by_role("link", name="Trace").click()
    tool = page.locator(".turn:target .step.tool")
    await expect(tool).to_contain_text("echo_city")
    await tool.get_by_text("Result", exact=True).click()
    await expect(tool).to_contain_text('"result": "Berlin"')
    offered = [t["function"]["name"] for t in scripted_llm.chat_requests[0].tools]
    assert "echo_city" in offered


async def test_restore_an_older_version(
    ingress_ui: UI, browsing: MakeBrowsing, echo_server: Any
) -> None:
    """Restoring version 1 from the history makes its definition current as version 3."""
    source = echo_source(echo_server)
    tool_id = await save_tool(ingress_ui, source)
    async with ingress_ui.store.sessionmaker.begin() as session:
        await stored.save_tool(
            session, yaml.safe_load(source.replace("timeout: 5", "timeout: 30")), tool_id=tool_id
        )
    session_ = await browsing()
    page = await session_.open(f"/tools/{tool_id}")
    await expect(page.locator(".CodeMirror")).to_contain_text("timeout: 30")
    await page.get_by_role("button", name="Compare").click()
    await expect(page.locator("#diff")).to_contain_text("+timeout: 30")
    await page.get_by_role("link", name="Back to the tool").click()
    await page.get_by_role("button", name="Restore version 1").click()
    await expect(page.get_by_role("status").first).to_contain_text("Restored as a new version.")
    await expect(page.locator(".CodeMirror")).to_contain_text("timeout: 5")
    await expect(page.locator("#version-list tbody tr")).to_have_count(3)
    await expect(page.locator("#version-list")).to_contain_text("restored version 1")


async def test_import_yaml(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """Pasted Extended OpenAI YAML imports the template tool and lists sqlite as refused."""
    session = await browsing()
    page = await session.open("/tools")
    await page.get_by_label("Functions YAML").fill(IMPORT_YAML)
    await page.get_by_role("button", name="Import").click()
    await expect(page.locator("#imported")).to_contain_text("outside_temperature")
    await expect(page.locator("#refused")).to_contain_text("query_db")
    await expect(page.locator("#refused")).to_contain_text("raw SQL")
    await page.get_by_role("link", name="outside_temperature").click()
    await expect(page.locator("h1")).to_have_text("outside_temperature")


async def test_editor_works_without_script(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """With JavaScript off the editor is a plain textarea and problems list their lines."""
    session = await browsing(java_script_enabled=False)
    page = await session.open("/tools/new")
    await page.get_by_label("Whole definition").fill("name: x\ndescription: y\nkind: nope\n")
    await page.get_by_role("button", name="Create").click()
    await expect(page.locator("#problems")).to_contain_text("line 3")


@pytest.mark.parametrize("width", [1280, 390])
async def test_tool_pages_fit_the_screen(
    ingress_ui: UI, browsing: MakeBrowsing, echo_server: Any, width: int
) -> None:
    """The list and the editor need no sideways scrolling; screenshots are kept for a look."""
    tool_id = await save_tool(ingress_ui, echo_source(echo_server))
    async with ingress_ui.store.sessionmaker.begin() as session:
        await stored_secrets.set_secret(session, "api_key", "never-shown-secret")
    session = await browsing(viewport={"width": width, "height": 900}, is_mobile=width < 500)
    page = await session.open("/tools")
    for name, path in (("list", "/tools"), ("edit", f"/tools/{tool_id}")):
        await page.goto(session.proxy.url(path))
        await page.wait_for_load_state("load")
        assert await page.evaluate("document.documentElement.scrollWidth") <= width, path
        await page.screenshot(path=SCREENSHOTS / f"{name}-{width}.png", full_page=True)
    assert re.search("never-shown-secret", await page.content()) is None
    assert session.console_errors == []
    assert await session.csp_violations() == []


async def test_every_problem_shows_at_its_own_line(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """A bad name, schema and URL are shown together, each under the line of its field."""
    session = await browsing()
    page = await session.open("/tools/new")
    await expect(page.locator(".CodeMirror")).to_be_visible()
    await set_editor(
        page,
        "name: bad tool\ndescription: x\nparameters:\n  type: object\n"
        "  properties: {city: {type: town}}\nkind: rest\nrest:\n  url: ftp://x\n",
    )
    await page.get_by_role("button", name="Create").click()
    widgets = page.locator(".cm-problem-widget")
    await expect(widgets).to_have_count(3)
    for key, words in (
        ("name:", "a name starts with a letter"),
        ("properties:", "not a valid JSON Schema"),
        ("url:", "the URL must start with http"),
    ):
        line = page.locator(".CodeMirror-code > div").filter(has=widgets.filter(has_text=words))
        await expect(line.locator(".CodeMirror-line")).to_contain_text(key)
    await page.screenshot(path=SCREENSHOTS / "every-problem.png", full_page=True)
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.screenshot(path=SCREENSHOTS / "every-problem-390.png", full_page=True)


async def test_choosing_the_template_kind_swaps_the_settings_and_creates(
    ingress_ui: UI, browsing: MakeBrowsing
) -> None:
    """Kind "template" puts a template's settings in place of the REST example; Create saves."""
    session = await browsing()
    page = await session.open("/tools/new")
    editor = page.locator(".CodeMirror")
    await expect(editor).to_contain_text("rest:")
    await page.get_by_label("Kind", exact=True).select_option("template")
    await expect(editor).to_contain_text("kind: template")
    await expect(editor).to_contain_text("template:")
    await expect(editor).not_to_contain_text("rest:")
    await expect(editor).to_contain_text("description: Current weather for a city.")
    await expect(editor).to_contain_text("city: {type: string, description: City name}")
    await page.get_by_role("button", name="Create").click()
    await expect(page.get_by_role("status").first).to_contain_text("Tool created.")
    async with ingress_ui.store.sessionmaker() as db:
        [summary] = await stored.list_tools(db)
        tool = await stored.get_tool(db, summary.id)
    assert tool.definition["kind"] == "template"
    assert "rest" not in tool.definition
    assert session.console_errors == []
    assert await session.csp_violations() == []


async def test_the_fields_and_the_text_follow_each_other(
    ingress_ui: UI, browsing: MakeBrowsing
) -> None:
    """Editing name: in the text changes the Name field; typing a description changes its line."""
    session = await browsing()
    page = await session.open("/tools/new")
    await expect(page.locator(".CodeMirror")).to_be_visible()
    text = await page.evaluate("document.querySelector('.CodeMirror').CodeMirror.getValue()")
    await set_editor(page, text.replace("name: get_weather", "name: city_weather"))
    await expect(page.get_by_label("Name", exact=True)).to_have_value("city_weather")
    await page.get_by_label("Description").fill("What it's like outside: sky and temperature")
    await expect(page.locator(".CodeMirror")).to_contain_text(
        'description: "What it\'s like outside: sky and temperature"'
    )
    await page.get_by_role("button", name="Create").click()
    await expect(page.get_by_role("status").first).to_contain_text("Tool created.")
    await expect(page.get_by_label("Name", exact=True)).to_have_value("city_weather")
    await set_editor(page, text.replace("kind: rest", "kind: history"))
    await expect(page.get_by_label("Kind", exact=True)).to_have_value("history")
