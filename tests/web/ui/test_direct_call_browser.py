"""A tool an MCP client calls directly, as the panel lists it and traces it, in real Chromium.

Such a call runs no sentence matching and no model: nobody said "GetDateTime {}". A new user saw
it listed as if somebody had said that, and traced under "Local sentence match" (issue 23). The
call is made for real, with the official MCP client, into the app the browser looks at.
"""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.web.mcp.official import official_client
from tests.web.ui.conftest import UI, MakeBrowsing
from tests.web.ui.seed import T0, seed_turn

pytestmark = pytest.mark.browser
API_TOKEN = "api-token-secret-0123456789"
"""The ``api_token`` of the UI tests' settings: what an MCP client is given."""


async def call_get_date_time(ui: UI) -> str:
    """Call GetDateTime over /mcp as a client would; returns the conversation that records it."""
    async with official_client(ui.client, API_TOKEN) as client:
        result = await client.call_tool("GetDateTime", {})
    assert result.structured_content is not None
    await ui.store.writer.flush()
    return str(result.structured_content["conversation_id"])


async def test_the_list_shows_a_direct_call_as_a_tool_call(
    ingress_ui: UI, browsing: MakeBrowsing
) -> None:
    """The row names the tool and its arguments as code, with a "tool call" badge."""
    conversation_id = await call_get_date_time(ingress_ui)
    page = await (await browsing()).open("/conversations")
    row = page.locator("#conversation-list li").filter(has_text="GetDateTime")
    await expect(row.locator("a.row-title .mono")).to_have_text("GetDateTime {}")
    await expect(row.locator(".row-badges .badge.tool")).to_have_text("tool call")
    await expect(row.locator(".meta")).to_contain_text("mcp")
    await row.locator("a.row-title").click()
    await expect(page.locator("p.mono")).to_have_text(conversation_id)


async def test_the_answered_by_filter_lists_only_direct_calls(
    ingress_ui: UI, browsing: MakeBrowsing
) -> None:
    """The filter Answered by: tool call keeps the direct call and leaves a spoken turn out."""
    await call_get_date_time(ingress_ui)
    await seed_turn(ingress_ui.store, "spoken", "what time is it", "It is nine.", at=T0)
    page = await (await browsing()).open("/conversations")
    await page.get_by_label("Answered by").select_option(label="tool call")
    await page.get_by_role("button", name="Apply").click()
    rows = page.locator("#conversation-list li")
    await expect(rows).to_have_count(1)
    await expect(rows.first.locator("a.row-title")).to_have_text("GetDateTime {}")


async def test_the_trace_says_who_called_and_what_came_back(
    ingress_ui: UI, browsing: MakeBrowsing
) -> None:
    """The trace names the call, shows the tool's step and the answer; nothing was "heard"."""
    conversation_id = await call_get_date_time(ingress_ui)
    page = await (await browsing()).open(f"/conversations/{conversation_id}")
    await expect(page.locator("h1")).to_have_text("Tool call GetDateTime {}")
    turn = page.locator("li.turn")
    await expect(turn.locator(".badge.tool")).to_have_text("tool call")
    await expect(turn.locator(".step.direct-call .step-title")).to_have_text(
        "Called directly over MCP"
    )
    await expect(turn.locator(".step.tool .step-title")).to_contain_text("GetDateTime")
    await expect(turn.locator(".step.reply .step-title")).to_have_text("Answered the client")
    await expect(turn.locator(".step.reply pre")).to_contain_text('"date"')
    for absent in ("Heard", "Local sentence match", "Replied"):
        await expect(turn.locator(".step-title", has_text=absent)).to_have_count(0)
    for absent in ("Save as test", "Continue in chat"):
        await expect(page.get_by_role("link", name=absent)).to_have_count(0)
