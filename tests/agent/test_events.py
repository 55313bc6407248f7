"""The agent's events as Home Assistant receives them: ``fire_event`` commands on its WebSocket.

The whole app runs against the scripted Home Assistant server, which records every command it is
sent; it serves no home, so the model's only tool is ``GetDateTime``.
"""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient

from addon import keys
from devtools.scripted_llm import ScriptedLLM
from tests.ha.fake_ws_server import FakeConnection, FakeHomeAssistant


def fired(fake_ha: FakeHomeAssistant) -> list[tuple[str, dict[str, Any]]]:
    """Every event the app fired, in the order Home Assistant received them."""
    return [
        (message["event_type"], message["event_data"])
        for connection in fake_ha.connections
        for message in connection.received
        if message.get("type") == "fire_event"
    ]


async def test_a_turn_fires_its_events_in_order(
    ha_app: TestClient[Any, Any], fake_ha: FakeHomeAssistant, scripted_llm: ScriptedLLM
) -> None:
    """Started, tool progress around the call, tool executed, finished: in that order."""
    scripted_llm.tool_calls(("GetDateTime", {})).reply("It is nine.")
    body = await (await ha_app.post("/api/conversation", json={"text": "What time is it?"})).json()
    await ha_app.app[keys.AGENT].drain()
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
    ha_app: TestClient[Any, Any], fake_ha: FakeHomeAssistant, scripted_llm: ScriptedLLM
) -> None:
    """A token that may not fire events (not an admin) still gets every reply, and every try."""

    async def refuse(connection: FakeConnection, message: dict[str, Any]) -> None:
        await connection.error(message["id"], "unauthorized", "Unauthorized")

    fake_ha.handlers["fire_event"] = refuse
    scripted_llm.error(400, "model not loaded")  # not retried
    response = await ha_app.post("/api/conversation", json={"text": "Tell me a joke"})
    await ha_app.app[keys.AGENT].drain()
    assert response.status == 200
    assert (await response.json())["handled_by"] == "failed"
    assert [kind for kind, _ in fired(fake_ha)] == [
        "home_agent_conversation_started",
        "home_agent_error",
        "home_agent_conversation_finished",
    ]
