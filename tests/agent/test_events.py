"""The agent's events as Home Assistant receives them: ``fire_event`` commands on its WebSocket.

The whole app runs against the scripted Home Assistant server, which records every command it is
sent; it serves no home, so the model's only tool is ``GetDateTime``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from addon import keys
from addon.app import create_app
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.app import MakeSettings
from tests.ha.fake_ws_server import FakeConnection, FakeHomeAssistant

CONNECT_S = 5.0


@pytest.fixture
async def fake_ha() -> AsyncIterator[FakeHomeAssistant]:
    """A started scripted Home Assistant on loopback."""
    server = FakeHomeAssistant()
    await server.start()
    yield server
    await server.close()


@pytest.fixture
async def app(
    aiohttp_client: Callable[..., Any],
    make_settings: MakeSettings,
    fake_ha: FakeHomeAssistant,
    scripted_llm: ScriptedLLM,
) -> TestClient[Any, Any]:
    """The app connected to ``fake_ha`` and answering through the scripted model."""
    settings = make_settings(
        ha_url=fake_ha.rest_url.removesuffix("/api"),
        ha_token=fake_ha.token,
        llm_base_url=scripted_llm.base_url,
        llm_model="scripted-model",
    )
    client: TestClient[Any, Any] = await aiohttp_client(create_app(settings))
    await client.app[keys.HA_CLIENT].wait_connected(CONNECT_S)
    return client


def fired(fake_ha: FakeHomeAssistant) -> list[tuple[str, dict[str, Any]]]:
    """Every event the app fired, in the order Home Assistant received them."""
    return [
        (message["event_type"], message["event_data"])
        for connection in fake_ha.connections
        for message in connection.received
        if message.get("type") == "fire_event"
    ]


async def test_a_turn_fires_its_events_in_order(
    app: TestClient[Any, Any], fake_ha: FakeHomeAssistant, scripted_llm: ScriptedLLM
) -> None:
    """Started, tool progress around the call, tool executed, finished: in that order."""
    scripted_llm.tool_calls(("GetDateTime", {})).reply("It is nine.")
    body = await (await app.post("/api/conversation", json={"text": "What time is it?"})).json()
    await app.app[keys.AGENT].drain()
    events = fired(fake_ha)
    assert [(kind, data.get("status")) for kind, data in events] == [
        ("home_agent_conversation_started", None),
        ("home_agent_tool_progress", "started"),
        ("home_agent_tool_progress", "completed"),
        ("home_agent_tool_executed", None),
        ("home_agent_conversation_finished", None),
    ]
    assert {data["conversation_id"] for _, data in events} == {body["conversation_id"]}
    assert events[-1][1]["turn_id"] == body["turn_id"]


async def test_home_assistant_refusing_events_never_fails_a_turn(
    app: TestClient[Any, Any], fake_ha: FakeHomeAssistant, scripted_llm: ScriptedLLM
) -> None:
    """A token that may not fire events (not an admin) still gets every reply, and every try."""

    async def refuse(connection: FakeConnection, message: dict[str, Any]) -> None:
        await connection.error(message["id"], "unauthorized", "Unauthorized")

    fake_ha.handlers["fire_event"] = refuse
    scripted_llm.error(400, "model not loaded")  # not retried
    response = await app.post("/api/conversation", json={"text": "Tell me a joke"})
    await app.app[keys.AGENT].drain()
    assert response.status == 200
    assert (await response.json())["handled_by"] == "failed"
    assert [kind for kind, _ in fired(fake_ha)] == [
        "home_agent_conversation_started",
        "home_agent_error",
        "home_agent_conversation_finished",
    ]
