"""The agent inside the app against the real Home Assistant 2025.4.4: real states, real events."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from addon import keys
from addon.agent.conversation import ConversationRequest
from addon.agent.spoken import reply_tail
from addon.home.actions.live import LiveExecutor
from addon.store.models import Turn
from devtools.home_assistant import HomeAssistantProcess
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.app import MakeApp, MakeSettings
from tests.fixtures.homeassistant import settle_to
from tests.ha.waiting import until

pytestmark = pytest.mark.homeassistant

FreshHomeAssistant = Callable[..., HomeAssistantProcess]
AGENT_EVENTS = (
    "home_agent_conversation_started",
    "home_agent_tool_progress",
    "home_agent_tool_executed",
    "home_agent_conversation_finished",
)


@contextlib.asynccontextmanager
async def home_events(
    home: HomeAssistantProcess, *event_types: str
) -> AsyncIterator[list[dict[str, Any]]]:
    """Collect events of the given types from Home Assistant's own bus while the block runs."""
    seen: list[dict[str, Any]] = []
    async with aiohttp.ClientSession() as session, session.ws_connect(home.websocket_url) as ws:
        await ws.receive_json()
        await ws.send_json({"type": "auth", "access_token": home.token})
        await ws.receive_json()
        for number, event_type in enumerate(event_types, start=1):
            await ws.send_json({"id": number, "type": "subscribe_events", "event_type": event_type})
            await ws.receive_json()

        async def pump() -> None:
            async for message in ws:
                data = message.json()
                if data.get("type") == "event":
                    seen.append(data["event"])

        task = asyncio.create_task(pump())
        try:
            yield seen
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def started_app(
    aiohttp_client: Callable[..., Any], app: web.Application
) -> TestClient[Any, Any]:
    client: TestClient[Any, Any] = await aiohttp_client(app)
    await client.server.app[keys.HOME_SYNC].wait_ready(20.0)
    return client


async def wait_for_state(home: HomeAssistantProcess, entity_id: str, state: str) -> None:
    async with asyncio.timeout(10):
        while (await home.state(entity_id))["state"] != state:  # noqa: ASYNC110 - polls HA
            await asyncio.sleep(0.1)


async def test_model_tool_call_changes_the_real_home_and_is_confirmed(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    module_home_assistant: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> None:
    """HassTurnOff from the model turns the demo light off; the outcome check confirms it."""
    home = module_home_assistant
    settings = make_settings(
        ha_url=home.url,
        ha_token=home.token,
        llm_base_url=scripted_llm.base_url,
        llm_model="scripted-model",
        local_first=False,
    )
    client = await started_app(aiohttp_client, make_app(settings))
    agent = client.server.app[keys.AGENT]
    agent.outcome_delay = 0.5
    await home.handle_intent("HassTurnOn", {"name": "Kitchen Lights"})
    scripted_llm.tool_calls(("HassTurnOff", {"name": "Kitchen Lights", "domain": ["light"]}))
    scripted_llm.reply("The kitchen lights are off.")
    async with home_events(home, *AGENT_EVENTS) as seen:
        result = await agent.process(ConversationRequest("kitchen lights off", source="http"))
        await agent.drain()
        await until(lambda: any(e["event_type"] == AGENT_EVENTS[-1] for e in seen))
    await wait_for_state(home, "light.kitchen_lights", "off")
    assert result.reply == "The kitchen lights are off."
    assert [e["event_type"] for e in seen] == [
        "home_agent_conversation_started",
        "home_agent_tool_progress",
        "home_agent_tool_progress",
        "home_agent_tool_executed",
        "home_agent_conversation_finished",
    ]
    finished = seen[-1]
    assert finished["data"]["turn_id"] == result.turn_id
    assert finished["data"]["handled_by"] == "llm"
    await client.server.app[keys.STORE].writer.flush()
    async with client.server.app[keys.STORE].sessionmaker() as session:
        turn = await session.get(Turn, result.turn_id)
    assert turn is not None
    assert (turn.outcome, turn.flagged) == ("confirmed", False)


async def test_local_command_acts_on_the_real_home(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    module_home_assistant: HomeAssistantProcess,
) -> None:
    """With no model at all, Home Assistant's sentences still control the real home."""
    home = module_home_assistant
    client = await started_app(
        aiohttp_client, make_app(make_settings(ha_url=home.url, ha_token=home.token))
    )
    agent = client.server.app[keys.AGENT]
    await home.handle_intent("HassTurnOn", {"name": "Ceiling Lights"})
    result = await agent.process(ConversationRequest("turn off the ceiling lights", source="http"))
    assert result.handled_by == "local"
    await wait_for_state(home, "light.ceiling_lights", "off")


async def test_unexposed_entity_is_never_acted_on(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    module_home_assistant: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
) -> None:
    """A model naming an unexposed entity by name or id gets an error; the entity is untouched."""
    home = module_home_assistant
    await home.expose_entities(["light.bed_light"], should_expose=False)
    settings = make_settings(
        ha_url=home.url,
        ha_token=home.token,
        llm_base_url=scripted_llm.base_url,
        llm_model="scripted-model",
        local_first=False,
    )
    client = await started_app(aiohttp_client, make_app(settings))
    agent = client.server.app[keys.AGENT]
    before = (await home.state("light.bed_light"))["state"]
    scripted_llm.tool_calls(
        ("HassToggle", {"name": "Bed Light"}),
        ("HassTurnOff", {"name": "Bed Light"}),
        ("HassTurnOff", {"name": "light.bed_light"}),
    ).reply("I can't reach that light.")
    result = await agent.process(ConversationRequest("bed light off", source="http"))
    await agent.drain()
    assert isinstance(agent.live_executor, LiveExecutor)
    # Any call that went out has been answered, so Home Assistant has already applied it.
    await agent.live_executor.drain()
    assert (await home.state("light.bed_light"))["state"] == before
    assert not any(action.success for action in result.actions)


async def test_a_call_written_as_text_changes_the_real_home(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    fresh_home_assistant: FreshHomeAssistant,
    scripted_llm: ScriptedLLM,
) -> None:
    """A Hermes ``<tool_call>`` in the text turns the real light off; only the answer is heard."""
    home = fresh_home_assistant()
    settings = make_settings(
        ha_url=home.url,
        ha_token=home.token,
        llm_base_url=scripted_llm.base_url,
        llm_model="scripted-model",
        local_first=False,
    )
    client = await started_app(aiohttp_client, make_app(settings))
    agent = client.server.app[keys.AGENT]
    off = {"name": "Kitchen Lights", "domain": ["light"]}
    scripted_llm.text_calls("hermes", ("HassTurnOff", off), think="They want it dark.")
    scripted_llm.reply("The kitchen lights are off.")
    heard: list[str] = []

    async def sink(text: str) -> None:
        heard.append(text)

    result = await agent.process(ConversationRequest("kitchen off", source="http"), on_text=sink)
    await wait_for_state(home, "light.kitchen_lights", "off")
    assert result.reply == "".join(heard) == "The kitchen lights are off."


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_a_claimed_unlock_of_an_unexposed_door_is_corrected_and_failed(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    module_home_assistant: HomeAssistantProcess,
    scripted_llm: ScriptedLLM,
    streamed: bool,
) -> None:
    """The model says the door is unlocked after its call failed: the person hears the truth.

    Home Assistant's sentence for the failure is said instead, never the claim, even to a
    listener hearing the reply as it streams; the turn is failed (stored with its error and
    outcome, announced with the error, on the dashboard's failures, found by the error filter,
    badged in the trace), and the door is still locked.
    """
    home = module_home_assistant
    await settle_to(home, "lock.front_door", "lock", "locked")
    await home.expose_entities(["lock.front_door"], should_expose=False)
    settings = make_settings(
        ha_url=home.url,
        ha_token=home.token,
        llm_base_url=scripted_llm.base_url,
        llm_model="scripted-model",
        local_first=False,
    )
    client = await started_app(aiohttp_client, make_app(settings))
    agent = client.server.app[keys.AGENT]
    scripted_llm.tool_calls(("HassTurnOff", {"name": "Front Door", "domain": ["lock"]}))
    scripted_llm.reply("The front door is unlocked.")
    heard: list[str] = []

    async def sink(chunk: str) -> None:
        heard.append(chunk)

    async with home_events(
        home, "home_agent_tool_executed", "home_agent_conversation_finished"
    ) as seen:
        result = await agent.process(
            ConversationRequest("unlock the front door", source="http"),
            on_text=sink if streamed else None,
        )
        await agent.drain()
        await until(lambda: len(seen) == 2)
    assert result.reply == "Sorry, Front Door is not exposed"
    assert seen[0]["event_type"] == "home_agent_tool_executed"
    assert seen[0]["data"]["success"] is False  # it ran, but did not do what was asked
    # What a streaming endpoint sends: what was streamed, then the rest of the reply.
    streamed_text = "".join(heard)
    assert streamed_text + reply_tail(streamed_text, result.reply) == result.reply
    assert result.error is not None
    assert seen[-1]["data"]["error"] == result.error
    assert seen[-1]["data"]["actions_failed"] is True
    await client.server.app[keys.STORE].writer.flush()
    async with client.server.app[keys.STORE].sessionmaker() as session:
        turn = await session.get(Turn, result.turn_id)
    assert turn is not None
    assert (turn.outcome, turn.error) == ("failed", result.error)
    ingress = {"X-Ingress-Path": "/api/hassio_ingress/x"}
    dashboard = await (await client.get("/", headers=ingress)).text()
    start, end = dashboard.index('id="failures-title"'), dashboard.index('id="flags-title"')
    failures = dashboard[start:end]
    assert "unlock the front door" in failures
    with_errors = await (await client.get("/conversations?error=1", headers=ingress)).text()
    assert result.conversation_id in with_errors
    trace = await (
        await client.get(f"/conversations/{result.conversation_id}", headers=ingress)
    ).text()
    step = '<span class="mono">HassTurnOff</span> <span class="badge live">live</span>'
    assert f'{step} <span class="badge failed">failed</span>' in trace
    assert 'title="Nothing the turn tried to do happened">failed</span>' in trace
    assert "The front door is unlocked." in trace  # the model's own words stay in the trace
    await wait_for_state(home, "lock.front_door", "locked")
