"""Custom tools through the agent: offered each turn, called, traced with secrets masked."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer
from sqlalchemy import select

from addon.agent.outcome import ActingTarget, acting_targets
from addon.custom_tools.runner import Runner
from addon.store.database import Store
from addon.store.models import ToolCall
from addon.tools.base import ActedTarget
from addon.tools.custom import CustomToolProvider
from addon.tools.home_tools import builtin_tool_names
from addon.tools.registry import ToolOutcome
from addon.tools.result import ToolResult
from devtools.scripted_llm import ScriptedLLM
from tests.custom_tools.servers import TOKEN, Api, api_app
from tests.fixtures.agent import MakeAgent, RecordedEvents, ask


@dataclass(slots=True)
class ListSource:
    """Definitions and secrets held in memory, changed by the test between turns."""

    definitions: list[Mapping[str, Any]] = field(default_factory=list)
    secret_values: dict[str, str] = field(default_factory=dict)

    async def enabled(self) -> list[Mapping[str, Any]]:
        return [d for d in self.definitions if d.get("enabled", True)]

    async def secrets(self) -> Mapping[str, str]:
        return self.secret_values


def weather_tool(port: int, name: str = "get_weather") -> dict[str, Any]:
    return {
        "name": name,
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "required": ["city"],
            "properties": {"city": {"type": "string", "description": "City name"}},
        },
        "kind": "rest",
        "rest": {
            "url": f"http://127.0.0.1:{port}/weather/{{{{ city | urlencode }}}}",
            "headers": {"Authorization": "Bearer {{ secrets.token }}"},
        },
    }


@pytest.fixture
async def api_server(aiohttp_server: Any) -> TestServer:
    server: TestServer = await aiohttp_server(api_app(Api()))
    return server


@pytest.fixture
async def runner() -> AsyncIterator[Runner]:
    async with aiohttp.ClientSession() as session:
        yield Runner(session=session, port=None)


async def test_the_model_calls_a_custom_tool_and_the_trace_keeps_it_masked(
    make_agent: MakeAgent,
    scripted_llm: ScriptedLLM,
    runner: Runner,
    api_server: TestServer,
    store: Store,
) -> None:
    """End to end: the call reaches the API; trace, events and the model never see the token."""
    source = ListSource([weather_tool(api_server.port)], {"token": TOKEN})
    events = RecordedEvents()
    agent = make_agent(llm=scripted_llm, local_first=False, events=events)
    agent.custom_tools = CustomToolProvider(source, runner, builtin_tool_names())
    scripted_llm.tool_calls(("get_weather", {"city": "Utrecht"})).reply("21.5 degrees and clear.")
    result = await agent.process(ask("what is the weather in Utrecht"))
    assert result.reply == "21.5 degrees and clear."
    tool_message = scripted_llm.chat_requests[1].messages[-1]
    assert json.loads(tool_message["content"])["result"]["temp"] == 21.5
    await agent.drain()
    await store.writer.flush()
    async with store.sessionmaker() as session:
        stored = (await session.execute(select(ToolCall))).scalars().one()
    assert stored.executor == "custom"
    detail = stored.result["custom_tool"]
    assert detail["request"]["url"].endswith("/weather/Utrecht")
    assert detail["response"]["status"] == 200
    everything = json.dumps(stored.result) + json.dumps(events.fired, default=str)
    everything += json.dumps([r.body for r in scripted_llm.chat_requests])
    assert TOKEN not in everything
    executed = [data for kind, data in events.fired if kind == "home_agent_tool_executed"]
    assert executed[0]["detail"]["request"]["headers"]["Authorization"].startswith("Bearer ••")


async def test_an_enabled_tool_joins_the_next_turn(
    make_agent: MakeAgent, scripted_llm: ScriptedLLM, runner: Runner, api_server: TestServer
) -> None:
    """No restart: a definition added between turns is offered on the next one."""
    source = ListSource()
    agent = make_agent(llm=scripted_llm, local_first=False)
    agent.custom_tools = CustomToolProvider(source, runner, builtin_tool_names())
    scripted_llm.reply("Hello.").reply("Hello again.")
    await agent.process(ask("hi"))
    source.definitions.append(weather_tool(api_server.port))
    await agent.process(ask("hi again"))
    first, second = (
        [tool["function"]["name"] for tool in request.tools]
        for request in scripted_llm.chat_requests
    )
    assert "get_weather" not in first
    assert second == [*first, "get_weather"]


async def test_the_tool_list_is_byte_stable_and_sorted(
    runner: Runner, api_server: TestServer
) -> None:
    """Same definitions, same bytes; tools sorted by name, schema keys sorted."""
    source = ListSource([weather_tool(api_server.port, "zeta"), weather_tool(api_server.port)])
    provider = CustomToolProvider(source, runner, builtin_tool_names())
    first = [(t.name, json.dumps(t.parameters)) for t in await provider()]
    source.definitions = list(reversed(source.definitions))
    second = [(t.name, json.dumps(t.parameters)) for t in await provider()]
    assert first == second
    assert [name for name, _ in first] == ["get_weather", "zeta"]
    assert first[0][1].index('"properties"') < first[0][1].index('"required"')


async def test_an_invalid_or_builtin_named_definition_is_left_out(
    runner: Runner, api_server: TestServer
) -> None:
    """A stored definition that no longer parses costs only itself."""
    broken = {**weather_tool(api_server.port), "name": "HassTurnOn"}
    source = ListSource([broken, weather_tool(api_server.port)])
    tools = await CustomToolProvider(source, runner, builtin_tool_names())()
    assert [tool.name for tool in tools] == ["get_weather"]


def test_an_acting_custom_tool_feeds_the_outcome_check() -> None:
    """light.turn_on on an entity is checked as HassTurnOn would be."""
    outcome = ToolOutcome(
        name="lights_on",
        arguments={},
        raw_arguments="{}",
        result=ToolResult.of({"success": True, "result": "light.turn_on done"}),
        error=None,
        duration_ms=1.0,
        executor="custom",
        acted=(ActedTarget("light.turn_on", "light.kitchen_lights"),),
    )
    assert acting_targets([outcome]) == [
        ActingTarget("HassTurnOn", "light.kitchen_lights", "light")
    ]
