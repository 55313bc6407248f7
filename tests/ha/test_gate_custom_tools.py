"""The gate on custom tools' Home Assistant kinds, over the scripted Home Assistant.

The captured demo home is served, so exposure is the demo's (lights exposed, locks and the alarm
hidden); every ``call_service`` the runner sends reaches the scripted server, so a call that was
held or refused is one that never arrived.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from addon.custom_tools.definition import parse_definition
from addon.custom_tools.runner import Runner, ToolRun
from addon.errors import CustomToolInvalid
from addon.ha.client import HomeAssistantClient
from addon.ha.custom_tools_port import HomeAssistantToolPort
from addon.ha.home_sync import HomeSync
from addon.home.actions.confirmation import Holds
from addon.home.actions.gate import Gate
from tests.fixtures.policy import default_policy
from tests.ha.fake_ws_server import FakeHomeAssistant
from tests.web.ui.home import serve_home

LIGHT = "light.bed_light"
LOCK = "lock.front_door"


@pytest.fixture
async def runner(
    fake_ha: FakeHomeAssistant,
    demo_home_data: dict[str, Any],
    client: HomeAssistantClient,
    session: aiohttp.ClientSession,
) -> AsyncIterator[Runner]:
    """A runner whose port reaches the scripted demo home, its exposure known."""
    serve_home(fake_ha, demo_home_data)
    sync = HomeSync(client, debounce=0.01)
    await sync.start()
    await sync.wait_ready(5.0)
    yield Runner(session=session, port=HomeAssistantToolPort(client, sync))
    await sync.stop()


def calls(fake_ha: FakeHomeAssistant) -> list[dict[str, Any]]:
    """Every ``call_service`` that reached Home Assistant."""
    return [
        message
        for connection in fake_ha.connections
        for message in connection.received
        if message.get("type") == "call_service"
    ]


def definition(kind: str, settings: dict[str, Any], **extra: Any) -> Any:
    return parse_definition(
        {
            "name": "gated",
            "description": "A tool the gate judges.",
            "parameters": {
                "type": "object",
                "properties": {
                    "entity": {"type": "string"},
                    "where": {"type": "string"},
                    "scene": {"type": "object"},
                },
            },
            "kind": kind,
            kind: settings,
            **extra,
        },
        reserved=(),
    )


async def run(runner: Runner, tool: Any, dry_run: bool = False, **arguments: Any) -> ToolRun:
    return await runner.run(tool, arguments, dry_run=dry_run, secrets={})


async def test_acts_false_cannot_run_a_service_in_a_dry_run(
    runner: Runner, fake_ha: FakeHomeAssistant
) -> None:
    """A service tool declared ``acts: false`` is still held in a dry run."""
    tool = definition(
        "service", {"action": "light.turn_off", "target": {"entity_id": LIGHT}}, acts=False
    )
    result = await run(runner, tool, dry_run=True)
    assert result.error is None
    assert result.sent is False
    assert calls(fake_ha) == []
    assert [d.rule for d in result.decisions] == ["dry_run"]


async def test_acts_false_on_a_composite_cannot_run_its_service_step_in_a_dry_run(
    runner: Runner, fake_ha: FakeHomeAssistant
) -> None:
    """A composite is judged step by step: its action step is held whatever ``acts`` says."""
    tool = definition(
        "composite",
        {
            "steps": [
                {
                    "name": "off",
                    "kind": "service",
                    "acts": False,
                    "service": {"action": "light.turn_off", "target": {"entity_id": LIGHT}},
                }
            ]
        },
        acts=False,
    )
    result = await run(runner, tool, dry_run=True)
    assert result.error is None
    assert [step.sent for step in result.steps] == [False]
    assert calls(fake_ha) == []


async def test_a_templated_area_in_the_data_is_refused(
    runner: Runner, fake_ha: FakeHomeAssistant
) -> None:
    """``data.area_id`` from the arguments names entities nobody checked: refused."""
    tool = definition("service", {"action": "light.turn_off", "data": {"area_id": "{{ where }}"}})
    result = await run(runner, tool, where="living_room")
    assert result.error is not None
    assert "area_id 'living_room' did not come from the definition" in result.error
    assert calls(fake_ha) == []


@pytest.mark.parametrize("key", ["device_id", "floor_id", "label_id"])
async def test_a_templated_group_target_in_the_data_is_refused(
    runner: Runner, fake_ha: FakeHomeAssistant, key: str
) -> None:
    """Devices, floors and labels from the arguments, under ``data``, are refused too."""
    tool = definition("service", {"action": "light.turn_off", "data": {key: "{{ where }}"}})
    result = await run(runner, tool, where="anything")
    assert result.error is not None
    assert f"{key} 'anything'" in result.error
    assert calls(fake_ha) == []


async def test_a_hidden_entity_in_scene_apply_entities_is_refused(
    runner: Runner, fake_ha: FakeHomeAssistant
) -> None:
    """``scene.apply``'s ``entities`` mapping is keyed by entity ids: a hidden lock is refused."""
    tool = definition(
        "service",
        {"action": "scene.apply", "data": {"entities": "{{ scene }}"}},
    )
    result = await run(runner, tool, scene={LOCK: {"state": "unlocked"}})
    assert result.error == f"{LOCK} is not exposed to Assist"
    assert calls(fake_ha) == []


async def test_an_exposed_entity_in_scene_apply_entities_is_called(
    runner: Runner, fake_ha: FakeHomeAssistant
) -> None:
    """The same mapping on an exposed light reaches Home Assistant."""
    tool = definition(
        "service",
        {"action": "scene.apply", "data": {"entities": "{{ scene }}"}},
    )
    result = await run(runner, tool, scene={LIGHT: {"state": "on"}})
    assert result.error is None
    assert [call["service_data"] for call in calls(fake_ha)] == [
        {"entities": {LIGHT: {"state": "on"}}}
    ]


async def test_a_hidden_entity_under_another_key_is_refused(
    runner: Runner, fake_ha: FakeHomeAssistant
) -> None:
    """An entity id from the arguments under any key of the data goes through exposure."""
    tool = definition(
        "service", {"action": "homeassistant.update_entity", "data": {"x": "{{ entity }}"}}
    )
    result = await run(runner, tool, entity=LOCK)
    assert result.error == f"{LOCK} is not exposed to Assist"
    assert calls(fake_ha) == []


async def test_a_literal_area_the_user_wrote_is_called(
    runner: Runner, fake_ha: FakeHomeAssistant
) -> None:
    """The user's own area in the definition is theirs to write: it reaches Home Assistant."""
    tool = definition("service", {"action": "light.turn_off", "data": {"area_id": "living_room"}})
    result = await run(runner, tool)
    assert result.error is None
    assert [call["service_data"] for call in calls(fake_ha)] == [{"area_id": "living_room"}]


async def test_a_forbidden_action_is_refused_when_authored() -> None:
    """``hassio.*`` cannot be saved as a service tool (the editor and the API parse this way)."""
    with pytest.raises(CustomToolInvalid) as refused:
        definition("service", {"action": "hassio.addon_stop", "data": {"addon": "core_ssh"}})
    assert "can harm the host" in str(refused.value)


def default_policy_gate() -> Gate:
    """A gate with the default confirmation policy: locks' unlock, garage covers' open..."""
    return Gate(False, holds=Holds(default_policy()))


@pytest.mark.parametrize("key", ["area_id", "device_id", "floor_id", "label_id"])
async def test_a_covered_action_on_a_group_target_is_held_for_confirmation(
    runner: Runner, fake_ha: FakeHomeAssistant, key: str
) -> None:
    """A garage opened by area (or device, floor, label) is held: its entities are unknown here."""
    tool = definition("service", {"action": "cover.open_cover", "target": {key: "garage"}})
    gate = default_policy_gate()
    result = await runner.run(tool, {}, dry_run=False, secrets={}, gate=gate)
    assert result.error is None
    assert calls(fake_ha) == []
    assert gate.holds is not None
    [held] = gate.holds.held
    assert (held.action, held.shown_names, held.replay is not None) == (
        "cover.open_cover",
        (f"garage ({key.removesuffix('_id')})",),
        True,
    )


async def test_an_uncovered_action_on_a_group_target_is_called(
    runner: Runner, fake_ha: FakeHomeAssistant
) -> None:
    """Closing by area is not in the policy: it reaches Home Assistant at once."""
    tool = definition("service", {"action": "cover.close_cover", "target": {"area_id": "garage"}})
    result = await runner.run(tool, {}, dry_run=False, secrets={}, gate=default_policy_gate())
    assert result.error is None
    assert [call["service"] for call in calls(fake_ha)] == ["close_cover"]
