"""The panel's labels say what happened, in real Chromium (issue 23, "Honest labels").

A reading REST tool tried in a dry run really sends its request, so it is labelled as sent, not as
a dry run; a model call whose endpoint reported no token usage reads "tokens unknown", never
"0 prompt + 0 completion"; every page names the time zone its times are in.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
import yaml
from playwright.async_api import expect

from addon.store.tools import custom_tools as stored
from devtools.scripted_llm import ScriptedLLM
from tests.web.ui.conftest import UI, MakeBrowsing
from tests.web.ui.home import demo_home
from tests.web.ui.seed import T0, model_call, seed_turn
from tests.web.ui.test_tool_kinds_browser import definition
from tests.web.ui.test_tools import echo_server

pytestmark = pytest.mark.browser
__all__ = ["echo_server"]


async def test_a_reading_try_in_a_dry_run_is_labelled_sent(
    ingress_ui: UI, browsing: MakeBrowsing, echo_server: Any
) -> None:
    """A GET tried with Dry run on shows "sent: it only reads" and the real response."""
    async with ingress_ui.store.sessionmaker.begin() as session:
        tool = await stored.save_tool(session, definition("rest", echo_server))
    page = await (await browsing()).open(f"/tools/{tool.id}")
    await expect(page.locator("#try-form").get_by_label("Dry run", exact=False)).to_be_checked()
    await page.get_by_role("button", name="Run").click()
    await expect(page.locator("#try-sent")).to_have_text("sent: it only reads")
    await expect(page.locator("#try-dry-run")).to_have_count(0)
    await expect(page.locator("#try-response-status")).to_have_text("200")


async def test_an_acting_try_in_a_dry_run_is_labelled_dry_run(
    ingress_ui: UI, browsing: MakeBrowsing, echo_server: Any
) -> None:
    """A POST tried with Dry run on is held: "dry run", and no "sent" label."""
    data = definition("rest", echo_server)
    data["rest"] = {**data["rest"], "method": "POST"}
    async with ingress_ui.store.sessionmaker.begin() as session:
        tool = await stored.save_tool(session, yaml.safe_load(yaml.safe_dump(data)))
    page = await (await browsing()).open(f"/tools/{tool.id}")
    await page.get_by_role("button", name="Run").click()
    await expect(page.locator("#try-dry-run")).to_have_text("dry run")
    await expect(page.locator("#try-sent")).to_have_count(0)


async def test_a_call_without_usage_reads_tokens_unknown(
    ingress_ui: UI, browsing: MakeBrowsing
) -> None:
    """The turn and its model call say "tokens unknown"; no "0 prompt" anywhere on the page."""
    call = replace(model_call("hello", "Hi.", at=T0), prompt_tokens=0, completion_tokens=0)
    await seed_turn(ingress_ui.store, "no-usage", "hello", "Hi.", at=T0, llm_calls=[call])
    page = await (await browsing()).open("/conversations/no-usage")
    await expect(page.locator(".tokens-unknown")).to_have_count(2)
    await expect(page.locator(".tokens-unknown").first).to_have_text("tokens unknown")
    await expect(page.locator("body")).not_to_contain_text("0 prompt")


async def test_the_footer_names_the_home_time_zone(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """The foot of a page says its times are in the home's zone, by name."""
    zone = demo_home()["config"]["time_zone"]
    page = await (await browsing()).open("/conversations")
    await expect(page.locator("body")).to_contain_text(
        f"Times are in the home's time zone, {zone}."
    )


async def test_remember_in_the_chats_dry_run_says_nothing_was_stored(
    ingress_ui: UI, browsing: MakeBrowsing, scripted_llm: ScriptedLLM
) -> None:
    """The chat's default dry run: the remember call's result says so, and Memories is empty."""
    scripted_llm.tool_calls(("remember", {"content": "The cat is called Miso."})).reply("Noted.")
    session = await browsing()
    page = await session.open("/chat")
    await page.get_by_label("Message").fill("remember that the cat is called Miso")
    await page.get_by_role("button", name="Send").click()
    await expect(page.locator(".message.agent .bubble").last).to_have_text("Noted.")
    await page.locator(".message.agent").last.get_by_role("link", name="Trace").click()
    tool = page.locator(".step.tool").filter(has_text="remember")
    await tool.get_by_text("Result").click()
    await expect(tool).to_contain_text("In a dry run nothing is stored")
    await expect(tool).to_contain_text('"stored": false')
    memories = await session.open("/memories")
    await expect(memories.locator("#memory-list")).to_have_count(0)
