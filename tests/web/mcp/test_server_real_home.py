"""``/mcp`` against the real Home Assistant 2025.4.4: intent tools act, unexposed entities not."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from addon import keys
from devtools.home_assistant import HomeAssistantProcess
from tests.fixtures.app import MakeSettings
from tests.ha.waiting import until
from tests.web.api.conftest import TOKEN, AppClient, StartApp, on_direct_port
from tests.web.mcp.official import official_client

pytestmark = pytest.mark.homeassistant

FreshHomeAssistant = Callable[..., HomeAssistantProcess]


async def _app(
    start_app: StartApp, make_settings: MakeSettings, home: HomeAssistantProcess
) -> AppClient:
    settings = make_settings(ha_url=home.url, ha_token=home.token, api_token=TOKEN)
    client: AppClient = await start_app(on_direct_port(settings))
    await until(lambda: client.app[keys.HOME_SYNC].model is not None)
    return client


async def test_intent_tool_acts_on_the_real_home(
    start_app: StartApp, make_settings: MakeSettings, module_home_assistant: HomeAssistantProcess
) -> None:
    """HassTurnOff called over MCP turns the demo's ceiling lights off in Home Assistant."""
    home = module_home_assistant
    await home.handle_intent("HassTurnOn", {"name": "Ceiling Lights"})
    client = await _app(start_app, make_settings, home)
    async with official_client(client) as mcp:
        result = await mcp.call_tool("HassTurnOff", {"name": "Ceiling Lights"})
    assert result.is_error is False
    async with asyncio.timeout(10):
        while (await home.state("light.ceiling_lights"))["state"] != "off":  # noqa: ASYNC110
            await asyncio.sleep(0.1)


async def test_an_unexposed_entity_is_refused(
    start_app: StartApp, make_settings: MakeSettings, module_home_assistant: HomeAssistantProcess
) -> None:
    """An entity hidden from Assist is not found over MCP either, and is left as it was."""
    home = module_home_assistant
    await home.expose_entities(["light.bed_light"], should_expose=False)
    client = await _app(start_app, make_settings, home)
    before = (await home.state("light.bed_light"))["state"]
    async with official_client(client) as mcp:
        by_name = await mcp.call_tool("HassToggle", {"name": "Bed Light"})
        by_id = await mcp.call_tool("HassToggle", {"name": "light.bed_light"})
    assert by_name.is_error is True
    assert by_id.is_error is True
    await client.app[keys.AGENT].drain()
    assert (await home.state("light.bed_light"))["state"] == before
