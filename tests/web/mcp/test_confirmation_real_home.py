"""``/mcp`` against the real Home Assistant 2025.4.4: unlocking the front door asks first."""

from __future__ import annotations

import pytest

from addon import keys
from devtools.home_assistant import HomeAssistantProcess
from tests.agent.test_agent_real_ha import wait_for_state
from tests.fixtures.app import MakeSettings
from tests.ha.waiting import until
from tests.web.api.conftest import TOKEN, AppClient, StartApp, on_direct_port
from tests.web.mcp.official import official_client

pytestmark = pytest.mark.homeassistant

LOCK = "lock.front_door"


async def _app(
    start_app: StartApp, make_settings: MakeSettings, home: HomeAssistantProcess
) -> AppClient:
    await home.expose_entities([LOCK])
    settings = make_settings(ha_url=home.url, ha_token=home.token, api_token=TOKEN)
    client: AppClient = await start_app(on_direct_port(settings))
    await until(lambda: client.app[keys.HOME_SYNC].model is not None)
    return client


async def test_converse_holds_the_unlock_until_the_next_turn_says_yes(
    start_app: StartApp, make_settings: MakeSettings, locks_home: HomeAssistantProcess
) -> None:
    """``converse`` answers with needs_confirmation; the conversation's next "yes" unlocks."""
    home = locks_home
    client = await _app(start_app, make_settings, home)
    async with official_client(client) as mcp:
        held = await mcp.call_tool("converse", {"text": "unlock the front door"})
        assert held.structured_content is not None
        asked = held.structured_content["needs_confirmation"]
        assert asked["actions"][0]["entity_ids"] == [LOCK]
        assert (await home.state(LOCK))["state"] == "locked"
        conversation_id = held.structured_content["conversation_id"]
        done = await mcp.call_tool("converse", {"text": "yes", "conversation_id": conversation_id})
    assert done.structured_content is not None
    assert done.structured_content["needs_confirmation"] is None
    await wait_for_state(home, LOCK, "unlocked")


async def test_an_intent_tool_called_over_mcp_is_held(
    start_app: StartApp, make_settings: MakeSettings, locks_home: HomeAssistantProcess
) -> None:
    """HassTurnOff on the lock called straight over MCP is held: a tool call never confirms."""
    home = locks_home
    client = await _app(start_app, make_settings, home)
    async with official_client(client) as mcp:
        result = await mcp.call_tool("HassTurnOff", {"name": "Front Door", "domain": ["lock"]})
    assert result.structured_content is not None
    assert "held_for_confirmation" in str(result.structured_content)
    await client.app[keys.AGENT].drain()
    assert (await home.state(LOCK))["state"] == "locked"
