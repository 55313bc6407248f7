"""A tool page's "Try it" in real Chromium, once per kind: every kind's run shape renders.

Only a REST answer has an HTTP status and headers; Home Assistant's kinds record a body alone
(status None), and a composite lists its steps. The page once compared a None status with 400
and answered 500 for every template tool (issue 23). Each kind runs for real (dry run off)
against the scripted Home Assistant, which answers the commands these kinds send as the real
one does, and a local endpoint for REST.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import yaml
from playwright.async_api import expect

from addon.store.tools import custom_tools as stored
from tests.ha.fake_ws_server import FakeConnection, FakeHomeAssistant
from tests.web.ui.conftest import UI, MakeBrowsing
from tests.web.ui.home import demo_home, serve_home
from tests.web.ui.test_tools import echo_server

pytestmark = pytest.mark.browser

__all__ = ["echo_server"]

TEMPERATURE = "sensor.outside_temperature"
KINDS: dict[str, str] = {
    "rest": """\
kind: rest
rest: {url: "URL/echo/Lisbon", result: {pointer: /city}}
""",
    "service": """\
kind: service
service: {action: light.turn_on, target: {entity_id: light.kitchen_lights}}
""",
    "script": """\
kind: script
script: {entity_id: script.forecast}
""",
    "template": f"""\
kind: template
template: {{template: "{{{{ states('{TEMPERATURE}') }}}}"}}
""",
    "history": f"""\
kind: history
history: {{entity_ids: [{TEMPERATURE}], period: 1h}}
""",
    "composite": f"""\
kind: composite
composite:
  steps:
    - {{name: outside, kind: template, template: {{template: "{{{{ states('{TEMPERATURE}') }}}}"}}}}
    - {{name: echo, kind: rest, rest: {{url: "URL/echo/{{{{ steps.outside }}}}"}}}}
""",
}
"""Each kind's settings; the name, description and parameters are the same for all."""
EXPECTED = {
    "rest": '"result": "Lisbon"',
    "service": '"result": "light.turn_on done"',
    "script": '"result": {',
    "template": '"result": "12.5"',
    "history": '"last": 12.5',
    "composite": '"city": "12.5"',
}
"""What the model receives, as the page shows it, per kind."""
HTTP_ANSWERS = frozenset({"rest", "composite"})
"""Kinds whose (last) answer is an HTTP response with a status: the composite ends in REST."""


FORECAST_SCRIPT = "script.forecast"
FORECAST_CONFIG = {
    "alias": "Forecast",
    "sequence": [
        {"variables": {"forecast": {"sky": "sunny"}}},
        {"stop": "Forecast ready", "response_variable": "forecast"},
    ],
}
"""What the script does, as ``script/config`` answers: nothing the confirmation policy covers.
A script whose effect cannot be read is held, in a try as in a turn."""


async def script_config(connection: FakeConnection, message: dict[str, Any]) -> None:
    """Home Assistant's ``script/config`` for the one script of this home."""
    await connection.result(message["id"], {"config": FORECAST_CONFIG})


@pytest.fixture
async def fake_home() -> AsyncIterator[FakeHomeAssistant]:
    """The demo home with an exposed script for the script kind: the gate runs only those."""
    data = demo_home()
    registry = {"entity_id": FORECAST_SCRIPT, "area_id": None, "platform": "script", "labels": []}
    data["entities"].append(registry)
    data["entity_details"][FORECAST_SCRIPT] = {**registry, "aliases": []}
    data["exposure"][FORECAST_SCRIPT] = {"conversation": True}
    data["states"][FORECAST_SCRIPT] = {"s": "off", "a": {"friendly_name": "Forecast"}}
    server = FakeHomeAssistant()
    serve_home(server, data)
    server.handlers["script/config"] = script_config
    await server.start()
    yield server
    await server.close()


async def render_template(connection: FakeConnection, message: dict[str, Any]) -> None:
    """Home Assistant's ``render_template``: a subscription whose first event is the text."""
    connection.subscriptions[message["id"]] = message
    await connection.result(message["id"])
    await connection.event(message["id"], {"result": "12.5", "listeners": {}})


async def history(connection: FakeConnection, message: dict[str, Any]) -> None:
    """``history/history_during_period`` in its minimal shape: states with their times."""
    rows = [{"s": "11.0", "lu": 1_700_000_000.0}, {"s": "12.5", "lu": 1_700_000_600.0}]
    await connection.result(message["id"], dict.fromkeys(message["entity_ids"], rows))


def definition(kind: str, server: Any) -> dict[str, Any]:
    """A tool of ``kind`` with no arguments, its URLs pointing at the local endpoint."""
    settings = KINDS[kind].replace("URL", str(server.make_url("")).rstrip("/"))
    data: dict[str, Any] = yaml.safe_load(settings)
    return {"name": f"try_{kind}", "description": f"A {kind} tool to try.", **data}


@pytest.mark.parametrize("kind", list(KINDS))
async def test_try_it_shows_every_kinds_run(
    ingress_ui: UI,
    browsing: MakeBrowsing,
    fake_home: FakeHomeAssistant,
    echo_server: Any,
    kind: str,
) -> None:
    """Run from the tool's page (dry run off) shows the result, request and response, no 500."""
    fake_home.handlers["render_template"] = render_template
    fake_home.handlers["history/history_during_period"] = history
    async with ingress_ui.store.sessionmaker.begin() as session:
        tool = await stored.save_tool(session, definition(kind, echo_server))
    session_ = await browsing()
    page = await session_.open(f"/tools/{tool.id}")
    await page.locator("#try-form").get_by_label("Dry run", exact=False).uncheck()
    await page.get_by_role("button", name="Run").click()
    result = page.locator("#try-result")
    await expect(result).to_be_visible()
    await expect(result.locator(".badge.confirmed")).to_have_text("ok")
    await expect(page.locator("#try-model-result")).to_contain_text(EXPECTED[kind])
    await expect(page.locator("#try-request")).to_be_visible()
    await expect(page.locator("#try-response-body")).to_be_visible()
    status = page.locator("#try-response-status")
    if kind in HTTP_ANSWERS:
        await expect(status).to_have_text("200")
    else:  # Home Assistant's kinds have no HTTP status to show
        await expect(status).to_have_count(0)
    assert session_.console_errors == []
    assert await session_.csp_violations() == []


GET_ATTRIBUTES = """\
- spec:
    name: get_attributes
    description: Get attributes of any home assistant entity
    parameters:
      type: object
      properties:
        entity_id: {type: string, description: entity_id}
      required: [entity_id]
  function:
    type: template
    value_template: "{{states[entity_id]}}"
"""
"""Extended OpenAI's own example, as its README gives it."""


async def test_the_imported_get_attributes_can_be_tried(
    ingress_ui: UI, browsing: MakeBrowsing, fake_home: FakeHomeAssistant
) -> None:
    """Imported from Extended OpenAI's YAML, ``get_attributes`` runs from its page, no 500."""
    fake_home.handlers["render_template"] = render_template
    session = await browsing()
    page = await session.open("/tools")
    await page.get_by_label("Functions YAML").fill(GET_ATTRIBUTES)
    await page.get_by_role("button", name="Import").click()
    await page.get_by_role("link", name="get_attributes").click()
    await page.get_by_label("entity_id (required)").fill(TEMPERATURE)
    await page.get_by_role("button", name="Run").click()
    await expect(page.locator("#try-model-result")).to_contain_text('"result": "12.5"')
    await expect(page.locator("#try-request")).to_contain_text(TEMPERATURE)
    assert session.console_errors == []
