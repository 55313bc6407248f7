"""The virtual executor on its own: HA's refusals, the demo platforms' effects, its records."""

from __future__ import annotations

import pytest

from addon.errors import ToolError
from addon.home.actions.executor import ServiceCall
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel


def state_of(virtual: VirtualExecutor, entity_id: str) -> str:
    current = virtual.model.state(entity_id)
    assert current is not None
    return current.state


async def test_a_missing_action_is_refused(virtual: VirtualExecutor) -> None:
    """An action that does not exist is an error, as HA's ServiceNotFound."""
    with pytest.raises(ToolError, match=r"Action lock\.toggle not found"):
        await virtual.call_service(ServiceCall("lock", "toggle", ("lock.front_door",)))


async def test_a_missing_feature_is_refused(virtual: VirtualExecutor) -> None:
    """A lock.open on a lock without the OPEN feature is refused with HA's words."""
    with pytest.raises(ToolError, match=r"does not support action lock\.open"):
        await virtual.call_service(ServiceCall("lock", "open", ("lock.front_door",)))


async def test_another_domains_service_does_nothing(virtual: VirtualExecutor) -> None:
    """light.turn_on on a cover is ignored, as HA ignores entity ids a domain does not own."""
    await virtual.call_service(ServiceCall("light", "turn_on", ("cover.garage_door",)))
    assert state_of(virtual, "cover.garage_door") == "closed"


async def test_unknown_entities_are_skipped(virtual: VirtualExecutor) -> None:
    """An entity id with no state is skipped, not an error."""
    await virtual.call_service(ServiceCall("light", "turn_on", ("light.nowhere",)))
    assert virtual.model.state("light.nowhere") is None


async def test_climate_turn_on_picks_the_other_mode(virtual: VirtualExecutor) -> None:
    """A heat/off thermostat turned on goes to heat."""
    await virtual.call_service(ServiceCall("climate", "turn_off", ("climate.thermostat",)))
    await virtual.call_service(ServiceCall("climate", "turn_on", ("climate.thermostat",)))
    assert state_of(virtual, "climate.thermostat") == "heat"


async def test_climate_turn_on_prefers_heat_cool(virtual: VirtualExecutor) -> None:
    """With several modes, turn_on picks heat_cool first."""
    await virtual.call_service(ServiceCall("climate", "turn_on", ("climate.bedroom_ac",)))
    assert state_of(virtual, "climate.bedroom_ac") == "heat_cool"


async def test_media_player_toggle_turns_it_off(virtual: VirtualExecutor) -> None:
    """A playing player toggles off."""
    await virtual.call_service(ServiceCall("homeassistant", "toggle", ("media_player.tv",)))
    assert state_of(virtual, "media_player.tv") == "off"


async def test_calls_are_recorded(virtual: VirtualExecutor) -> None:
    """Each call that took effect is kept for the dry-run report."""
    await virtual.call_service(ServiceCall("switch", "turn_on", ("switch.kettle",)))
    assert virtual.calls == (ServiceCall("switch", "turn_on", ("switch.kettle",), {}),)


async def test_the_original_model_is_untouched(home: HomeModel, virtual: VirtualExecutor) -> None:
    """The executor changes its copy only."""
    await virtual.call_service(ServiceCall("switch", "turn_on", ("switch.kettle",)))
    original = home.state("switch.kettle")
    assert original is not None
    assert original.state == "off"


async def test_state_reads_back(virtual: VirtualExecutor) -> None:
    """state() reads the virtual home."""
    await virtual.call_service(ServiceCall("vacuum", "start", ("vacuum.robot",)))
    read = await virtual.state("vacuum.robot")
    assert read is not None
    assert read.state == "cleaning"
