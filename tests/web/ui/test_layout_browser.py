"""Every page at phone width (390 px) in real Chromium: nothing overflows, no word is broken.

A new user found the panel at 390 px breaking names mid-word in tables ("fak e-mo del"), dates one
digit per line, chart labels clipped, tables cut off at their card's edge (Safety's switch, a
run's failure reasons, a tool's From/To radios) and the tab bar on three rows. This walks every
page with data in it, its folded parts unfolded, and measures what Chromium laid out, so a
layout regression fails here rather than on a phone. With ``HOME_AGENT_SCREENSHOTS=1`` it also
leaves a full-page screenshot of each page at both widths in /tmp/home-agent-layout-screenshots.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from playwright.async_api import Page

from addon import keys
from addon.store.tools import custom_tools, mcp_servers
from devtools.scripted_llm import Completion, ScriptedLLM
from tests.mcp_client.notes_server import TOKEN as NOTES_TOKEN
from tests.mcp_client.notes_server import notes_server
from tests.web.ui.conftest import UI, MakeBrowsing
from tests.web.ui.seed import seed_trace
from tests.web.ui.test_direct_call_browser import call_get_date_time
from tests.web.ui.test_evaluate import start
from tests.web.ui.test_memories import remember
from tests.web.ui.test_model_check import check
from tests.web.ui.test_saved_tests import chat_turn, draft, save
from tests.web.ui.test_tool_kinds_browser import KINDS, definition
from tests.web.ui.test_tools import echo_server, echo_source

pytestmark = pytest.mark.browser
SCREENSHOTS = Path("/tmp/home-agent-layout-screenshots")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
__all__ = ["echo_server"]
LONG_NAME = "get_weather_forecast_for_city"
IMPORT = """\
- spec:
    name: get_attributes
    description: Get the attributes of any Home Assistant entity.
    parameters:
      type: object
      properties: {entity_id: {type: string}}
      required: [entity_id]
  function:
    type: template
    value_template: "{{ states[entity_id].attributes }}"
- spec: {name: add_automation, description: Add an automation.}
  function: {type: native, name: add_automation}
"""
"""Extended OpenAI functions: one imported with a warning, one refused with its reason."""
Action = Callable[[Page], Awaitable[None]]

# Every problem Chromium's layout shows on the page, as text; an empty list is a good page.
# A word is broken when its rendered boxes sit on more than one line; a cell overflows when its
# content is wider than the cell; the document overflows when it is wider than the viewport;
# a card when anything in it is wider than it or scrolls sideways (a table cut off at its
# edge); the tab bar must be one row with the current tab in sight; a chart's text is cut off
# when it reaches outside its chart.
LAYOUT_PROBLEMS = """
() => {
  const problems = [];
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth) {
    // Name the outermost element that reaches past the edge, to say where to look.
    const wide = [...document.body.querySelectorAll("*")].findLast(
      (element) => element.getBoundingClientRect().right > root.clientWidth + 1
        && !element.closest(".CodeMirror")
    );
    const where = wide ? `${wide.tagName.toLowerCase()}.${wide.className}` : "?";
    problems.push(`document is ${root.scrollWidth} px wide in ${root.clientWidth} (${where})`);
  }
  const lines = (range) => new Set(
    [...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.bottom))
  ).size;
  for (const cell of document.querySelectorAll("td, th")) {
    if (cell.scrollWidth > cell.clientWidth + 1) {
      problems.push(`cell overflows: ${cell.textContent.trim().slice(0, 40)}`);
    }
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      // Letters and digits never part; a short token ("2026-11-25", "fake-model,") stays
      // whole too, while a long path or URL may break at its punctuation.
      const text = node.textContent;
      const words = [...text.matchAll(/[\\p{L}\\p{N}_]+/gu)];
      const tokens = [...text.matchAll(/\\S+/g)].filter((token) => token[0].length <= 24);
      for (const word of [...words, ...tokens]) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        if (lines(range) > 1) problems.push(`word broken in a cell: ${word[0].slice(0, 40)}`);
      }
    }
  }
  const scrolling = document.scrollingElement;
  if (scrolling.scrollWidth > window.innerWidth) {
    problems.push(`page scrolls sideways: ${scrolling.scrollWidth} px in ${window.innerWidth}`);
  }
  // Inside a card nothing is wider than the card, and no box scrolls sideways: a table that
  // needs a scroll bar at this width is cut off for whoever does not find it (the editor's own
  // scroller excepted: it wraps lines, and CodeMirror sizes its parts itself).
  const describe = (element) => {
    const label = element.id ? `#${element.id}` : `.${[...element.classList].join(".")}`;
    const card = element.closest(".card");
    const title = card && card.querySelector("h2, h3");
    const where = title ? ` in "${title.textContent.trim()}"` : "";
    return `${element.tagName.toLowerCase()}${label}${where}`;
  };
  for (const card of document.querySelectorAll(".card")) {
    if (card.scrollWidth > card.clientWidth + 1) {
      const sizes = `${card.scrollWidth} px in ${card.clientWidth}`;
      problems.push(`card overflows: ${sizes} (${describe(card)})`);
    }
    for (const element of card.querySelectorAll("*")) {
      if (element.closest(".CodeMirror")) continue;
      const overflow = getComputedStyle(element).overflowX;
      if ((overflow === "auto" || overflow === "scroll")
          && element.scrollWidth > element.clientWidth + 1) {
        const sizes = `${element.scrollWidth} px in ${element.clientWidth}`;
        problems.push(`scrolls sideways in a card: ${sizes} (${describe(element)})`);
      }
    }
  }
  // The tab bar is one row: every tab on the same line, the bar about one tab high, and the
  // current section's tab in sight (the others scroll sideways).
  const tabs = [...document.querySelectorAll(".tab")];
  if (tabs.length) {
    const bar = document.querySelector(".tabs").getBoundingClientRect();
    const tallest = Math.max(...tabs.map((tab) => tab.getBoundingClientRect().height));
    const tops = new Set(tabs.map((tab) => Math.round(tab.getBoundingClientRect().top)));
    if (tops.size > 1 || bar.height > tallest + 2) {
      problems.push(`tab bar is ${tops.size} rows, ${Math.round(bar.height)} px high`);
    }
    const active = document.querySelector(".tab.active");
    const box = active && active.getBoundingClientRect();
    if (box && (box.left < 0 || box.right > root.clientWidth)) {
      problems.push(`current tab out of sight: ${active.textContent.trim()}`);
    }
  }
  for (const svg of document.querySelectorAll(".plot svg")) {
    const frame = svg.getBoundingClientRect();
    for (const text of svg.querySelectorAll("text")) {
      const box = text.getBoundingClientRect();
      if (box.left < frame.left - 1 || box.right > frame.right + 1
          || box.top < frame.top - 1 || box.bottom > frame.bottom + 1) {
        problems.push(`chart label clipped: ${text.textContent.trim()}`);
      }
    }
  }
  return problems;
}
"""
OPEN_DETAILS = "() => document.querySelectorAll('details').forEach((d) => { d.open = true; })"
"""Every folded part unfolded, so the tables inside (a trace's timings) are measured too."""


@pytest.fixture(scope="module", autouse=True)
def screenshot_dir() -> None:
    """Where the test leaves its screenshots for a person to look at."""
    SCREENSHOTS.mkdir(exist_ok=True)


async def seed_everything(
    ui: UI, notes_url: str, echo: Any, scripted_llm: ScriptedLLM
) -> dict[str, str]:
    """Every page's data: three kinds of conversation, a tool of each kind, runs, an MCP server.

    The conversations are a model's trace, a chat turn and a direct MCP tool call; one tool has
    two versions; there are two evaluation runs (one failing every task the model got, with its
    reasons), a model check beside them, a saved test and a memory.
    """
    conversation_id, _ = await seed_trace(ui.store)
    chatted = await chat_turn(ui)
    saved = await save(ui, chatted["turn_id"], draft(await ui.page(draft_path(chatted))))
    assert saved.status == 303
    direct = await call_get_date_time(ui)
    async with ui.store.sessionmaker.begin() as session:
        first = yaml.safe_load(echo_source(echo).replace("echo_city", LONG_NAME))
        tool = await custom_tools.save_tool(session, first)
        second = first | {"description": "Echo a city, a second time, through the endpoint."}
        await custom_tools.save_tool(session, second, tool_id=tool.id, note="second")
        server = await mcp_servers.add_server(
            session,
            name="notes",
            url=notes_url,
            header_name="Authorization",
            header_value=f"Bearer {NOTES_TOKEN}",
        )
        kinds = {
            kind: await custom_tools.save_tool(session, definition(kind, echo)) for kind in KINDS
        }
    await ui.client.app[keys.MCP_HUB].refresh(server.id)
    memory = await remember(ui.store, "The cat is called Miso and sleeps on the radiator.")
    await seed_drafts(ui)
    run_a = await start(ui, model="fake-model")
    run_b = await start(ui, model="fake-model", local_first="")
    checked = await check(ui, scripted_llm)
    return {
        "dashboard": "/",
        "dashboard month": "/?span=month",
        "conversations": "/conversations",
        "conversation": f"/conversations/{conversation_id}",
        "chat conversation": f"/conversations/{chatted['conversation_id']}",
        "direct call": f"/conversations/{direct}",
        "chat": "/chat",
        "chat continued": f"/chat?conversation={chatted['conversation_id']}",
        "tools": "/tools",
        "new tool": "/tools/new",
        "tool": f"/tools/{tool.id}",
        "tool diff": f"/tools/{tool.id}/diff?from=1&to=2",
        **{f"tool {kind}": f"/tools/{stored.id}" for kind, stored in kinds.items()},
        "memories": "/memories",
        "memory": f"/memories/{memory.id}",
        "forget": "/memories/forget",
        "evaluate": "/evaluate",
        "run": f"/evaluate/runs/{run_a}",
        "failed run": f"/evaluate/runs/{run_b}",
        "model check": f"/evaluate/runs/{checked}",
        "compare": f"/evaluate/compare?a={run_a}&b={run_b}",
        "new test": draft_path(chatted),
        "mcp servers": "/mcp-servers",
        "settings": "/settings",
        "safety": "/safety",
        "automations": "/automations",
        "automation edit": "/automations/1/edit",
        "not found": "/conversations/no-such-conversation",
    }


async def seed_drafts(ui: UI) -> None:
    """Two drafted automations, one of them covered and one discarded (long names, long YAML)."""
    records = ui.client.app[keys.AUTOMATIONS].records
    long_entity = "cover.garage_door_of_the_second_house_down_the_lane_beside_the_orchard"
    config = {
        "alias": "Open the garage every weekday morning for the cleaner who comes early",
        "triggers": [{"trigger": "time", "at": "07:00:00"}],
        "conditions": [{"condition": "time", "weekday": ["mon", "tue", "wed", "thu", "fri"]}],
        "actions": [{"action": "cover.open_cover", "target": {"entity_id": long_entity}}],
    }
    summary = "Every weekday at 7:00 it opens the garage door for the cleaner."
    await records.add(
        summary,
        config,
        [long_entity],
        covered=f"cover.open_cover on {long_entity}",
        confirm_by="panel",
        conversation_id=None,
    )
    second = await records.add(
        summary, config, [long_entity], covered=None, confirm_by="yes", conversation_id=None
    )
    await records.set_state(second.id, "discarded")


def draft_path(done: dict[str, Any]) -> str:
    """The "Save as test" page of a chat turn."""
    return f"/evaluate/tests/new?turn={done['turn_id']}"


async def try_it(page: Page) -> None:
    """Run the tool once from its page, so the page shows a run."""
    await page.get_by_role("button", name="Run").click()
    await page.locator("#try-result").wait_for()


async def import_functions(page: Page) -> None:
    """Import Extended OpenAI functions, so the page shows what came in and what was refused."""
    await page.get_by_label("Functions YAML").fill(IMPORT)
    await page.get_by_role("button", name="Import").click()
    await page.wait_for_load_state("load")


AT_DESKTOP = frozenset(
    {
        "tools",
        "tool",
        "evaluate",
        "run",
        "failed run",
        "compare",
        "model check",
        "settings",
        "safety",
        "conversations",
    }
)
"""Pages whose tables turn into cards on a phone: checked at 1280 px too, where they must
still be tables that fit (every page at both widths with ``HOME_AGENT_SCREENSHOTS``)."""

ACTIONS: dict[str, tuple[str, Action]] = {
    "tool tried": ("tool rest", try_it),
    "tools imported": ("tools", import_functions),
}
"""Pages reached by a form: the page to start from and what to do there."""


async def shoot(page: Page, name: str, width: int) -> None:
    """A full-page screenshot for a person to look at, when ``HOME_AGENT_SCREENSHOTS`` is set.

    Seventy full-page PNGs cost the suite about a minute of CPU; the test's verdict does not
    need them, so they are taken only when someone asks.
    """
    if not os.environ.get("HOME_AGENT_SCREENSHOTS"):
        return
    path = SCREENSHOTS / f"{name.replace(' ', '-')}-{width}.png"
    await page.screenshot(path=path, full_page=True)


async def test_every_page_fits_a_phone(
    ingress_ui: UI, browsing: MakeBrowsing, scripted_llm: ScriptedLLM, echo_server: Any
) -> None:
    """At 390 px no page or card overflows sideways, no table is cut off, tabs are one row."""
    scripted_llm.default = Completion("I did nothing.")
    async with notes_server() as notes:
        pages = await seed_everything(ingress_ui, notes.url, echo_server, scripted_llm)
        phone = await browsing(viewport=PHONE)
        desktop = await browsing(viewport=DESKTOP)
        found: dict[str, list[str]] = {}
        visits = [(name, path, None) for name, path in pages.items()]
        visits += [(name, pages[start], act) for name, (start, act) in ACTIONS.items()]
        for name, path, act in visits:
            sizes = [(phone, PHONE)]
            if name in AT_DESKTOP or os.environ.get("HOME_AGENT_SCREENSHOTS"):
                sizes.append((desktop, DESKTOP))
            for session, size in sizes:
                page = await session.open(path)
                await page.wait_for_load_state("load")
                if act is not None:
                    await act(page)
                await page.evaluate(OPEN_DETAILS)
                problems = await page.evaluate(LAYOUT_PROBLEMS)
                if problems:
                    found[f"{name} at {size['width']}"] = problems
                await shoot(page, name, size["width"])
                await page.close()
    assert found == {}, "\n".join(f"{name}: {problems}" for name, problems in found.items())
