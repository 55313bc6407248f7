"""The live executor's call of a script's own service, as it goes over the WebSocket."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from addon.errors import HomeAssistantUnavailableError, ToolError
from addon.ha.client import HomeAssistantClient
from addon.home.actions.executor import ScriptRun, ServiceCall
from addon.home.actions.live import LiveExecutor
from addon.tools.base import ToolContext
from addon.tools.home_tools import ScriptTool
from addon.tools.registry import ToolRegistry
from tests.ha.conftest import MakeClient
from tests.ha.fake_ws_server import FakeConnection, FakeHomeAssistant, Handler
from tests.home.script_home import script_home

LIVE_LOGGER = "addon.home.actions.live"
CONTEXT = {"id": "ctx", "parent_id": None, "user_id": "u"}


def finished() -> asyncio.Event:
    """The end of a "script" run, set by the test; one never set runs for ever."""
    return asyncio.Event()


def answer_when(done: asyncio.Event | None = None, response: Any = None) -> Handler:
    """A ``call_service`` answer that comes once ``done`` is set (at once without one)."""

    async def answer(connection: FakeConnection, message: dict[str, Any]) -> None:
        if done is not None:
            await done.wait()
        result: dict[str, Any] = {"context": CONTEXT}
        if message.get("return_response"):
            result["response"] = response if response is not None else {}
        await connection.result(message["id"], result)

    return answer


def refuse_when(done: asyncio.Event | None = None) -> Handler:
    """A ``call_service`` that Home Assistant refuses once ``done`` is set (at once without)."""

    async def refuse(connection: FakeConnection, message: dict[str, Any]) -> None:
        if done is not None:
            await done.wait()
        await connection.error(message["id"], "home_assistant_error", "The script failed")

    return refuse


def script_tool(wait: float) -> ScriptTool:
    """The tool for the test home's ``script.dim_light``, waiting ``wait`` seconds."""
    return ScriptTool("script.dim_light", "Dim a light", "Sets a light", "dim_light", wait=wait)


def tool_context(client: HomeAssistantClient) -> ToolContext:
    return ToolContext(
        home=script_home(), executor=LiveExecutor(client), language="en", now=datetime.now(UTC)
    )


def sent_calls(fake_ha: FakeHomeAssistant) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in m.items() if k != "id"}
        for m in fake_ha.latest.received
        if m["type"] == "call_service"
    ]


async def test_a_script_service_is_called_with_variables_and_no_target(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """The arguments are the service data; no target, which would become an entity_id variable."""
    await LiveExecutor(client).call_service(
        ServiceCall("script", "dim_light", (), {"level": 40}), wait=1.0
    )
    assert sent_calls(fake_ha) == [
        {
            "type": "call_service",
            "domain": "script",
            "service": "dim_light",
            "service_data": {"level": 40},
        }
    ]


async def test_entity_calls_still_name_their_targets(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """Calls on entities keep their explicit target."""
    await LiveExecutor(client).call_service(ServiceCall("light", "turn_on", ("light.kitchen",)))
    sent = [m for m in fake_ha.latest.received if m["type"] == "call_service"]
    assert sent[0]["target"] == {"entity_id": ["light.kitchen"]}


async def test_run_script_asks_for_the_response_and_returns_it(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """The script's service is called with return_response; its response comes back."""
    run = await LiveExecutor(client).run_script("dim_light", {"level": 40}, wait=1.0)
    assert run == ScriptRun({"echo": {"level": 40}})
    assert sent_calls(fake_ha) == [
        {
            "type": "call_service",
            "domain": "script",
            "service": "dim_light",
            "service_data": {"level": 40},
            "return_response": True,
        }
    ]


async def test_a_script_still_running_after_the_wait_says_so(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """A script that outlasts the wait is reported running and finishes in the background."""
    done = finished()
    fake_ha.handlers["call_service"] = answer_when(done)
    live = LiveExecutor(client)
    assert await live.run_script("dim_light", {}, wait=0.05) == ScriptRun(still_running=True)
    done.set()
    async with asyncio.timeout(5):
        await live.drain()


async def test_a_script_refused_within_the_wait_is_a_tool_error(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """Home Assistant's refusal reaches the caller, naming the script's service."""
    fake_ha.handlers["call_service"] = refuse_when()
    with pytest.raises(ToolError, match=r"script\.dim_light failed: The script failed"):
        await LiveExecutor(client).run_script("dim_light", {}, wait=1.0)


async def test_a_call_outlasting_the_command_timeout_finishes_without_a_warning(
    make_client: MakeClient, fake_ha: FakeHomeAssistant, caplog: pytest.LogCaptureFixture
) -> None:
    """A background call has no command timeout: a long script is no failure to warn about."""
    client = await make_client(command_timeout=0.2)
    await client.wait_connected(5.0)
    done = finished()
    fake_ha.handlers["call_service"] = answer_when(done)
    fake_ha.handlers["slow/thing"] = answer_when(finished())
    live = LiveExecutor(client)
    with caplog.at_level(logging.DEBUG):
        await live.call_service(ServiceCall("script", "dim_light", ()), wait=0.05)
        # A command sent after the call times out first: the call has outlived the timeout.
        with pytest.raises(HomeAssistantUnavailableError):
            await client.command({"type": "slow/thing"})
        done.set()
        async with asyncio.timeout(5):
            await live.drain()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert "did not answer" not in caplog.text


async def test_a_late_refusal_in_the_background_is_a_warning(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant, caplog: pytest.LogCaptureFixture
) -> None:
    """Home Assistant refusing a call after we stopped waiting is still reported."""
    done = finished()
    fake_ha.handlers["call_service"] = refuse_when(done)
    live = LiveExecutor(client)
    await live.call_service(ServiceCall("lock", "unlock", ("lock.front_door",)), wait=0.05)
    done.set()
    async with asyncio.timeout(5):
        await live.drain()
    warnings = [r for r in caplog.records if r.name == LIVE_LOGGER and r.levelno == logging.WARNING]
    assert [r.getMessage() for r in warnings] == [
        "lock.unlock failed after we stopped waiting for it: "
        "home_assistant_error: The script failed"
    ]


async def test_a_lost_link_under_a_background_call_is_only_a_debug_line(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant, caplog: pytest.LogCaptureFixture
) -> None:
    """Losing the link says nothing about the call, and the client logs the loss itself."""
    fake_ha.handlers["call_service"] = answer_when(finished())
    live = LiveExecutor(client)
    with caplog.at_level(logging.DEBUG, logger=LIVE_LOGGER):
        await live.call_service(ServiceCall("script", "dim_light", ()), wait=0.05)
        await fake_ha.drop_all()
        async with asyncio.timeout(5):
            await live.drain()
    records = [r for r in caplog.records if r.name == LIVE_LOGGER]
    assert [(r.levelno, r.getMessage().split(":")[0]) for r in records] == [
        (logging.DEBUG, "Stopped following script.dim_light in the background")
    ]


async def test_the_script_tool_returns_the_response_in_home_assistants_shape(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """``{"success": True, "result": <response>}``, as Home Assistant's ScriptTool returns it."""
    fake_ha.handlers["call_service"] = answer_when(response={"level_set": 40})
    result = await script_tool(1.0).call({"level": 40}, tool_context(client))
    assert result == {"success": True, "result": {"level_set": 40}}


async def test_the_script_tool_says_a_long_script_is_still_running(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """A script that outlasts the tool's wait is reported started and still running."""
    done = finished()
    fake_ha.handlers["call_service"] = answer_when(done)
    context = tool_context(client)
    result = await script_tool(0.05).call({}, context)
    assert result == {"success": True, "result": "Started Dim a light; still running"}
    done.set()
    assert isinstance(context.executor, LiveExecutor)
    async with asyncio.timeout(5):
        await context.executor.drain()


async def test_the_trace_label_is_the_live_executors_own_name(
    client: HomeAssistantClient, fake_ha: FakeHomeAssistant
) -> None:
    """A call the live executor carries out is traced as live whatever the dry-run flag says."""
    fake_ha.handlers["call_service"] = answer_when(response={"level_set": 40})
    tool = script_tool(1.0)
    context = replace(tool_context(client), dry_run=True)
    outcome = await ToolRegistry([tool]).execute(tool.name, '{"level": 40}', context)
    assert outcome.ok, outcome.error
    assert len(sent_calls(fake_ha)) == 1  # it really went to Home Assistant
    assert outcome.executor == "live"
