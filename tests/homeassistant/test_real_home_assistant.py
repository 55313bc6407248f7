"""The real Home Assistant Core the add-on talks to: tokens, WebSocket, states, intents, restart.

The harness's own checks, on the newest release: every other real-HA module drives the same
harness on both (docs/DECISIONS.md, "Two Home Assistant versions").
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest

from devtools.home_assistant import HomeAssistantProcess
from tests.fixtures.homeassistant import FreshHomeAssistant

pytestmark = [pytest.mark.homeassistant, pytest.mark.newest_ha_only]
TIMEOUT_S = 15


async def websocket_exchange(
    process: HomeAssistantProcess, token: str, command: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Speak the WebSocket protocol by hand: every message received, ``auth_required`` first."""
    received: list[dict[str, Any]] = []
    async with (
        asyncio.timeout(TIMEOUT_S),
        aiohttp.ClientSession() as session,
        session.ws_connect(process.websocket_url) as ws,
    ):
        received.append(await ws.receive_json())
        await ws.send_json({"type": "auth", "access_token": token})
        received.append(await ws.receive_json())
        if command is not None and received[-1]["type"] == "auth_ok":
            await ws.send_json({"id": 1, **command})
            received.append(await ws.receive_json())
    return received


async def test_long_lived_token_authenticates_over_websocket(
    home_assistant: HomeAssistantProcess, ha_version: str
) -> None:
    """The long-lived token from onboarding gets ``auth_ok`` after ``auth_required``."""
    hello, auth = await websocket_exchange(home_assistant, home_assistant.token)

    assert (hello["type"], auth["type"]) == ("auth_required", "auth_ok")
    assert auth["ha_version"] == ha_version


async def test_get_states_lists_the_demo_home(home_assistant: HomeAssistantProcess) -> None:
    """``get_states`` returns the demo integration's 100+ entities, Kitchen Lights among them."""
    *_, result = await websocket_exchange(
        home_assistant, home_assistant.token, {"type": "get_states"}
    )

    entity_ids = {state["entity_id"] for state in result["result"]}
    assert result["success"] is True
    assert len(entity_ids) >= 100
    assert "light.kitchen_lights" in entity_ids


async def test_rest_states_match_the_websocket_view(home_assistant: HomeAssistantProcess) -> None:
    """``GET /api/states`` (the helper) sees the same Kitchen Lights entity."""
    states = await home_assistant.states()
    kitchen = await home_assistant.state("light.kitchen_lights")

    assert len(states) >= 100
    assert kitchen["attributes"]["friendly_name"] == "Kitchen Lights"


async def test_wrong_token_gets_auth_invalid(home_assistant: HomeAssistantProcess) -> None:
    """A token Home Assistant never issued is answered with ``auth_invalid``."""
    _, auth = await websocket_exchange(home_assistant, "not-a-token")

    assert auth["type"] == "auth_invalid"


async def test_hass_turn_on_switches_kitchen_lights_on(
    module_home_assistant: HomeAssistantProcess,
) -> None:
    """``POST /api/intent/handle`` HassTurnOn "Kitchen Lights" turns the light on."""
    home = module_home_assistant
    await home.request(
        "POST", "/api/services/light/turn_off", {"entity_id": "light.kitchen_lights"}
    )
    assert (await home.state("light.kitchen_lights"))["state"] == "off"

    response = await home.handle_intent("HassTurnOn", {"name": "Kitchen Lights"})

    assert response["response_type"] == "action_done"
    assert [target["id"] for target in response["data"]["success"]] == ["light.kitchen_lights"]
    assert (await home.state("light.kitchen_lights"))["state"] == "on"


async def test_restart_on_same_port_keeps_the_token_valid(
    fresh_home_assistant: FreshHomeAssistant,
) -> None:
    """After a kill and a start, Home Assistant is back on the same port and accepts the token."""
    home = fresh_home_assistant()
    port, token = home.port, home.token
    home.kill()

    await home.async_start()

    _, auth = await websocket_exchange(home, token)
    assert (home.port, auth["type"]) == (port, "auth_ok")


async def test_shopping_list_option_gives_hass_list_add_item_a_list(
    fresh_home_assistant: FreshHomeAssistant,
) -> None:
    """With ``shopping_list=True``, HassListAddItem adds to ``todo.shopping_list``."""
    home = fresh_home_assistant(shopping_list=True)

    response = await home.handle_intent(
        "HassListAddItem", {"item": "milk", "name": "Shopping List"}
    )

    assert [target["id"] for target in response["data"]["success"]] == ["todo.shopping_list"]
    assert (await home.state("todo.shopping_list"))["state"] == "1"


async def test_expose_entities_hides_an_entity_from_assist(
    module_home_assistant: HomeAssistantProcess,
) -> None:
    """``expose_entities(should_expose=False)`` removes the entity from Assist's exposed list."""
    home = module_home_assistant

    await home.expose_entities(["light.kitchen_lights"], should_expose=False)

    listed = await home.websocket_command({"type": "homeassistant/expose_entity/list"})
    assert "light.kitchen_lights" not in listed["exposed_entities"]
    assert "light.ceiling_lights" in listed["exposed_entities"]
