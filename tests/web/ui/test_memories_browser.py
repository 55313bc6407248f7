"""The Memories page in real Chromium: add, edit, delete, restore, search, provenance, forget."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.async_api import expect

from addon.store.memories import memory_upkeep
from tests.web.ui.conftest import UI, MakeBrowsing
from tests.web.ui.seed import T0, seed_turn
from tests.web.ui.test_memories import remember

pytestmark = pytest.mark.browser
SCREENSHOTS = Path("/tmp/home-agent-memories-screenshots")


@pytest.fixture(scope="module", autouse=True)
def screenshot_dir() -> None:
    """Where the layout test leaves its screenshots for a person to look at."""
    SCREENSHOTS.mkdir(exist_ok=True)


async def test_add_edit_delete_and_restore(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """A memory added by hand is edited, deleted, found under deleted and restored."""
    session = await browsing()
    page = await session.open("/memories")
    await page.get_by_role("link", name="Add a memory").click()
    await page.get_by_label("What to remember").fill("The cat is called Miso.")
    await page.get_by_label("Kind").last.select_option("preference")
    await page.get_by_label("Importance (0 to 1)").fill("2")
    await page.get_by_role("button", name="Add").click()
    await expect(page.locator("#problem-importance")).to_have_text(
        "A number from 0 to 1, such as 0.5."
    )
    await expect(page.get_by_label("What to remember")).to_have_value("The cat is called Miso.")
    await page.get_by_label("Importance (0 to 1)").fill("0.7")
    await page.get_by_role("button", name="Add").click()
    await expect(page.get_by_role("status").first).to_have_text("Memory added.")
    await expect(page.locator("h1")).to_contain_text("Memory")
    await expect(page.locator("#memory-facts")).to_contain_text("added by hand")

    await page.get_by_label("What to remember").fill("The cat is called Mochi.")
    await page.get_by_label("Pinned").check()
    await page.get_by_role("button", name="Save").click()
    await expect(page.get_by_role("status").first).to_have_text("Saved.")
    await expect(page.get_by_label("What to remember")).to_have_value("The cat is called Mochi.")
    await expect(page.get_by_label("Pinned")).to_be_checked()

    await page.get_by_role("button", name="Delete").click()
    await expect(page.get_by_role("status").first).to_contain_text("Deleted")
    await page.get_by_role("link", name="All memories").click()
    await expect(page.locator("#memory-list")).to_have_count(0)
    await page.get_by_label("Deleted (to restore)").check()
    await page.get_by_role("button", name="Apply").click()
    row = page.locator("#memory-list li").filter(has_text="The cat is called Mochi.")
    await expect(row.locator(".badge.error")).to_have_text("deleted")
    await row.get_by_role("button", name="Restore").click()
    await expect(page.get_by_role("status").first).to_contain_text("Restored")
    # Back in the deleted list it was restored from, now empty.
    await expect(page.get_by_label("Deleted (to restore)")).to_be_checked()
    await expect(page.locator("#memory-list")).to_have_count(0)
    await page.get_by_role("link", name="Clear").click()
    await expect(page.locator("#memory-list")).to_contain_text("The cat is called Mochi.")
    # The refused add answers 422, which Chromium reports as a failed load; nothing else.
    assert [e for e in session.console_errors if "status of 422" not in e] == []
    assert await session.csp_violations() == []


async def test_search_and_filter(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """Searching keeps the memories with the words; a kind filter narrows further."""
    await remember(ingress_ui.store, "The garage door sticks in winter.")
    await remember(ingress_ui.store, "Anna keeps her bike in the garage.", kind="context")
    await remember(ingress_ui.store, "Anna likes the kitchen warm.", kind="preference")
    session = await browsing()
    page = await session.open("/memories")
    await expect(page.locator("#memory-list li")).to_have_count(3)
    await page.get_by_label("Search memories").fill("garage")
    await page.get_by_role("button", name="Apply").click()
    await expect(page.locator("#memory-list li")).to_have_count(2)
    await expect(page.locator("#memory-list")).not_to_contain_text("kitchen")
    await page.get_by_label("Kind").first.select_option("context")
    await page.get_by_role("button", name="Apply").click()
    await expect(page.locator("#memory-list li")).to_have_count(1)
    await expect(page.locator("#memory-list")).to_contain_text("bike")
    await expect(page.get_by_label("Search memories")).to_have_value("garage")


async def test_provenance_links_land_on_the_turns(ingress_ui: UI, browsing: MakeBrowsing) -> None:
    """The source link opens the turn it was learned in; a recall link, the turn it went into."""
    store = ingress_ui.store
    source_turn = await seed_turn(
        store, "conv-miso", "remember that the cat is called Miso", "I will.", at=T0
    )
    await seed_turn(store, "conv-later", "turn on the hall light", "Done.", at=T0)
    recall_turn = await seed_turn(
        store, "conv-later", "what is the cat called", "Miso.", at=T0 + timedelta(minutes=1)
    )
    memory = await remember(
        store,
        "The cat is called Miso.",
        source="conversation",
        conversation_id="conv-miso",
        turn_id=source_turn,
    )
    async with store.sessionmaker.begin() as session:
        await memory_upkeep.mark_recalled(session, [memory.id], turn_id=recall_turn)
    session_ = await browsing()
    page = await session_.open("/memories")
    await page.get_by_role("link", name="learned from a conversation").click()
    await expect(page).to_have_url(re.compile(f"/conversations/conv-miso#turn-{source_turn}$"))
    await expect(page.locator(".turn:target")).to_contain_text(
        "remember that the cat is called Miso"
    )
    await page.go_back()
    await page.get_by_role("link", name="The cat is called Miso.").click()
    await expect(page.locator("#recall-list li")).to_have_count(1)
    await page.get_by_role("link", name="“what is the cat called”").click()
    await expect(page).to_have_url(re.compile(f"/conversations/conv-later#turn-{recall_turn}$"))
    target = page.locator(".turn:target")
    await expect(target).to_contain_text("what is the cat called")
    await expect(target.locator("h2")).to_have_text("Turn 2")
    assert session_.console_errors == []


async def test_forget_everything_takes_the_typed_words(
    ingress_ui: UI, browsing: MakeBrowsing
) -> None:
    """Forget everything opens a confirmation; wrong words forget nothing, the right ones all."""
    await remember(ingress_ui.store, "The cat is called Miso.")
    session = await browsing(java_script_enabled=False)
    page = await session.open("/memories")
    await page.get_by_role("link", name="Forget everything").click()
    await expect(page.locator("h1")).to_have_text("Forget everything")
    await page.get_by_label("Type “forget everything” to confirm").fill("yes")
    await page.get_by_role("button", name="Forget every memory").click()
    await expect(page.locator("#confirm-problem")).to_contain_text("Nothing was forgotten")
    await page.get_by_role("link", name="Keep them").click()
    await expect(page.locator("#memory-list li")).to_have_count(1)
    await page.get_by_role("link", name="Forget everything").click()
    await page.get_by_label("Type “forget everything” to confirm").fill("forget everything")
    await page.get_by_role("button", name="Forget every memory").click()
    await expect(page.get_by_role("status").first).to_have_text("Every memory is forgotten.")
    await expect(page.locator("#memory-list")).to_have_count(0)


@pytest.mark.parametrize("width", [1280, 390])
async def test_memory_pages_fit_the_screen(
    ingress_ui: UI, browsing: MakeBrowsing, width: int
) -> None:
    """The pages need no sideways scrolling on a desktop or a phone; screenshots kept for a look."""
    memory = await remember(ingress_ui.store, "A long memory " * 40, pinned=True)
    await remember(ingress_ui.store, "Guests stay until Sunday.", kind="event", importance=0.3,
                   expires_at=datetime.now(UTC) + timedelta(days=2))  # fmt: skip
    session = await browsing(viewport={"width": width, "height": 900}, is_mobile=width < 500)
    page = await session.open("/memories")
    for path in ("/memories", f"/memories/{memory.id}", "/memories/forget"):
        await page.goto(session.proxy.url(path))
        await page.wait_for_load_state("load")
        assert await page.evaluate("document.documentElement.scrollWidth") <= width, path
        name = path.strip("/").replace("/", "-")
        await page.screenshot(path=SCREENSHOTS / f"{name}-{width}.png", full_page=True)
    assert session.console_errors == []
    assert await session.csp_violations() == []
