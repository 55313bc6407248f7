"""Home Agent over Wyoming against the real Home Assistant 2025.4.4, up to its own integration.

Commands act on the real home, and Home Assistant's ``wyoming`` integration, set up through its
config flow, uses Home Agent as a conversation agent end to end.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from addon import keys
from devtools.home_assistant import HomeAssistantProcess
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.llm import spoken
from tests.wyoming.conftest import StartApp, converse, final, wyoming_port

pytestmark = pytest.mark.homeassistant
TIMEOUT_S = 30.0


async def start_for(
    start_app: StartApp, home: HomeAssistantProcess, **options: Any
) -> TestClient[Any, Any]:
    """The app linked to ``home``, once it has the home's model (so commands can resolve)."""
    client = await start_app(ha_url=home.url, ha_token=home.token, **options)
    await client.server.app[keys.HOME_SYNC].wait_ready(TIMEOUT_S)
    return client


async def until_state(home: HomeAssistantProcess, entity_id: str, wanted: str) -> None:
    """Return once ``entity_id`` is ``wanted``; TimeoutError if it never gets there."""
    async with asyncio.timeout(TIMEOUT_S):
        while (await home.state(entity_id))["state"] != wanted:  # noqa: ASYNC110 - polled REST
            await asyncio.sleep(0.1)


async def add_wyoming_integration(home: HomeAssistantProcess, port: int) -> str:
    """Add Home Assistant's Wyoming integration for our server; the conversation entity's id.

    Entries an earlier test added (for a server since stopped) are removed first, so the agent
    found is this server's: the home is shared by the module's tests.
    """
    entries = "/api/config/config_entries/entry"
    for entry in await home.request("GET", f"{entries}?domain=wyoming"):
        await home.request("DELETE", f"{entries}/{entry['entry_id']}")
    flows = "/api/config/config_entries/flow"
    flow = await home.request("POST", flows, {"handler": "wyoming"})
    entry = await home.request(
        "POST", f"{flows}/{flow['flow_id']}", {"host": "127.0.0.1", "port": port}
    )
    assert entry["type"] == "create_entry", entry
    async with asyncio.timeout(TIMEOUT_S):
        while True:
            agents = [
                state["entity_id"]
                for state in await home.states()
                if state["entity_id"].startswith("conversation.")
                and state["attributes"].get("friendly_name") == "Home Agent"
            ]
            if agents:
                return agents[0]
            await asyncio.sleep(0.1)


async def test_local_command_acts_on_the_real_home(
    module_home_assistant: HomeAssistantProcess, start_app: StartApp, scripted_llm: ScriptedLLM
) -> None:
    """A sentence Home Assistant's matcher knows is carried out locally, without the model."""
    home = module_home_assistant
    await home.handle_intent("HassTurnOff", {"name": "Kitchen Lights"})
    client = await start_for(start_app, home)
    events = await converse(wyoming_port(client), "turn on the kitchen lights")
    assert final(events).data["text"] == "Turned on the light"
    await until_state(home, "light.kitchen_lights", "on")
    assert scripted_llm.chat_requests == []


async def test_a_german_transcript_acts_through_german_sentences(
    module_home_assistant: HomeAssistantProcess, start_app: StartApp, scripted_llm: ScriptedLLM
) -> None:
    """An English-configured agent acts on a German transcript through German sentences."""
    home = module_home_assistant
    await home.handle_intent("HassTurnOn", {"name": "Kitchen Lights"})
    client = await start_for(start_app, home, language="en")
    events = await converse(wyoming_port(client), "schalte Kitchen Lights aus", language="de")
    assert final(events).type == "handled"
    assert "ausgeschaltet" in final(events).data["text"].lower()
    await until_state(home, "light.kitchen_lights", "off")
    assert scripted_llm.chat_requests == []


async def test_home_assistant_uses_home_agent_as_its_conversation_agent(
    module_home_assistant: HomeAssistantProcess, start_app: StartApp, scripted_llm: ScriptedLLM
) -> None:
    """Through HA's own Wyoming integration, the model's HassTurnOff switches the light off."""
    home = module_home_assistant
    await home.handle_intent("HassTurnOn", {"name": "Kitchen Lights"})
    # local_first off: the sentence must reach the model, whose tool call is what we follow.
    client = await start_for(start_app, home, local_first=False)
    agent_id = await add_wyoming_integration(home, wyoming_port(client))
    scripted_llm.tool_calls(("HassTurnOff", {"name": "Kitchen Lights"})).reply(
        "The kitchen lights are off now."
    )
    answer = await home.request(
        "POST",
        "/api/conversation/process",
        {"text": "turn off the kitchen lights please, thanks", "agent_id": agent_id},
    )
    assert answer["response"]["speech"]["plain"]["speech"] == "The kitchen lights are off now."
    assert answer["response"]["response_type"] == "action_done"
    await until_state(home, "light.kitchen_lights", "off")
    assert spoken(scripted_llm.chat_requests[0].messages)[-1]["content"] == (
        "turn off the kitchen lights please, thanks"
    )


async def home_assistants_answer(home: HomeAssistantProcess, text: str, device_id: str) -> str:
    """What Home Assistant's own agent says to ``text`` from ``device_id`` (asked directly)."""
    message: dict[str, Any] = {
        "type": "conversation/process",
        "text": text,
        "language": "en",
        "agent_id": "conversation.home_assistant",
    }
    if not home.version.startswith("2025.4"):
        message["device_id"] = device_id  # 2025.4's command takes no device id
    answer = await home.websocket_command(message)
    return str(answer["response"]["speech"]["plain"]["speech"])


@pytest.mark.parametrize(
    "text", ["set a timer for 5 minutes", "in 10 minutes turn off the kitchen lights"]
)
async def test_a_timer_is_handed_to_home_assistant_with_the_device_that_heard_it(
    module_home_assistant: HomeAssistantProcess,
    start_app: StartApp,
    scripted_llm: ScriptedLLM,
    text: str,
) -> None:
    """Timers run on the satellite that heard them: only Home Assistant's agent can start one.

    The transcript's device goes with the sentence, and the person hears Home Assistant's own
    answer: the timer started (a command to run later needs no device), or its own reason it
    cannot (a device with no timers). Before, the sentence went to the model, which has no
    timers.
    """
    home = module_home_assistant
    devices = await home.websocket_command({"type": "config/device_registry/list"})
    device_id = str(devices[0]["id"])
    client = await start_for(start_app, home)
    events = await converse(
        wyoming_port(client), text, context={"device_id": device_id}, language="en"
    )
    heard = final(events).data["text"]
    assert heard == await home_assistants_answer(home, text, device_id)
    assert scripted_llm.chat_requests == []
