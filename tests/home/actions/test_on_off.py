"""HassTurnOn/HassTurnOff/HassToggle: Home Assistant's domain rules and target handling."""

from __future__ import annotations

from addon.home.actions.executor import ServiceCall
from addon.home.actions.response import ErrorCode, ResponseType
from addon.home.actions.virtual import VirtualExecutor
from tests.home.actions.conftest import Run


def state_of(virtual: VirtualExecutor, entity_id: str) -> str:
    current = virtual.model.state(entity_id)
    assert current is not None
    return current.state


async def test_turn_on_locks_a_lock(run: Run, virtual: VirtualExecutor) -> None:
    """HassTurnOn on a lock calls lock.lock."""
    await run("HassTurnOff", {"name": "Front Door"})
    result = await run("HassTurnOn", {"name": "Front Door"})
    assert result.calls == (ServiceCall("lock", "lock", ("lock.front_door",), {}),)
    assert state_of(virtual, "lock.front_door") == "locked"


async def test_turn_off_unlocks_a_lock(run: Run, virtual: VirtualExecutor) -> None:
    """HassTurnOff on a lock calls lock.unlock."""
    result = await run("HassTurnOff", {"name": "Front Door"})
    assert result.calls[0].service == "unlock"
    assert state_of(virtual, "lock.front_door") == "unlocked"


async def test_turn_on_opens_a_cover(run: Run, virtual: VirtualExecutor) -> None:
    """HassTurnOn on a cover calls cover.open_cover; a positioned cover ends at 100."""
    await run("HassTurnOn", {"name": "Living Room Blinds"})
    blinds = virtual.model.state("cover.living_room_blinds")
    assert blinds is not None
    assert (blinds.state, blinds.attributes["current_position"]) == ("open", 100)


async def test_turn_off_closes_a_cover(run: Run, virtual: VirtualExecutor) -> None:
    """HassTurnOff on a cover calls cover.close_cover."""
    await run("HassTurnOn", {"name": "Garage Door"})
    result = await run("HassTurnOff", {"name": "Garage Door"})
    assert result.calls[0].service == "close_cover"
    assert state_of(virtual, "cover.garage_door") == "closed"


async def test_turn_on_opens_a_valve(run: Run, virtual: VirtualExecutor) -> None:
    """HassTurnOn on a valve calls valve.open_valve."""
    result = await run("HassTurnOn", {"name": "Garden Valve"})
    assert result.calls[0].service == "open_valve"
    assert state_of(virtual, "valve.garden") == "open"


async def test_turn_on_activates_a_scene(run: Run, virtual: VirtualExecutor) -> None:
    """A scene turns on through homeassistant.turn_on; its state becomes the activation time."""
    result = await run("HassTurnOn", {"name": "Movie Night"})
    assert result.calls[0] == ServiceCall("homeassistant", "turn_on", ("scene.movie_night",), {})
    assert state_of(virtual, "scene.movie_night").startswith("2026-03-01T12:34:56")


async def test_turn_on_uses_homeassistant_turn_on_for_switches(
    run: Run, virtual: VirtualExecutor
) -> None:
    """Other domains fall back to homeassistant.turn_on with the explicit entity id."""
    result = await run("HassTurnOn", {"name": "Kettle"})
    assert result.calls == (ServiceCall("homeassistant", "turn_on", ("switch.kettle",), {}),)
    assert state_of(virtual, "switch.kettle") == "on"


async def test_turn_on_a_sensor_fails(run: Run) -> None:
    """A domain without turn_on fails: the only target failed, so the answer is an error."""
    result = await run("HassTurnOn", {"name": "Kitchen Temperature"})
    assert result.error_code is ErrorCode.FAILED_TO_HANDLE
    assert "does not support entity sensor.kitchen_temperature" in (result.message or "")


async def test_area_and_domain_turn_off_only_that_areas_lights(
    run: Run, virtual: VirtualExecutor
) -> None:
    """Area + domain: the area comes first in success, then each light."""
    result = await run("HassTurnOff", {"area": "Kitchen", "domain": ["light"]})
    assert [t.as_dict() for t in result.success] == [
        {"name": "Kitchen", "type": "area", "id": "kitchen"},
        {"name": "Kitchen Ceiling", "type": "entity", "id": "light.kitchen_ceiling"},
        {"name": "Counter Lights", "type": "entity", "id": "light.counter"},
    ]
    assert state_of(virtual, "light.living_room_lamp") == "on"


async def test_floor_and_domain_turn_on_the_floors_covers(
    run: Run, virtual: VirtualExecutor
) -> None:
    """Floor + domain: covers on the floor (by alias) open, the floor leads success."""
    result = await run("HassTurnOff", {"floor": "downstairs", "domain": ["cover"]})
    assert result.success[0].as_dict() == {"name": "Ground Floor", "type": "floor", "id": "ground"}
    assert [t.id for t in result.success[1:]] == ["cover.living_room_blinds"]
    assert state_of(virtual, "cover.living_room_blinds") == "closed"


async def test_device_class_and_domain_target_outlets(run: Run, virtual: VirtualExecutor) -> None:
    """Device class + domain picks the outlet switch."""
    result = await run("HassTurnOn", {"device_class": ["outlet"], "domain": ["switch"]})
    assert [t.id for t in result.success] == ["switch.kettle"]


async def test_area_only_reports_what_failed(run: Run) -> None:
    """A whole area: what can turn on succeeds, the sensor fails, the unexposed lock is absent."""
    result = await run("HassTurnOn", {"area": "Kitchen"})
    assert result.response_type is ResponseType.ACTION_DONE
    assert [t.id for t in result.failed] == ["sensor.kitchen_temperature"]
    succeeded = {t.id for t in result.success}
    assert {
        "kitchen",
        "light.counter",
        "switch.kettle",
        "media_player.kitchen_speaker",
    } <= succeeded
    assert "lock.back_door" not in succeeded


async def test_no_constraint_cannot_target_all_devices(run: Run) -> None:
    """Without any target HA's handler refuses to act on the whole house."""
    result = await run("HassTurnOff", {})
    assert result.error_code is ErrorCode.FAILED_TO_HANDLE
    assert "cannot target all devices" in (result.message or "")


async def test_name_all_means_every_entity_of_the_domain(
    run: Run, virtual: VirtualExecutor
) -> None:
    """The name 'all' is dropped, leaving the domain constraint."""
    await run("HassTurnOff", {"name": "all", "domain": ["light"]})
    assert state_of(virtual, "light.office_strip") == "off"
    assert state_of(virtual, "light.kitchen_ceiling") == "off"


async def test_duplicate_name_lists_the_candidates(run: Run) -> None:
    """Two 'Reading Lamp's: no action, and the message names both with their areas."""
    result = await run("HassTurnOn", {"name": "Reading Lamp"})
    assert result.error_code is ErrorCode.NO_VALID_TARGETS
    message = result.message or ""
    assert "light.living_room_lamp, area Living Room" in message
    assert "light.bedroom_lamp, area Bedroom" in message


async def test_duplicate_name_settled_by_preferred_area(run: Run, virtual: VirtualExecutor) -> None:
    """The satellite's area picks the bedroom's Reading Lamp."""
    result = await run("HassTurnOn", {"name": "Reading Lamp", "preferred_area_id": "bedroom"})
    assert [t.id for t in result.success] == ["light.bedroom_lamp"]
    assert state_of(virtual, "light.bedroom_lamp") == "on"


async def test_area_and_name_pick_one_of_the_duplicates(run: Run) -> None:
    """Area + name settles the duplicate the way the user said it."""
    result = await run("HassTurnOff", {"name": "Reading Lamp", "area": "Living Room"})
    assert [t.id for t in result.success] == ["living_room", "light.living_room_lamp"]


async def test_unexposed_entity_by_name_is_not_touched(run: Run, virtual: VirtualExecutor) -> None:
    """An unexposed lock is never acted on, and the answer says it is not exposed."""
    result = await run("HassTurnOn", {"name": "Back Door"})
    assert result.error_code is ErrorCode.NO_VALID_TARGETS
    assert "not exposed" in (result.message or "")
    assert state_of(virtual, "lock.back_door") == "unlocked"


async def test_unexposed_entity_by_id_is_not_touched(run: Run, virtual: VirtualExecutor) -> None:
    """Passing the unexposed entity's id as the name does not get around exposure."""
    result = await run("HassTurnOn", {"name": "lock.back_door"})
    assert result.is_error
    assert state_of(virtual, "lock.back_door") == "unlocked"


async def test_exposed_entity_by_id_works(run: Run, virtual: VirtualExecutor) -> None:
    """HA accepts an exact entity id as a name."""
    await run("HassTurnOff", {"name": "light.office_strip"})
    assert state_of(virtual, "light.office_strip") == "off"


async def test_toggle_flips_a_light(run: Run, virtual: VirtualExecutor) -> None:
    """HassToggle goes through homeassistant.toggle."""
    result = await run("HassToggle", {"name": "Counter Lights"})
    assert result.calls[0] == ServiceCall("homeassistant", "toggle", ("light.counter",), {})
    assert state_of(virtual, "light.counter") == "on"


async def test_toggle_has_no_lock_rule(run: Run, virtual: VirtualExecutor) -> None:
    """HassToggle on a lock does nothing (locks have no toggle), yet reports success as HA does."""
    result = await run("HassToggle", {"name": "Front Door"})
    assert [t.id for t in result.success] == ["lock.front_door"]
    assert state_of(virtual, "lock.front_door") == "locked"


async def test_a_miss_suggests_close_exposed_names(run: Run) -> None:
    """A misspelt name gets the closest exposed names in the message."""
    result = await run("HassTurnOn", {"name": "Kichen Ceiling"})
    assert "No exposed entity is named 'Kichen Ceiling'" in (result.message or "")
    assert "Kitchen Ceiling (light.kitchen_ceiling" in (result.message or "")


async def test_unknown_area_lists_areas(run: Run) -> None:
    """An unknown area is named, with the areas that do exist or are close."""
    result = await run("HassTurnOn", {"area": "Kichen"})
    assert "There is no area named 'Kichen'" in (result.message or "")
    assert "Kitchen" in (result.message or "").split("'Kichen'.")[1]
