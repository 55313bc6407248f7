"""Answering a held action in the chat: Yes and No buttons, and a PIN that is never shown.

The whole app in Chromium behind the ingress stand-in, over the captured demo home with its
front door exposed, the default confirmation policy and, for the PIN, an entry of its own.
The buttons send the words "yes" and "no", so they take the path typed text takes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Page, expect

from addon import keys
from addon.config.settings import Settings
from addon.home.actions.confirmation import hash_pin
from devtools.scripted_llm import ScriptedLLM
from tests.ha.fake_ws_server import FakeHomeAssistant
from tests.web.ui.conftest import UI, Browsing, MakeBrowsing
from tests.web.ui.home import demo_home, serve_home

pytestmark = pytest.mark.browser

LOCK = "lock.front_door"
PIN = "4711"
MASK = "••••"
SEEN_TEXTS = """
window.__chatTexts = [];
new MutationObserver(function () {
  const log = document.getElementById("chat-log");
  if (log) window.__chatTexts.push(log.textContent);
}).observe(document, { subtree: true, childList: true, characterData: true });
"""
"""Records the chat log's text after every change, so a PIN shown for a moment is caught."""


async def watched(browsing: MakeBrowsing) -> Browsing:
    """A browser context whose pages record every text their chat log ever showed."""
    session: Browsing = await browsing()
    await session.context.add_init_script(SEEN_TEXTS)
    return session


async def texts_seen(page: Page) -> list[str]:
    """Every text the page's chat log showed, in order."""
    seen: list[str] = await page.evaluate("window.__chatTexts")
    assert seen  # the observer ran
    return seen


@pytest.fixture
async def fake_home() -> AsyncIterator[FakeHomeAssistant]:
    """The captured demo home with the front door exposed to Assist."""
    data = demo_home()
    data["exposure"][LOCK] = {"conversation": True}
    server = FakeHomeAssistant()
    serve_home(server, data)
    await server.start()
    yield server
    await server.close()


@pytest.fixture
def ui_settings(request: pytest.FixtureRequest, ui_settings: Settings) -> Settings:
    """The usual settings, in the language a test names (``indirect`` parametrization)."""
    language = getattr(request, "param", None)
    if language is None:
        return ui_settings
    options = ui_settings.options.model_copy(update={"language": language})
    return ui_settings.model_copy(update={"options": options})


async def test_a_held_unlock_is_answered_with_the_yes_button(
    ingress_ui: UI, browsing: MakeBrowsing
) -> None:
    """The question names the door; Yes confirms (a dry run here); the buttons then go away."""
    session = await browsing()
    page = await session.open("/chat")
    await page.get_by_label("Message").fill("unlock the front door")
    await page.get_by_role("button", name="Send").click()
    agent = page.locator(".message.agent .bubble")
    await expect(agent.last).to_have_text("Unlock the Front Door? Say yes to confirm.")
    await expect(page.locator(".message.agent").last.locator(".badge.dry-run")).to_be_visible()
    await page.get_by_role("button", name="Yes").click()
    await expect(page.locator(".message.user .bubble").last).to_have_text("yes")
    await expect(agent.last).to_have_text("Done, as a dry run: nothing was changed.")
    await expect(page.get_by_role("button", name="Yes")).to_be_hidden()
    await expect(page.get_by_label("Message")).to_be_visible()
    assert session.console_errors == []


async def test_a_pin_is_typed_masked_and_never_shown(
    ingress_ui: UI, browsing: MakeBrowsing
) -> None:
    """A PIN question swaps the text box for a password field; the PIN never reaches the page."""
    policy = ingress_ui.client.app[keys.CONFIRMATION_POLICY]
    await policy.add("entity", LOCK, ["unlock"], "pin", hash_pin(PIN))
    session = await watched(browsing)
    page = await session.open("/chat")
    await page.get_by_label("Message").fill("unlock the front door")
    await page.get_by_role("button", name="Send").click()
    agent = page.locator(".message.agent .bubble")
    await expect(agent.last).to_have_text("Unlock the Front Door? Say the PIN to confirm.")
    pin = page.get_by_label("PIN")
    await expect(pin).to_be_visible()
    assert await pin.get_attribute("type") == "password"
    await expect(page.get_by_role("button", name="Yes")).to_be_hidden()
    await pin.fill(PIN)
    await pin.press("Enter")
    await expect(page.locator(".message.user .bubble").last).to_have_text(MASK)
    assert PIN not in await page.content()
    await expect(agent.last).to_have_text("Done, as a dry run: nothing was changed.")
    assert PIN not in await page.content()
    assert not [text for text in await texts_seen(page) if PIN in text]
    assert await pin.input_value() == ""
    conversation_id = await page.locator("input[name=conversation_id]").input_value()
    page = await session.open(f"/chat?conversation={conversation_id}")
    await expect(page.locator(".message.user .bubble").last).to_have_text("••••")
    assert PIN not in await page.content()


async def test_the_dry_run_switch_is_remembered_by_the_browser(
    ingress_ui: UI, browsing: MakeBrowsing
) -> None:
    """Turned off once, the switch stays off on the next visit; turned on, it stays on."""
    session = await browsing()
    page = await session.open("/chat")
    switch = page.get_by_label("Dry run: act on a copy of the home, nothing really changes")
    await expect(switch).to_be_checked()
    await switch.uncheck()
    page = await session.open("/chat")
    switch = page.get_by_label("Dry run: act on a copy of the home, nothing really changes")
    await expect(switch).not_to_be_checked()
    await switch.check()
    page = await session.open("/chat")
    await expect(
        page.get_by_label("Dry run: act on a copy of the home, nothing really changes")
    ).to_be_checked()


@pytest.mark.parametrize("ui_settings", ["de"], indirect=True)
async def test_the_buttons_say_yes_and_no_in_the_conversations_language(
    ingress_ui: UI, browsing: MakeBrowsing
) -> None:
    """In German the question is German and the button sends „ja", which confirms."""
    session = await browsing()
    page = await session.open("/chat")
    await page.get_by_label("Message").fill("Schließe Front Door auf")
    await page.get_by_role("button", name="Send").click()
    agent = page.locator(".message.agent .bubble")
    await expect(agent.last).to_have_text("Front Door aufschließen? Sag ja, um zu bestätigen.")
    await expect(page.get_by_role("button", name="Nein")).to_be_visible()
    await page.get_by_role("button", name="Ja").click()
    await expect(page.locator(".message.user .bubble").last).to_have_text("ja")
    await expect(agent.last).to_have_text("Erledigt, als Probelauf: Es wurde nichts verändert.")
    assert session.console_errors == []


async def test_a_pin_awaited_when_the_chat_is_reloaded_is_still_typed_masked(
    ingress_ui: UI, browsing: MakeBrowsing
) -> None:
    """Reloaded while a PIN is awaited, the chat offers the password field, never a text box."""
    policy = ingress_ui.client.app[keys.CONFIRMATION_POLICY]
    await policy.add("entity", LOCK, ["unlock"], "pin", hash_pin(PIN))
    session = await browsing()
    page = await session.open("/chat")
    await page.get_by_label("Message").fill("unlock the front door")
    await page.get_by_role("button", name="Send").click()
    agent = page.locator(".message.agent .bubble")
    await expect(agent.last).to_have_text("Unlock the Front Door? Say the PIN to confirm.")
    # The reply's last event (after its turn is stored) names the conversation and asks for the
    # PIN; the streamed words come before it.
    await expect(page.get_by_label("PIN")).to_be_visible()
    conversation_id = await page.locator("input[name=conversation_id]").input_value()
    page = await session.open(f"/chat?conversation={conversation_id}")
    agent = page.locator(".message.agent .bubble")
    pin = page.get_by_label("PIN")
    await expect(pin).to_be_visible()
    assert await pin.get_attribute("type") == "password"
    await expect(page.locator("#chat-text")).to_be_hidden()
    await expect(page.get_by_role("button", name="Yes")).to_be_hidden()
    await expect(page.get_by_role("button", name="No")).to_be_visible()
    await pin.fill(PIN)
    await pin.press("Enter")
    await expect(page.locator(".message.user .bubble").last).to_have_text("••••")
    assert PIN not in await page.content()
    await expect(agent.last).to_have_text("Done, as a dry run: nothing was changed.")
    assert PIN not in await page.content()
    await expect(page.get_by_label("Message")).to_be_visible()
    assert session.console_errors == []


async def test_a_pin_typed_when_no_question_waits_is_never_shown(
    ingress_ui: UI, browsing: MakeBrowsing, scripted_llm: ScriptedLLM
) -> None:
    """Said late or by habit, a PIN in the text box is masked at once, and stays masked."""
    policy = ingress_ui.client.app[keys.CONFIRMATION_POLICY]
    await policy.add("entity", LOCK, ["unlock"], "pin", hash_pin(PIN))
    scripted_llm.reply("Nothing is waiting for a PIN.")
    session = await watched(browsing)
    page = await session.open("/chat")
    await page.get_by_label("Message").fill(PIN)
    await page.get_by_role("button", name="Send").click()
    agent = page.locator(".message.agent .bubble")
    await expect(agent.last).to_have_text("Nothing is waiting for a PIN.")
    await expect(page.locator(".message.user .bubble").last).to_have_text(MASK)
    assert not [text for text in await texts_seen(page) if PIN in text]
    assert PIN not in await page.content()


async def test_a_number_that_is_no_pin_is_shown_once_the_reply_says_so(
    ingress_ui: UI, browsing: MakeBrowsing, scripted_llm: ScriptedLLM
) -> None:
    """Digits that may be a PIN are masked while the turn runs, then shown as they were said."""
    policy = ingress_ui.client.app[keys.CONFIRMATION_POLICY]
    await policy.add("entity", LOCK, ["unlock"], "pin", hash_pin(PIN))
    scripted_llm.reply("1234 is a number.")
    session = await browsing()
    page = await session.open("/chat")
    await page.get_by_label("Message").fill("1234")
    await page.get_by_role("button", name="Send").click()
    await expect(page.locator(".message.agent .bubble").last).to_have_text("1234 is a number.")
    await expect(page.locator(".message.user .bubble").last).to_have_text("1234")
