"""Custom tools' Home Assistant kinds against the real Home Assistant 2025.4.4.

The home runs with ``recorder:`` and ``history:`` so the history kind reads real recorded states.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from addon.custom_tools.definition import parse_definition
from addon.custom_tools.extended_openai import import_functions
from addon.custom_tools.runner import Runner, ToolRun
from addon.ha.client import HomeAssistantClient
from addon.ha.custom_tools_port import HomeAssistantToolPort
from addon.ha.home_sync import HomeSync
from devtools.home_assistant import HomeAssistantProcess
from tests.fixtures.homeassistant import running
from tests.ha.waiting import until

pytestmark = pytest.mark.homeassistant

BED = "light.bed_light"
SHARED_SCRIPT = "script.shared_forecast"
FORECAST: dict[str, Any] = {
    "alias": "Forecast",
    "fields": {"city": {"selector": {"text": {}}}},
    "sequence": [
        {"variables": {"forecast": {"city": "{{ city }}", "sky": "sunny", "high": 21}}},
        {"stop": "Forecast ready", "response_variable": "forecast"},
    ],
}


@pytest.fixture(scope="module")
def home(
    home_assistant_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HomeAssistantProcess]:
    """A demo home of this module's own, with a script and the recorder."""
    config_dir = tmp_path_factory.mktemp("home-assistant") / "custom-tools"
    process = HomeAssistantProcess.from_template(
        home_assistant_template,
        config_dir,
        scripts={"forecast": FORECAST, "shared_forecast": FORECAST},
        recorder=True,
    )
    yield from running(process)


@pytest.fixture
async def real_client(
    session: aiohttp.ClientSession, home: HomeAssistantProcess
) -> AsyncIterator[HomeAssistantClient]:
    """A client on the home, with a light, a temperature and one script exposed to Assist."""
    await home.expose_entities([BED, "sensor.outside_temperature", SHARED_SCRIPT])
    linked = HomeAssistantClient(session, home.websocket_url, f"{home.url}/api", home.token)
    await linked.start()
    await linked.wait_connected(15.0)
    yield linked
    await linked.stop()


@pytest.fixture
async def sync(real_client: HomeAssistantClient) -> AsyncIterator[HomeSync]:
    home_sync = HomeSync(real_client, debounce=0.1)
    await home_sync.start()
    await home_sync.wait_ready(15.0)
    yield home_sync
    await home_sync.stop()


@pytest.fixture
def runner(
    sync: HomeSync, real_client: HomeAssistantClient, session: aiohttp.ClientSession
) -> Runner:
    return Runner(session=session, port=HomeAssistantToolPort(real_client, sync))


def tool(kind: str, settings: dict[str, Any], **extra: Any) -> Any:
    return parse_definition(
        {
            "name": f"try_{kind}",
            "description": "A test tool.",
            "parameters": {
                "type": "object",
                "properties": {"entity": {"type": "string"}, "city": {"type": "string"}},
            },
            "kind": kind,
            kind: settings,
            **extra,
        },
        reserved=(),
    )


def state(sync: HomeSync, entity_id: str) -> str | None:
    current = sync.model.state(entity_id) if sync.model is not None else None
    return current.state if current is not None else None


def ok(run: ToolRun) -> Any:
    assert run.error is None, run.error
    return run.result


async def test_service_acts_on_an_exposed_entity_from_the_arguments(
    runner: Runner, sync: HomeSync
) -> None:
    """light.turn_off on the light the model named turns it off, and is reported acted on."""
    definition = tool(
        "service", {"action": "light.turn_off", "target": {"entity_id": "{{ entity }}"}}
    )
    run = await runner.run(definition, {"entity": BED}, dry_run=False, secrets={})
    assert ok(run) == "light.turn_off done"
    assert [(a.action, a.entity_id) for a in run.acted] == [("light.turn_off", BED)]
    await until(lambda: state(sync, BED) == "off")
    on = tool("service", {"action": "light.turn_on", "target": {"entity_id": "{{ entity }}"}})
    ok(await runner.run(on, {"entity": BED}, dry_run=False, secrets={}))
    await until(lambda: state(sync, BED) == "on")


async def test_service_refuses_an_unexposed_entity_from_the_arguments(runner: Runner) -> None:
    """An argument naming an entity hidden from Assist is refused before anything is called."""
    definition = tool(
        "service", {"action": "homeassistant.turn_on", "target": {"entity_id": "{{ entity }}"}}
    )
    run = await runner.run(definition, {"entity": "script.forecast"}, dry_run=False, secrets={})
    assert run.error == "script.forecast is not exposed to Assist"


async def test_service_with_return_response_shapes_the_answer(runner: Runner) -> None:
    """A script's own action with return_response hands back its response variable."""
    definition = tool(
        "service",
        {
            "action": "script.forecast",
            "data": {"city": "{{ city }}"},
            "return_response": True,
            "result": {"template": "{{ value_json.city }}: {{ value_json.sky }}"},
        },
    )
    run = await runner.run(definition, {"city": "Delft"}, dry_run=False, secrets={})
    assert ok(run) == "Delft: sunny"


async def test_template_is_rendered_by_home_assistant(runner: Runner, sync: HomeSync) -> None:
    """states() and the arguments as variables, in Home Assistant's own template language."""
    definition = tool(
        "template", {"template": "{{ city }}: {{ states('sensor.outside_temperature') }}"}
    )
    run = await runner.run(definition, {"city": "Delft"}, dry_run=False, secrets={})
    assert ok(run) == f"Delft: {state(sync, 'sensor.outside_temperature')}"


async def test_a_broken_home_assistant_template_is_an_error(runner: Runner) -> None:
    """Home Assistant's refusal reaches the model as the tool's error."""
    run = await runner.run(
        tool("template", {"template": "{{ states('x') | nosuchfilter }}"}),
        {},
        dry_run=False,
        secrets={},
    )
    assert run.error is not None
    assert "could not render" in run.error


async def test_script_returns_its_response(runner: Runner) -> None:
    """The arguments are the script's variables; its response is the result."""
    run = await runner.run(
        tool("script", {"entity_id": SHARED_SCRIPT}),
        {"city": "Gouda"},
        dry_run=False,
        secrets={},
    )
    assert ok(run) == {"city": "Gouda", "sky": "sunny", "high": 21}


async def test_script_kind_refuses_a_script_not_exposed(runner: Runner) -> None:
    """A script hidden from Assist is not run, even when the definition names it."""
    run = await runner.run(
        tool("script", {"entity_id": "script.forecast"}),
        {"city": "Gouda"},
        dry_run=False,
        secrets={},
    )
    assert run.error == "script.entity_id: script.forecast is not exposed to Assist"
    assert run.response is None


async def test_template_reading_an_unexposed_entity_is_refused(runner: Runner) -> None:
    """Extended OpenAI's get_attributes shape on a hidden lock: the result never comes back."""
    definition = tool("template", {"template": "{{ states[entity].state }}"})
    run = await runner.run(definition, {"entity": "lock.front_door"}, dry_run=True, secrets={})
    assert run.error is not None
    assert "lock.front_door, which is not exposed" in run.error
    assert run.result is None


async def test_template_reading_every_state_is_refused(runner: Runner) -> None:
    """A render that listened to every state (Home Assistant's ``all``) is refused."""
    run = await runner.run(
        tool("template", {"template": "{{ states | count }}"}), {}, dry_run=False, secrets={}
    )
    assert run.error is not None
    assert "read every state" in run.error


async def test_template_reading_a_whole_domain_is_refused(runner: Runner) -> None:
    """A render that listened to a domain (``states.lock``) is refused."""
    run = await runner.run(
        tool("template", {"template": "{{ states.lock | map(attribute='state') | list }}"}),
        {},
        dry_run=False,
        secrets={},
    )
    assert run.error is not None
    assert "every entity of lock" in run.error


async def test_history_summarises_recorded_states(runner: Runner, sync: HomeSync) -> None:
    """A light switched off and on shows its changes; a temperature its numbers."""
    off = tool("service", {"action": "light.turn_off", "target": {"entity_id": BED}})
    on = tool("service", {"action": "light.turn_on", "target": {"entity_id": BED}})
    ok(await runner.run(off, {}, dry_run=False, secrets={}))
    await until(lambda: state(sync, BED) == "off")
    ok(await runner.run(on, {}, dry_run=False, secrets={}))
    await until(lambda: state(sync, BED) == "on")
    definition = tool(
        "history", {"entity_ids": ["{{ entity }}", "sensor.outside_temperature"], "period": "1h"}
    )

    async def summary() -> Any:
        return ok(await runner.run(definition, {"entity": BED}, dry_run=False, secrets={}))

    # The recorder writes from its own thread: poll until it has the last change.
    async with asyncio.timeout(10):
        while (result := await summary())["entities"][0].get("last") != "on":  # noqa: ASYNC110
            await asyncio.sleep(0.05)
    light, temperature = result["entities"]
    assert light["entity_id"] == BED
    assert light["last"] == "on"
    assert "off" in [state for _at, state in light["latest"]]
    assert temperature["entity_id"] == "sensor.outside_temperature"
    assert isinstance(temperature["mean"], float)


async def test_history_statistics_answer_for_an_exposed_sensor(runner: Runner) -> None:
    """Long-term statistics are read (a fresh home has no hours compiled yet)."""
    definition = tool(
        "history",
        {"entity_ids": ["sensor.outside_temperature"], "period": "2h", "statistics": True},
    )
    result = ok(await runner.run(definition, {}, dry_run=False, secrets={}))
    assert result["entities"][0]["entity_id"] == "sensor.outside_temperature"


async def test_history_refuses_an_unexposed_entity(runner: Runner) -> None:
    """Only entities exposed to Assist may be read."""
    definition = tool("history", {"entity_ids": ["script.forecast"]})
    run = await runner.run(definition, {}, dry_run=False, secrets={})
    assert run.error == "script.forecast is not exposed to Assist"


GET_HISTORY = """
- spec:
    name: get_history
    description: Retrieve historical data of specified entities.
    parameters:
      type: object
      properties:
        entity_ids: {type: array, items: {type: string}}
        start_time: {type: string}
        end_time: {type: string}
      required: [entity_ids]
  function:
    type: native
    name: get_history
"""
"""Extended OpenAI's ``get_history`` as its README declares it: both times optional."""


def imported_get_history() -> Any:
    [definition] = import_functions(GET_HISTORY).definitions
    return parse_definition(definition, reserved=())


def period(run: ToolRun) -> tuple[datetime, datetime]:
    """The start and end the history was read for, as the call's request records them."""
    assert run.request is not None
    body = run.request.body
    return datetime.fromisoformat(body["start"]), datetime.fromisoformat(body["end"])


async def test_imported_get_history_without_times_reads_the_last_day(runner: Runner) -> None:
    """No start_time or end_time: the day up to now, as Extended OpenAI reads it."""
    arguments = {"entity_ids": ["sensor.outside_temperature"]}
    run = await runner.run(imported_get_history(), arguments, dry_run=False, secrets={})
    ok(run)
    start, end = period(run)
    assert end - start == timedelta(days=1)


async def test_imported_get_history_with_only_a_start_reads_the_day_after(
    runner: Runner,
) -> None:
    """Only start_time: the day from it, as Extended OpenAI fills in the missing end."""
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(days=3)
    arguments = {"entity_ids": ["sensor.outside_temperature"], "start_time": start.isoformat()}
    run = await runner.run(imported_get_history(), arguments, dry_run=False, secrets={})
    ok(run)
    assert period(run) == (start, start + timedelta(days=1))
