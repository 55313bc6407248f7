"""The MCP servers page: add a server, see its tools and state, switch a tool, the secret kept."""

from __future__ import annotations

import re

from addon import keys
from addon.store.tools import mcp_servers as stored
from tests.mcp_client.notes_server import TOKEN as NOTES_TOKEN
from tests.mcp_client.notes_server import notes_server
from tests.web.ui.conftest import UI


async def test_adding_a_server_lists_its_tools(ui: UI) -> None:
    """A server added with a bearer token answers; its tools are listed, the token is not."""
    async with notes_server() as notes:
        response = await ui.post(
            "/mcp-servers", {"name": "notes", "url": notes.url, "token": NOTES_TOKEN}
        )
        assert response.status == 303
        page = await ui.page("/mcp-servers")
    assert 'data-state="up"' in page
    assert "add_note" in page
    assert "notes__add_note" in page
    assert NOTES_TOKEN not in page


async def test_switching_a_tool_on_is_stored(ui: UI) -> None:
    """The switch of one tool turns it on for that server alone."""
    async with ui.store.sessionmaker.begin() as session:
        server = await stored.add_server(session, name="notes", url="http://127.0.0.1:9/mcp")
    response = await ui.post(
        f"/mcp-servers/{server.id}/tool", {"tool": "add_note", "enabled": "on"}
    )
    assert response.status == 303
    async with ui.store.sessionmaker() as session:
        (listed,) = await stored.list_servers(session)
    assert listed.enabled_tools == {"add_note"}


async def test_a_server_that_does_not_answer_shows_as_down(ui: UI) -> None:
    """A server nobody listens for is added, shown down with the reason."""
    response = await ui.post("/mcp-servers", {"name": "gone", "url": "http://127.0.0.1:9/mcp"})
    assert response.status == 303
    page = await ui.page("/mcp-servers")
    assert 'data-state="down"' in page
    assert ui.client.app[keys.MCP_HUB].status(1).state == "down"


async def test_a_bad_name_is_refused_with_the_reason(ui: UI) -> None:
    """A name that cannot prefix tool names is refused on the page, nothing stored."""
    response = await ui.post("/mcp-servers", {"name": "My Server", "url": "http://h/mcp"})
    assert response.status == 422
    assert "lowercase" in await response.text()


async def test_credentials_in_a_servers_url_are_not_shown(ui: UI) -> None:
    """Userinfo and a ``?key=`` in the URL are secrets: the page shows neither."""
    url = "http://bob:pw-in-url-77@127.0.0.1:9/mcp?key=url-key-9911"
    response = await ui.post("/mcp-servers", {"name": "keyed", "url": url})
    assert response.status == 303
    page = await ui.page("/mcp-servers")
    assert "pw-in-url-77" not in page
    assert "url-key-9911" not in page
    assert "127.0.0.1:9/mcp" in page


async def test_a_refused_form_does_not_echo_url_credentials(ui: UI) -> None:
    """The form shown again after a refusal masks the URL's password."""
    url = "http://bob:pw-in-form-55@h/mcp"
    response = await ui.post("/mcp-servers", {"name": "Bad Name", "url": url})
    assert response.status == 422
    assert "pw-in-form-55" not in await response.text()


async def test_a_server_gone_down_says_so_in_sentences(ui: UI) -> None:
    """A down server's reason ends with a full stop before its tools are said to be withheld."""
    async with notes_server() as notes:
        response = await ui.post(
            "/mcp-servers", {"name": "notes", "url": notes.url, "token": NOTES_TOKEN}
        )
        assert response.status == 303
    await ui.client.app[keys.MCP_HUB].refresh(1)
    page = await ui.page("/mcp-servers")
    assert 'data-state="down"' in page
    assert re.search(r"[.!?] Its tools are withheld from the model until it answers\.", page)
