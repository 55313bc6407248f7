"""The UI in real Chromium behind the ingress stand-in: pages, search, paging, traces, chat."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from playwright.async_api import Page, expect

from addon.store.queries.conversations import PAGE_SIZE
from devtools.scripted_llm import Completion, ScriptedLLM
from tests.web.ui.conftest import UI, MakeBrowsing
from tests.web.ui.home import XSS, XSS_IMG, XSS_SCRIPT
from tests.web.ui.proxy import PANEL_PATH, PREFIX
from tests.web.ui.seed import model_call, seed_many, seed_trace, seed_turn, tool_call

pytestmark = pytest.mark.browser

SECTIONS = ("Dashboard", "Conversations", "Chat", "Settings")


async def test_every_section_renders_without_errors(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """Each tab opens its page under the prefix, with no console error or CSP violation."""
    conversation_id, _ = await seed_trace(ingress_ui.store, at=datetime.now(UTC))
    session = await browsing()
    page = await session.open("/")
    for section in SECTIONS:
        await (
            page.get_by_role("navigation", name="Sections")
            .get_by_role("link", name=section)
            .click()
        )
        await expect(page.locator(".tab.active")).to_have_text(section)
        assert page.url.startswith(session.proxy.url("/"))
    await page.goto(session.proxy.url(f"/conversations/{conversation_id}"))
    await expect(page.get_by_role("heading", name="Turn 1")).to_be_visible()
    assert session.console_errors == []
    assert await session.csp_violations() == []


async def test_search_finds_what_was_said(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """Typing words into the search box lists the conversation that contains them."""
    await seed_many(ingress_ui.store, 5)
    await seed_trace(ingress_ui.store)
    session = await browsing()
    page = await session.open("/conversations")
    await page.get_by_label("Search what was said and replied").fill("kitchen lights")
    await page.get_by_role("button", name="Apply").click()
    results = page.locator("#conversation-list > li")
    await expect(results).to_have_count(1)
    await expect(results.first).to_contain_text("switch on the kitchen lights please")
    assert page.url.startswith(session.proxy.url("/conversations?"))


async def test_filters_narrow_the_list(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """Choosing "failed" and "Has an error" leaves only the failed conversation."""
    await seed_many(ingress_ui.store, 3)
    await seed_turn(
        ingress_ui.store,
        "failed-1",
        "open the pod bay doors",
        "I can't do that.",
        at=datetime.now(UTC),
        handled_by="failed",
        error="model endpoint timed out",
    )
    session = await browsing()
    page = await session.open("/conversations")
    await page.get_by_label("Answered by").select_option("failed")
    await page.get_by_label("Has an error").check()
    await page.get_by_role("button", name="Apply").click()
    results = page.locator("#conversation-list > li")
    await expect(results).to_have_count(1)
    await expect(results.first).to_contain_text("open the pod bay doors")
    await expect(page.get_by_label("Has an error")).to_be_checked()


async def test_paging_walks_older_and_back(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """Older shows the next page of conversations, Newer comes back to the first."""
    ids = await seed_many(ingress_ui.store, PAGE_SIZE + 7)
    session = await browsing()
    page = await session.open("/conversations")
    rows = page.locator("#conversation-list > li")
    await expect(rows).to_have_count(PAGE_SIZE)
    await expect(rows.first).to_contain_text(f"lamp number {len(ids) - 1}")
    await page.get_by_role("link", name="Older →").click()
    await expect(rows).to_have_count(7)
    await expect(rows.first).to_contain_text("lamp number 6")
    await expect(page.get_by_role("link", name="Older →")).to_have_count(0)
    await page.get_by_role("link", name="← Newer").click()
    await expect(rows).to_have_count(PAGE_SIZE)
    await expect(rows.first).to_contain_text(f"lamp number {len(ids) - 1}")


async def test_trace_shows_the_exact_messages_sent(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """Opening a conversation from the list shows the model call and, unfolded, its messages."""
    await seed_trace(ingress_ui.store)
    session = await browsing()
    page = await session.open("/conversations")
    await page.get_by_role("link", name="switch on the kitchen lights please").click()
    model_step = page.locator(".step.model")
    await expect(model_step).to_contain_text("scripted-model")
    system_prompt = model_step.get_by_text("You are a voice assistant for a home.", exact=True)
    await expect(system_prompt).to_be_hidden()
    await model_step.get_by_text("Messages sent").click()
    await expect(system_prompt).to_be_visible()
    await expect(page.locator(".step.tool")).to_contain_text("HassTurnOn")


async def test_entity_link_opens_in_home_assistant(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """Inside Home Assistant's panel iframe, an entity link replaces the whole page."""
    conversation_id, _ = await seed_trace(ingress_ui.store)
    session = await browsing()
    page = await session.context.new_page()
    await page.goto(session.proxy.origin + PANEL_PATH)
    frame = page.frame_locator("#ingress")
    await frame.get_by_role("link", name="Conversations", exact=True).click()
    await frame.get_by_role("link", name="switch on the kitchen lights please").click()
    await frame.get_by_role("link", name="light.kitchen_lights").first.click()
    await expect(page).to_have_url(
        session.proxy.origin + "/config/entities?search=light.kitchen_lights"
    )
    assert conversation_id


async def test_chat_streams_the_reply_and_links_its_trace(
    ingress_ui: UI, browsing: MakeBrowsing, scripted_llm: ScriptedLLM
) -> None:
    """A message sent from the chat gets a reply that appears piece by piece, then a trace link."""
    reply = "Here is a longer answer that arrives in several pieces over the stream."
    scripted_llm.reply(reply, chunk_delay=0.15)
    session = await browsing()
    page = await session.open("/chat")
    await page.get_by_label("Message").fill("tell me something about the weather")
    await page.get_by_role("button", name="Send").click()
    bubble = page.locator(".message.agent .bubble").last
    await page.wait_for_function(
        "([el, full]) => el.textContent.length > 0 && el.textContent !== full",
        arg=[await bubble.element_handle(), reply],
    )
    await expect(bubble).to_have_text(reply)
    trace = page.locator(".message.agent").last.get_by_role("link", name="Trace")
    await trace.click()
    await expect(page).to_have_url(re.compile(re.escape(session.proxy.url("/conversations/"))))
    await expect(page.locator(".turn:target")).to_contain_text(reply)
    await expect(page.locator(".turn:target")).to_contain_text("dry run")
    assert session.console_errors == []
    assert await session.csp_violations() == []


async def test_a_dry_run_reply_is_marked_while_it_comes_and_the_switch_is_remembered(
    ingress_ui: UI, browsing: MakeBrowsing, scripted_llm: ScriptedLLM
) -> None:
    """The live bubble says "dry run" before the model has answered; off, it stays off."""
    release = asyncio.Event()

    async def held(body: dict[str, Any]) -> Completion:
        await release.wait()
        return Completion("Once upon a time.")

    scripted_llm.default = held
    session = await browsing()
    page = await session.open("/chat")
    await page.get_by_label("Message").fill("tell me a story")
    await page.get_by_role("button", name="Send").click()
    live = page.locator(".message.agent").last
    # The model has not answered yet: the reply is still pending, and already marked.
    await expect(live).to_have_class(re.compile(r"\bpending\b"))
    await expect(live.locator(".badge.dry-run")).to_have_text("dry run")
    release.set()
    await expect(live.locator(".bubble")).to_have_text("Once upon a time.")
    await expect(live.locator(".badge.dry-run")).to_have_count(1)
    await expect(live.locator(".badge.llm")).to_be_visible()
    switch = page.get_by_label("Dry run: act on a copy of the home, nothing really changes")
    await switch.uncheck()
    await page.get_by_label("Message").fill("and another one")
    await page.get_by_label("Message").press("Enter")
    await expect(page.get_by_role("button", name="Send")).to_be_enabled()
    live = page.locator(".message.agent").last
    await expect(live.locator(".badge.llm")).to_be_visible()
    await expect(live.locator(".badge.dry-run")).to_have_count(0)
    conversation_id = await page.locator("input[name=conversation_id]").input_value()
    await page.reload()
    await expect(
        page.get_by_label("Dry run: act on a copy of the home, nothing really changes")
    ).not_to_be_checked()
    page = await session.open(f"/chat?conversation={conversation_id}")
    replies = page.locator(".message.agent")
    await expect(replies).to_have_count(2)
    await expect(replies.first.locator(".badge.dry-run")).to_have_text("dry run")
    await expect(replies.last.locator(".badge.dry-run")).to_have_count(0)
    assert session.console_errors == []


async def test_chat_continues_the_same_conversation(
    ingress_ui: UI, browsing: MakeBrowsing, scripted_llm: ScriptedLLM
) -> None:
    """A second message from the page goes into the conversation the first one started."""
    scripted_llm.reply("First answer.")
    scripted_llm.reply("Second answer.")
    session = await browsing()
    page = await session.open("/chat")
    for text, answer in (("tell me a story", "First answer."), ("and another", "Second answer.")):
        await page.get_by_label("Message").fill(text)
        await page.get_by_label("Message").press("Enter")
        await expect(page.locator(".message.agent .bubble").last).to_have_text(answer)
        # The text shows while the turn is still being stored; the page takes the next
        # message only once the reply's stream has ended.
        await expect(page.get_by_role("button", name="Send")).to_be_enabled()
    await page.locator(".message.agent").last.get_by_role("link", name="Trace").click()
    await expect(page.get_by_role("heading", name="Turn 2")).to_be_visible()


async def test_chat_works_without_script(
    ingress_ui: UI, browsing: MakeBrowsing, scripted_llm: ScriptedLLM
) -> None:
    """With JavaScript off the form posts and the browser lands on the new turn's trace."""
    scripted_llm.reply("Answered without script.")
    session = await browsing(java_script_enabled=False)
    page = await session.open("/chat")
    await page.get_by_label("Message").fill("tell me a story")
    await page.get_by_label("Dry run").uncheck()
    await page.get_by_role("button", name="Send").click()
    await expect(page).to_have_url(re.compile(re.escape(session.proxy.url("/conversations/"))))
    turn = page.locator(".turn:target")
    await expect(turn).to_contain_text("Answered without script.")
    await expect(turn).not_to_contain_text("dry run")


async def test_hostile_text_never_runs(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """Markup in what was said, replied, returned by tools and in entity names stays text."""
    at = datetime.now(UTC)
    await seed_turn(
        ingress_ui.store,
        "xss-1",
        f"say {XSS}",
        f"Sure: {XSS}",
        at=at,
        handled_by="failed",
        error=XSS,
        flagged=True,
        llm_calls=[model_call(XSS, XSS, at=at, error=XSS)],
        tool_calls=[tool_call(XSS, {"name": XSS}, {"speech": XSS}, at=at, llm_call=0, error=XSS)],
    )
    session = await browsing()
    page = await session.open("/")
    for path in ("/", "/conversations", f"/conversations?q={XSS_SCRIPT}", "/conversations/xss-1",
                 "/chat?conversation=xss-1", "/settings"):  # fmt: skip
        await page.goto(session.proxy.url(path))
        for summary in await page.locator("summary").all():
            await summary.click()
        assert await page.locator("img[src='x']").count() == 0, path
        assert await page.locator("script:not([src])").count() == 0, path
    await expect(page.locator("#exposed-entities")).to_contain_text(f"Bed {XSS}")
    await expect(page.locator("#exposed-entities")).to_contain_text(XSS_IMG)
    assert session.dialogs == []
    assert await session.csp_violations() == []


async def test_theme_follows_the_system_setting(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """A dark system theme gives the dark palette, a light one the light palette."""
    backgrounds = {}
    for scheme in ("light", "dark"):
        session = await browsing(color_scheme=scheme)
        page = await session.open("/")
        backgrounds[scheme] = await page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert backgrounds == {"light": "rgb(250, 250, 250)", "dark": "rgb(17, 17, 17)"}


async def test_phone_width_needs_no_sideways_scrolling(
    ingress_ui: UI, browsing: MakeBrowsing
) -> None:
    """At 390 px wide no page is wider than the screen."""
    conversation_id, _ = await seed_trace(
        ingress_ui.store, at=datetime.now(UTC) - timedelta(hours=1)
    )
    session = await browsing(viewport={"width": 390, "height": 844}, is_mobile=True)
    page: Page = await session.open("/")
    for path in ("/", "/conversations", f"/conversations/{conversation_id}", "/chat", "/settings"):
        await page.goto(session.proxy.url(path))
        width = await page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, path
    assert PREFIX in page.url
