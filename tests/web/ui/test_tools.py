"""The Custom tools pages: list, editor with problems at their lines, try it, versions, import."""

from __future__ import annotations

import re
from typing import Any

import pytest
from aiohttp import web

from tests.web.ui.conftest import UI
from tests.web.ui.html import misplaced_urls, parse

SECRET = "sEcReT-value-never-shown-0123"

ECHO_TOOL = """\
name: echo_city
description: Echo a city through a local endpoint.
parameters:
  type: object
  properties:
    city: {type: string, description: City name}
    days: {type: integer}
    units: {type: string, enum: [metric, imperial]}
  required: [city]
kind: rest
timeout: 5
rest:
  method: GET
  url: "URL/echo/{{ city }}"
  headers: {Authorization: "Bearer {{ secrets.api_key }}"}
  result: {pointer: /city}
"""


@pytest.fixture
async def echo_server(aiohttp_server: Any) -> Any:
    """A local endpoint answering JSON with what it was asked and the auth header it got."""

    async def echo(request: web.Request) -> web.Response:
        return web.json_response(
            {"city": request.match_info["city"], "auth": request.headers.get("Authorization")}
        )

    app = web.Application()
    app.router.add_get("/echo/{city}", echo)
    return await aiohttp_server(app)


def echo_source(server: Any) -> str:
    return ECHO_TOOL.replace("URL", str(server.make_url("")).rstrip("/"))


async def create(ui: UI, source: str) -> int:
    """Create a tool through the editor form; return its id."""
    response = await ui.post("/tools/new", {"source": source})
    assert response.status == 303, await response.text()
    match = re.search(r"/tools/(\d+)\?", response.headers["Location"])
    assert match, response.headers["Location"]
    return int(match.group(1))


async def test_list_links_to_each_tool(ui: UI, echo_server: Any) -> None:
    """The list shows the tool's name, kind and state, linked under the prefix."""
    tool_id = await create(ui, echo_source(echo_server))
    html = await ui.page("/tools")
    page = parse(html)
    assert "echo_city" in page.text
    assert "rest" in page.text
    assert f"{ui.prefix}/tools/{tool_id}" in [ref.url for ref in page.references]
    assert misplaced_urls(html, ui.prefix) == []


async def test_invalid_definition_shows_problem_at_its_line(ui: UI) -> None:
    """A refused save comes back 422 with the problem placed at the line of its key."""
    source = "name: bad tool\ndescription: x\nkind: rest\nrest:\n  url: ftp://x\n"
    response = await ui.post("/tools/new", {"source": source})
    assert response.status == 422
    html = await response.text()
    assert re.search(r'<li data-line="4">[^\n]*the URL must start with http', html)
    assert re.search(r'<li data-line="1">[^\n]*>name<', html)


async def test_yaml_syntax_error_names_its_line(ui: UI) -> None:
    """Text that is not YAML is refused with the line the parser stopped at."""
    response = await ui.post("/tools/new", {"source": "name: x\nkind: [rest\ndescription: y\n"})
    assert response.status == 422
    assert "not valid YAML or JSON" in parse(await response.text()).text
