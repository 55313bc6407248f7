"""The gate on custom tools that need no Home Assistant: REST in a dry run, the registry's trace."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from aiohttp.test_utils import TestServer

from addon.custom_tools.definition import parse_definition
from addon.custom_tools.runner import Runner
from addon.tools.base import ToolContext
from addon.tools.custom import CustomTool, canonical
from addon.tools.registry import ToolRegistry
from tests.custom_tools.servers import Api


def rest_tool(server: TestServer, method: str, **extra: Any) -> Any:
    return parse_definition(
        {
            "name": "api",
            "description": "Test API.",
            "kind": "rest",
            "rest": {"url": f"http://127.0.0.1:{server.port}/echo", "method": method},
            **extra,
        },
        reserved=(),
    )


async def test_a_post_declared_not_to_act_is_held_in_a_dry_run(
    runner: Runner, api_server: TestServer, api: Api
) -> None:
    """``acts: false`` cannot send a request other than GET in a dry run."""
    run = await runner.run(rest_tool(api_server, "POST", acts=False), {}, dry_run=True, secrets={})
    assert run.error is None
    assert run.sent is False
    assert api.seen == []


async def test_a_composite_post_step_declared_not_to_act_is_held_in_a_dry_run(
    runner: Runner, api_server: TestServer, api: Api
) -> None:
    """A composite step is judged on its own: its DELETE is held, its GET still reads."""
    base = f"http://127.0.0.1:{api_server.port}"
    tool = parse_definition(
        {
            "name": "api",
            "description": "Test API.",
            "kind": "composite",
            "acts": False,
            "composite": {
                "steps": [
                    {"name": "read", "kind": "rest", "rest": {"url": base + "/text"}},
                    {
                        "name": "wipe",
                        "kind": "rest",
                        "acts": False,
                        "rest": {"url": base + "/all", "method": "DELETE"},
                    },
                ]
            },
        },
        reserved=(),
    )
    run = await runner.run(tool, {}, dry_run=True, secrets={})
    assert run.error is None
    assert [step.sent for step in run.steps] == [True, False]
    assert [seen.method for seen in api.seen] == ["GET"]


async def test_the_gate_decision_is_in_the_registry_outcome(
    runner: Runner, api_server: TestServer, api: Api
) -> None:
    """What the gate held is kept with the call, for the turn's trace."""
    definition = rest_tool(api_server, "PUT")
    tool = CustomTool(definition, runner, {}, canonical(definition.parameters))
    context = ToolContext(
        home=None, executor=None, language="en", now=datetime.now(UTC), dry_run=True
    )
    outcome = await ToolRegistry([tool]).execute("api", "{}", context)
    assert [(d.verdict, d.rule) for d in outcome.decisions] == [("hold", "dry_run")]
    assert api.seen == []
