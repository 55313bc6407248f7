"""Intents that answer instead of act: state, temperature, weather, time and date.

Ports of Home Assistant 2025.4's ``GetStateIntentHandler``, ``GetTemperatureIntent`` and
``GetCurrentTime/DateIntentHandler`` (``components/intent``) and ``GetWeatherIntent``
(``components/weather/intent.py``). Home Assistant puts the answer in the response's matched
states, which its LLM API then drops; we keep them (``matched_states``) so the model sees the
values it asked for. HassGetState's quirk is kept: a name, area or domain that matches nothing
is not an error but an empty answer (only an unknown area or floor, or an ambiguous name, is),
and we add a note saying why it is empty.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace

from addon.home.actions.failure import describe_failure
from addon.home.actions.intents import ASSISTANT
from addon.home.actions.request import IntentRequest
from addon.home.actions.response import (
    IntentResult,
    IntentTarget,
    ResponseType,
    StateReport,
    TargetType,
)
from addon.home.actions.slot_targets import target_constraints
from addon.home.actions.slots import SlotValue, slot_texts
from addon.home.model.live import HomeModel
from addon.home.model.records import EntityState
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import (
    MatchTargetsCandidate,
    MatchTargetsConstraints,
    MatchTargetsPreferences,
)


def report(state: EntityState) -> StateReport:
    """A matched state as a query reports it."""
    return StateReport(state.entity_id, state.name, state.state, dict(state.attributes))


def get_state(request: IntentRequest) -> IntentResult:
    """HassGetState: the matched entities, split by the optional ``state`` slot."""
    constraints = target_constraints(request.slots)
    result = match_targets(request.model, constraints, request.preferences)
    reason = result.no_match_reason
    if not result.is_match and reason is not None and not reason.is_no_entities_reason():
        return request.no_match(result, constraints)
    success = [IntentTarget(a.name, TargetType.AREA, a.area_id) for a in result.areas]
    success.extend(IntentTarget(f.name, TargetType.FLOOR, f.floor_id) for f in result.floors)
    wanted = set(slot_texts(request.slots, "state"))
    matched: list[StateReport] = []
    unmatched: list[StateReport] = []
    sensors = _opening_sensors(request.model, request.slots, constraints, request.preferences)
    for state in (*result.states, *sensors):
        success.append(IntentTarget(state.name, TargetType.ENTITY, state.entity_id))
        said = OPENING_STATES.get(state.state, state.state) if state in sensors else state.state
        (matched if not wanted or said in wanted else unmatched).append(report(state))
    if sensors and not result.is_match:
        result = replace(result, is_match=True)
    return request.answer(
        ResponseType.QUERY_ANSWER,
        success=success,
        matched_states=matched,
        unmatched_states=unmatched,
        message=None if result.is_match else describe_failure(result, constraints, request.model),
    )


_OPENING_CLASSES = {
    "window": ("window",),
    "door": ("door",),
    "garage": ("garage_door",),
    "gate": ("door", "opening"),
}
"""A cover's device class → the binary sensor classes that report the same kind of opening."""
OPENING_STATES = {"on": "open", "off": "closed"}
"""An opening sensor's state as a cover's: what "how many windows are open" asks."""


def _opening_sensors(
    model: HomeModel,
    slots: Mapping[str, SlotValue],
    constraints: MatchTargetsConstraints,
    preferences: MatchTargetsPreferences,
) -> tuple[EntityState, ...]:
    """The window and door sensors a question about covers of that class also means.

    Home Assistant's sentences read "how many windows are open" as covers of class window
    only; in most homes windows are contact sensors (binary sensors of class window), so
    without them the answer would be a confident, wrong "0". Only for whole-home, area or
    floor questions (a name is one entity already).
    """
    if (
        slot_texts(slots, "domain") != ["cover"]
        or constraints.name
        or not constraints.device_classes
    ):
        return ()
    classes = {
        sensor_class
        for cover_class in constraints.device_classes
        for sensor_class in _OPENING_CLASSES.get(cover_class, ())
    }
    if not classes:
        return ()
    sensors = match_targets(
        model,
        replace(constraints, domains={"binary_sensor"}, device_classes=classes),
        preferences,
    )
    return sensors.states if sensors.is_match else ()


def get_temperature(request: IntentRequest) -> IntentResult:
    """HassClimateGetTemperature: an area's own temperature sensor first, else one climate."""
    constraints = target_constraints(
        request.slots, domains={"climate"}, by_class=False, single_target=True
    )
    name, area, floor = constraints.name, constraints.area_name, constraints.floor_name
    if not name and (area or request.preferences.area_id):
        sensor = _area_temperature_sensor(request.model, area, floor, request.preferences)
        if sensor is not None:
            return _answer(request, (sensor,))
    result = match_targets(request.model, constraints, request.preferences)
    if not result.is_match:
        sensor = _only_temperature_sensor(request.model, name, area, floor) if area else None
        if sensor is not None:
            return _answer(request, (sensor,))
        return request.no_match(result, constraints)
    return _answer(request, result.states)


def _temperature_sensors(
    area: str | None, floor: str | None, *, single_target: bool = False
) -> MatchTargetsConstraints:
    """The exposed temperature sensors of an area (and floor), where a thermostat is missing."""
    return MatchTargetsConstraints(
        area_name=area,
        floor_name=floor,
        domains={"sensor"},
        device_classes={"temperature"},
        assistant=ASSISTANT,
        single_target=single_target,
    )


def _only_temperature_sensor(
    model: HomeModel, name: str | None, area: str, floor: str | None
) -> EntityState | None:
    """The one exposed temperature sensor of a named area that has no thermostat.

    Home Assistant answers "how warm is the pool" only from a climate entity or the area's
    designated sensor, and fails otherwise; an area with exactly one temperature sensor
    answers for certain, so that is said instead of the failure.
    """
    if name:
        return None
    result = match_targets(model, _temperature_sensors(area, floor))
    return result.states[0] if result.is_match and len(result.states) == 1 else None


def _area_temperature_sensor(
    model: HomeModel,
    area: str | None,
    floor: str | None,
    preferences: MatchTargetsPreferences,
) -> EntityState | None:
    """The exposed temperature sensor Home Assistant would pick for the area, if any."""

    def is_area_sensor(candidate: MatchTargetsCandidate, possible: Collection[str]) -> bool:
        for area_id in possible:
            entry = model.areas.get(area_id)
            if entry is not None and entry.temperature_entity_id == candidate.entity_id:
                return True
        return False

    constraints = _temperature_sensors(area, floor, single_target=True)
    result = match_targets(model, constraints, preferences, area_candidate_filter=is_area_sensor)
    return result.states[0] if result.is_match else None


def get_weather(request: IntentRequest) -> IntentResult:
    """HassGetWeather: the first exposed weather entity (with the name, if given)."""
    constraints = target_constraints(request.slots, domains={"weather"}, by_class=False)
    result = match_targets(request.model, constraints)
    if not result.is_match:
        return request.no_match(result, constraints)
    weather = result.states[0]
    return request.answer(
        ResponseType.QUERY_ANSWER,
        success=(IntentTarget(weather.name, TargetType.ENTITY, weather.entity_id),),
        matched_states=(report(weather),),
    )


def current_time(request: IntentRequest) -> IntentResult:
    """HassGetCurrentTime: the time as a speech slot (ISO, to the second)."""
    return request.answer(
        ResponseType.ACTION_DONE,
        speech_slots={"time": request.now.time().replace(microsecond=0).isoformat()},
    )


def current_date(request: IntentRequest) -> IntentResult:
    """HassGetCurrentDate: the date as a speech slot (ISO)."""
    return request.answer(
        ResponseType.ACTION_DONE, speech_slots={"date": request.now.date().isoformat()}
    )


def _answer(request: IntentRequest, states: tuple[EntityState, ...]) -> IntentResult:
    """A query answer carrying ``states`` (HA sets no success targets for temperatures)."""
    return request.answer(
        ResponseType.QUERY_ANSWER, matched_states=[report(state) for state in states]
    )
