"""Queries and single-target intents: state, temperature, weather, time, to-do lists."""

from __future__ import annotations

from addon.home.actions.response import ErrorCode, ResponseType
from addon.home.actions.virtual import VirtualExecutor
from tests.home.actions.conftest import Run


async def test_get_state_answers_with_the_states(run: Run) -> None:
    """HassGetState lists the matched entities and their states."""
    result = await run("HassGetState", {"domain": ["lock"]})
    assert result.response_type is ResponseType.QUERY_ANSWER
    assert [(s.entity_id, s.state) for s in result.matched_states] == [
        ("lock.front_door", "locked")
    ]


async def test_get_state_splits_by_the_state_slot(run: Run) -> None:
    """'Which lights are on': on lights are matched, the others unmatched."""
    result = await run("HassGetState", {"domain": ["light"], "state": ["on"]})
    assert {s.entity_id for s in result.unmatched_states} == {
        "light.counter",
        "light.bedroom_lamp",
    }
    assert len(result.matched_states) == 3


async def test_get_state_of_nothing_is_an_empty_answer(run: Run) -> None:
    """An unknown name is an empty answer (as in HA), with a note saying why."""
    result = await run("HassGetState", {"name": "Hot Tub"})
    assert result.response_type is ResponseType.QUERY_ANSWER
    assert result.success == ()
    assert "No exposed entity is named 'Hot Tub'" in result.for_model()["note"]


async def test_get_state_of_an_unknown_area_is_an_error(run: Run) -> None:
    """An unknown area is an error even for a query."""
    result = await run("HassGetState", {"area": "Attic"})
    assert result.error_code is ErrorCode.NO_VALID_TARGETS


async def test_get_state_model_view_has_attributes(run: Run) -> None:
    """The model sees the telling attributes of a queried entity."""
    result = await run("HassGetState", {"name": "Thermostat"})
    shown = result.for_model()["data"]["matched_states"][0]
    assert shown["attributes"]["current_temperature"] == 21.5


async def test_area_temperature_comes_from_its_sensor(run: Run) -> None:
    """The kitchen's own temperature sensor answers for the kitchen."""
    result = await run("HassClimateGetTemperature", {"area": "Kitchen"})
    assert [s.entity_id for s in result.matched_states] == ["sensor.kitchen_temperature"]


async def test_area_without_sensor_uses_its_climate(run: Run) -> None:
    """The living room has no sensor of its own: its thermostat answers."""
    result = await run("HassClimateGetTemperature", {"area": "Living Room"})
    assert [s.entity_id for s in result.matched_states] == ["climate.thermostat"]


async def test_temperature_needs_one_climate(run: Run) -> None:
    """Two thermostats and no name: MULTIPLE_TARGETS, both listed."""
    result = await run("HassClimateGetTemperature", {})
    assert "several match" in (result.message or "")
    assert "climate.bedroom_ac" in (result.message or "")


async def test_set_temperature(run: Run, virtual: VirtualExecutor) -> None:
    """HassClimateSetTemperature sets the target on the one matched thermostat."""
    result = await run("HassClimateSetTemperature", {"area": "Bedroom", "temperature": "23.5"})
    assert [t.id for t in result.success] == ["climate.bedroom_ac"]
    ac = virtual.model.state("climate.bedroom_ac")
    assert ac is not None
    assert ac.attributes["temperature"] == 23.5


async def test_set_temperature_out_of_range_fails(run: Run) -> None:
    """Outside min/max the climate service refuses, and the answer says the range."""
    result = await run("HassClimateSetTemperature", {"name": "Thermostat", "temperature": 50})
    assert result.error_code is ErrorCode.FAILED_TO_HANDLE
    assert "Accepted range is 7 to 35" in (result.message or "")


async def test_weather(run: Run) -> None:
    """HassGetWeather answers with the weather entity."""
    result = await run("HassGetWeather")
    assert [t.id for t in result.success] == ["weather.home"]
    assert result.matched_states[0].attributes["temperature"] == 21.6


async def test_list_add_item(run: Run, virtual: VirtualExecutor) -> None:
    """HassListAddItem adds the stripped item; the target is named as the caller said."""
    result = await run("HassListAddItem", {"name": "shopping list", "item": " milk "})
    assert result.success[0].as_dict() == {
        "name": "shopping list",
        "type": "entity",
        "id": "todo.shopping_list",
    }
    assert [(c.service, c.entity_ids, dict(c.data)) for c in virtual.calls] == [
        ("add_item", ("todo.shopping_list",), {"item": "milk"})
    ]
    todo = virtual.model.state("todo.shopping_list")
    assert todo is not None
    assert todo.state == "3"


async def test_list_add_item_to_unknown_list(run: Run) -> None:
    """An unknown list is a no_valid_targets error."""
    result = await run("HassListAddItem", {"name": "Hardware", "item": "nails"})
    assert result.error_code is ErrorCode.NO_VALID_TARGETS


async def test_current_time(run: Run) -> None:
    """HassGetCurrentTime answers in speech_slots."""
    result = await run("HassGetCurrentTime")
    assert result.as_dict()["speech_slots"] == {"time": "12:34:56"}


async def test_current_date(run: Run) -> None:
    """HassGetCurrentDate answers in speech_slots."""
    result = await run("HassGetCurrentDate")
    assert result.as_dict()["speech_slots"] == {"date": "2026-03-01"}


async def test_unknown_intent(run: Run) -> None:
    """An unknown intent is an error naming the known ones."""
    result = await run("HassOpenPodBayDoors")
    assert result.error_code is ErrorCode.UNKNOWN_INTENT
    assert "HassTurnOn" in (result.message or "")


async def test_respond_speaks_the_response(run: Run) -> None:
    """HassRespond speaks what it is given and does nothing."""
    result = await run("HassRespond", {"response": "Hello"})
    assert result.as_dict()["speech"] == {"plain": {"speech": "Hello", "extra_data": None}}


async def test_nevermind_does_nothing(run: Run, virtual: VirtualExecutor) -> None:
    """HassNevermind answers with an empty action and calls nothing."""
    result = await run("HassNevermind")
    assert (result.response_type, result.calls, virtual.calls) == (ResponseType.ACTION_DONE, (), ())


async def test_a_crashing_call_is_a_failed_target_not_an_exception(
    run: Run, virtual: VirtualExecutor
) -> None:
    """An unexpected error inside a call becomes a failed target and an error answer."""
    virtual.model.set_state(
        "media_player.tv", "playing", {"friendly_name": "TV", "supported_features": "bogus"}
    )
    result = await run("HassTurnOn", {"name": "TV"})
    assert result.error_code is ErrorCode.FAILED_TO_HANDLE
    assert "media_player.tv" in (result.message or "")
