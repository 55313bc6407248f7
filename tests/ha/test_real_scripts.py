"""Scripts in the real Home Assistant: fields reach the tool, arguments the run, responses back."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from addon.ha.client import HomeAssistantClient
from addon.ha.home_sync import HomeSync
from addon.home.actions.executor import ScriptRun
from addon.home.actions.live import LiveExecutor
from addon.home.model.live import HomeModel
from addon.tools.base import ToolContext
from addon.tools.home_tools import build_registry
from devtools.home_assistant import HomeAssistantProcess
from tests.fixtures.homeassistant import running
from tests.ha.waiting import until

pytestmark = pytest.mark.homeassistant

BED = "light.bed_light"
DIM_LIGHT: dict[str, Any] = {
    "alias": "Dim a light",
    "description": "Sets a light to a brightness",
    "fields": {
        "light": {"name": "Light", "required": True, "selector": {"entity": {"domain": "light"}}},
        "level": {
            "name": "Level",
            "description": "Brightness in percent",
            "required": True,
            "selector": {"number": {"min": 1, "max": 100}},
        },
        "room": {"selector": {"area": {}}},
    },
    "sequence": [
        {
            "action": "light.turn_on",
            "target": {"entity_id": "{{ light }}"},
            "data": {"brightness_pct": "{{ level }}"},
        }
    ],
}

# Ends with ``stop`` and ``response_variable``: what Home Assistant's ScriptTool hands the model.
FORECAST: dict[str, Any] = {
    "alias": "Forecast",
    "description": "Tells the forecast for a city",
    "fields": {"city": {"name": "City", "required": True, "selector": {"text": {}}}},
    "sequence": [
        {"variables": {"forecast": {"city": "{{ city }}", "sky": "sunny", "high": 21}}},
        {"stop": "Forecast ready", "response_variable": "forecast"},
    ],
}
# Outlasts a short wait and the command timeout of the client its test builds.
SLOW: dict[str, Any] = {"alias": "Slow", "sequence": [{"delay": {"seconds": 1.5}}]}
SCRIPTS = {"dim_light": DIM_LIGHT, "forecast": FORECAST, "slow": SLOW}


@pytest.fixture(scope="module")
def home(
    home_assistant_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HomeAssistantProcess]:
    """A demo home of this module's own, with the scripts."""
    config_dir = tmp_path_factory.mktemp("home-assistant") / "scripts"
    process = HomeAssistantProcess.from_template(
        home_assistant_template, config_dir, scripts=SCRIPTS
    )
    yield from running(process)


@pytest.fixture
async def client(
    session: aiohttp.ClientSession, home: HomeAssistantProcess
) -> AsyncIterator[HomeAssistantClient]:
    """A client on the home, with two scripts exposed to Assist (scripts are not by default)."""
    await home.expose_entities(["script.dim_light", "script.forecast"])
    linked = HomeAssistantClient(session, home.websocket_url, f"{home.url}/api", home.token)
    await linked.start()
    await linked.wait_connected(15.0)
    yield linked
    await linked.stop()


@pytest.fixture
async def sync(client: HomeAssistantClient) -> AsyncIterator[HomeSync]:
    home_sync = HomeSync(client, debounce=0.1)
    await home_sync.start()
    await home_sync.wait_ready(15.0)
    yield home_sync
    await home_sync.stop()


def _model(sync: HomeSync) -> HomeModel:
    assert sync.model is not None
    return sync.model


def _brightness(sync: HomeSync) -> Any:
    state = _model(sync).state(BED)
    return state.attributes.get("brightness") if state is not None else None


async def test_fields_arrive_and_a_call_runs_with_its_variables(
    sync: HomeSync, client: HomeAssistantClient
) -> None:
    """The tool offers the script's fields; calling it runs the script with the arguments."""
    model = _model(sync)
    registry = build_registry(model, [])
    spec = {s["function"]["name"]: s["function"] for s in registry.specs()}["dim_light"]
    assert spec["description"] == "Sets a light to a brightness"
    assert spec["parameters"]["required"] == ["light", "level"]
    assert spec["parameters"]["properties"]["level"] == {
        "type": "number",
        "minimum": 1.0,
        "maximum": 100.0,
        "description": "Brightness in percent",
    }
    context = ToolContext(
        home=model, executor=LiveExecutor(client), language="en", now=datetime.now(UTC)
    )
    raw = '{"light": "light.bed_light", "level": 40, "room": "Bedroom"}'
    outcome = await registry.execute("dim_light", raw, context)
    assert outcome.result.content == {"success": True, "result": {}}  # no response variable
    await until(lambda: _brightness(sync) == 102)  # 40 % of 255


async def test_a_script_response_reaches_the_tool_result(
    sync: HomeSync, client: HomeAssistantClient
) -> None:
    """A script that stops with a response variable answers the model with it, as in HA."""
    model = _model(sync)
    context = ToolContext(
        home=model, executor=LiveExecutor(client), language="en", now=datetime.now(UTC)
    )
    outcome = await build_registry(model, []).execute("forecast", '{"city": "Oslo"}', context)
    assert outcome.result.content == {
        "success": True,
        "result": {"city": "Oslo", "sky": "sunny", "high": 21},
    }


async def test_a_long_script_runs_on_without_a_timeout_warning(
    session: aiohttp.ClientSession, home: HomeAssistantProcess, caplog: pytest.LogCaptureFixture
) -> None:
    """A script outlasting wait and command timeout is reported running, then ends quietly."""
    quick = HomeAssistantClient(
        session, home.websocket_url, f"{home.url}/api", home.token, command_timeout=1.0
    )
    await quick.start()
    try:
        await quick.wait_connected(15.0)
        live = LiveExecutor(quick)
        assert await live.run_script("slow", {}, wait=0.2) == ScriptRun(still_running=True)
        async with asyncio.timeout(10):
            await live.drain()
    finally:
        await quick.stop()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


async def test_editing_a_script_updates_its_fields(
    sync: HomeSync, client: HomeAssistantClient, home: HomeAssistantProcess
) -> None:
    """A reloaded script's new field shows in the model without a registry change."""
    fields = {**DIM_LIGHT["fields"], "transition": {"selector": {"number": {"min": 0, "max": 10}}}}
    home.scripts = {**SCRIPTS, "dim_light": {**DIM_LIGHT, "fields": fields}}
    home.write_configuration()
    await client.call_service("script", "reload")

    def has_transition() -> bool:
        service = _model(sync).script_service("script.dim_light")
        return service is not None and "transition" in [f.key for f in service.fields]

    await until(has_transition)
