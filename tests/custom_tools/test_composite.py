"""Composite tools: steps in order, each result feeding the next and the final result."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestServer

from addon.custom_tools.definition import parse_definition
from addon.custom_tools.runner import Runner
from tests.custom_tools.servers import TOKEN, Api


def composite(server: TestServer, steps: list[dict[str, Any]], **extra: Any) -> Any:
    return parse_definition(
        {
            "name": "chain",
            "description": "Weather, then report it.",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            "kind": "composite",
            "composite": {"steps": steps, **extra},
        },
        reserved=(),
    )


def weather_step(server: TestServer) -> dict[str, Any]:
    return {
        "name": "weather",
        "kind": "rest",
        "rest": {
            "url": f"http://127.0.0.1:{server.port}/weather/{{{{ city }}}}",
            "headers": {"Authorization": "Bearer {{ secrets.token }}"},
        },
    }


def report_step(server: TestServer) -> dict[str, Any]:
    return {
        "name": "report",
        "kind": "rest",
        "rest": {
            "method": "POST",
            "url": f"http://127.0.0.1:{server.port}/echo",
            "body": {
                "type": "json",
                "content": {"temp": "{{ steps.weather.temp }}", "city": "{{ city }}"},
            },
            "result": {"pointer": "/got"},
        },
    }


async def test_a_step_result_feeds_the_next_step(
    runner: Runner, api_server: TestServer, api: Api
) -> None:
    """The second request's body holds the first answer's temperature, as a number."""
    tool = composite(api_server, [weather_step(api_server), report_step(api_server)])
    run = await runner.run(tool, {"city": "Delft"}, dry_run=False, secrets={"token": TOKEN})
    assert run.error is None
    assert run.result == {"temp": 21.5, "city": "Delft"}
    assert [step.name for step in run.steps] == ["weather", "report"]
    assert api.seen[1].body == '{"temp": 21.5, "city": "Delft"}'


async def test_the_final_result_reads_every_step_by_name(
    runner: Runner, api_server: TestServer
) -> None:
    """The result template sees ``steps.weather`` and ``steps.report``."""
    tool = composite(
        api_server,
        [weather_step(api_server), report_step(api_server)],
        result={"template": "{{ steps.weather.sky }} / {{ steps.report.temp }}"},
    )
    run = await runner.run(tool, {"city": "Delft"}, dry_run=False, secrets={"token": TOKEN})
    assert run.result == "clear / 21.5"


async def test_a_failing_step_names_itself_and_stops_the_chain(
    runner: Runner, api_server: TestServer, api: Api
) -> None:
    """With a wrong token the first step gets a 401; the second is never sent."""
    tool = composite(api_server, [weather_step(api_server), report_step(api_server)])
    run = await runner.run(tool, {"city": "Delft"}, dry_run=False, secrets={"token": "wrong"})
    assert run.error is not None
    assert run.error.startswith("step weather: ")
    assert "HTTP 401" in run.error
    assert len(api.seen) == 1
    assert run.steps[0].error is not None


async def test_a_dry_run_reads_for_real_and_holds_back_the_acting_step(
    runner: Runner, api_server: TestServer, api: Api
) -> None:
    """The GET step runs; the POST step is rendered with its input, not sent."""
    tool = composite(api_server, [weather_step(api_server), report_step(api_server)])
    run = await runner.run(tool, {"city": "Delft"}, dry_run=True, secrets={"token": TOKEN})
    assert [seen.method for seen in api.seen] == ["GET"]
    assert run.sent is False
    assert run.steps[1].request is not None
    assert run.steps[1].request.body == {"temp": 21.5, "city": "Delft"}
