"""Intents that act on exactly one matched entity and wait for the result.

Ports of Home Assistant 2025.4's ``SetTemperatureIntent`` (``components/climate/intent.py``)
and ``ListAddItemIntent`` (``components/todo/intent.py``), 2026.11's ``SetFanModeIntent``
(climate) and ``CleanAreaIntentHandler`` (``components/vacuum/intent.py``), plus the two
intents that do nothing (HassNevermind, HassRespond). Unlike the service intents these wait
for the call to finish, as Home Assistant does, so a refused temperature ("accepted range is
7 to 35") comes back as the answer rather than a success.
"""

from __future__ import annotations

from addon.errors import ToolError
from addon.home.actions.executor import ServiceCall
from addon.home.actions.intents import ASSISTANT
from addon.home.actions.queries import report
from addon.home.actions.request import IntentRequest
from addon.home.actions.response import (
    ErrorCode,
    IntentResult,
    IntentTarget,
    ResponseType,
    TargetType,
)
from addon.home.actions.slot_targets import target_constraints
from addon.home.actions.slots import slot_number, slot_text
from addon.home.actions.wire import texts, to_int
from addon.home.model.features import TodoListEntityFeature, VacuumEntityFeature
from addon.home.model.live import HomeModel
from addon.home.model.names import normalize_name
from addon.home.model.records import EntityState
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import (
    MatchFailedReason,
    MatchTargetsConstraints,
    MatchTargetsPreferences,
    MatchTargetsResult,
)
from addon.text import JsonValue

_TARGET_TEMPERATURE = 1
"""``ClimateEntityFeature.TARGET_TEMPERATURE``."""


def one_able(
    request: IntentRequest, domain: str, features: int, requirement: str
) -> MatchTargetsResult | IntentResult:
    """The one ``domain`` entity the slots name that has ``features``, or the failure to say.

    What Home Assistant's single-target handlers (set temperature, fan mode, search and play)
    match first: by name, area or floor, exposed, and able to do it ("able to set a fan mode").
    """
    constraints = target_constraints(
        request.slots, domains={domain}, by_class=False, features=features, single_target=True
    )
    result = match_targets(request.model, constraints, request.preferences)
    if not result.is_match:
        return request.no_match(result, constraints, requirement)
    return result


async def set_temperature(request: IntentRequest) -> IntentResult:
    """HassClimateSetTemperature: one climate entity that has a target temperature."""
    result = one_able(request, "climate", _TARGET_TEMPERATURE, "able to set a target temperature")
    if isinstance(result, IntentResult):
        return result
    climate = result.states[0]
    call = ServiceCall(
        "climate",
        "set_temperature",
        (climate.entity_id,),
        {"temperature": slot_number(request.slots, "temperature")},
    )
    return await _act_on(request, climate, call)


async def _act_on(
    request: IntentRequest, entity: EntityState, call: ServiceCall, *, show: bool = False
) -> IntentResult:
    """``call`` on the one entity a single-target handler matched: done naming it, or why not.

    ``show`` adds the entity's state to the answer (the fan mode handler reports it).
    """
    try:
        await request.perform(call)
    except ToolError as err:
        return request.error(ErrorCode.FAILED_TO_HANDLE, str(err))
    return request.done(
        (call,),
        success=(IntentTarget(entity.name, TargetType.ENTITY, entity.entity_id),),
        matched_states=(report(entity),) if show else (),
    )


async def add_list_item(request: IntentRequest) -> IntentResult:
    """HassListAddItem: add the item to the first to-do list with that name."""
    list_name = str(request.slots["name"])
    constraints = MatchTargetsConstraints(name=list_name, domains={"todo"}, assistant=ASSISTANT)
    result = match_targets(request.model, constraints)
    if not result.is_match:
        return request.no_match(result, constraints)
    todo = result.states[0]
    item = str(request.slots["item"]).strip()
    call = ServiceCall("todo", "add_item", (todo.entity_id,), {"item": item})
    try:
        await request.perform(call)
    except ToolError as err:
        if not _takes_items_by_intent(request.model, todo.entity_id, todo.name, err):
            return request.error(ErrorCode.FAILED_TO_HANDLE, str(err))
        # Home Assistant's own HassListAddItem adds to the list directly, which the service
        # refuses for a list that does not declare it can; its handler finds the list by name,
        # which _takes_items_by_intent made sure is this list's alone.
        try:
            done = await request.executor.handle_intent(
                request.intent, {"item": item, "name": todo.name}
            )
        except ToolError as intent_err:
            message = str(intent_err)
            return request.error(ErrorCode.FAILED_TO_HANDLE, message)
        if todo.entity_id not in done:
            message = f"{request.intent} acted on {', '.join(done)}, not {todo.entity_id}"
            return request.error(ErrorCode.FAILED_TO_HANDLE, message)
    return request.done(
        (call,),
        # Home Assistant names the target with the list name the caller said.
        success=(IntentTarget(list_name, TargetType.ENTITY, todo.entity_id),),
    )


def _takes_items_by_intent(model: HomeModel, entity_id: str, name: str, err: ToolError) -> bool:
    """Whether ``err`` is the service refusing a list its intent would add to, safely.

    The list must not declare ``CREATE_TODO_ITEM`` (else the refusal is something else), and
    no other to-do list, exposed or not, may answer to its name: Home Assistant's intent
    endpoint matches by name across every entity.
    """
    state = model.state(entity_id)
    features = (
        to_int(state.attributes.get("supported_features") or 0, "supported_features")
        if state
        else 0
    )
    if features & TodoListEntityFeature.CREATE_TODO_ITEM or "does not support" not in str(err):
        return False
    named = model.index.by_name.get(normalize_name(name), frozenset())
    return {other for other in named if other.startswith("todo.")} == {entity_id}


def nevermind(request: IntentRequest) -> IntentResult:
    """HassNevermind: an empty answer."""
    return request.answer(ResponseType.ACTION_DONE)


def respond(request: IntentRequest) -> IntentResult:
    """HassRespond: speak the given response, do nothing."""
    return request.answer(ResponseType.ACTION_DONE, speech=slot_text(request.slots, "response"))


_FAN_MODE = 8
"""``ClimateEntityFeature.FAN_MODE``."""


async def set_fan_mode(request: IntentRequest) -> IntentResult:
    """HassClimateSetFanMode (2026.11): one climate entity with fan modes, one of its modes.

    The requested mode is the entity's own if it is one of ``fan_modes`` as said or up to
    case. Home Assistant also accepts a mode's translated name in the request's language; the
    local sentences already give the mode's own value ("gering" is ``low``), so that last
    step is not ported.
    """
    requested = str(request.slots["fan_mode"])
    result = one_able(request, "climate", _FAN_MODE, "able to set a fan mode")
    if isinstance(result, IntentResult):
        return result
    climate = result.states[0]
    available = texts(climate.attributes.get("fan_modes"))
    by_casefold = {mode.casefold(): mode for mode in available}
    fan_mode = requested if requested in available else by_casefold.get(requested.casefold())
    if fan_mode is None:
        message = f"Fan mode {requested} is not supported by {climate.name}"
        return request.error(ErrorCode.FAILED_TO_HANDLE, message)
    call = ServiceCall("climate", "set_fan_mode", (climate.entity_id,), {"fan_mode": fan_mode})
    return await _act_on(request, climate, call, show=True)


async def clean_area(request: IntentRequest) -> IntentResult:
    """HassVacuumCleanArea (2026.11): the area is what to clean, not where the vacuum is.

    The area name picks the areas (the satellite's area, then its floor, narrow several of
    that name); the vacuums that can clean an area are matched by the optional name, with the
    first area and its floor as preferences; one ``vacuum.clean_area`` call sends them all.
    """
    area_name = str(request.slots["area"])
    areas = request.model.find_areas(area_name)
    if not areas:
        failed = MatchTargetsResult(
            is_match=False,
            no_match_reason=MatchFailedReason.INVALID_AREA,
            no_match_name=area_name,
        )
        area_only = MatchTargetsConstraints(area_name=area_name, assistant=ASSISTANT)
        return request.no_match(failed, area_only)
    if len(areas) > 1 and request.preferences.area_id is not None:
        areas = [area for area in areas if area.area_id == request.preferences.area_id] or areas
    if len(areas) > 1 and request.preferences.floor_id is not None:
        areas = [area for area in areas if area.floor_id == request.preferences.floor_id] or areas
    constraints = MatchTargetsConstraints(
        name=slot_text(request.slots, "name"),
        domains={"vacuum"},
        features=VacuumEntityFeature.CLEAN_AREA,
        assistant=ASSISTANT,
    )
    target = areas[0]
    result = match_targets(
        request.model, constraints, MatchTargetsPreferences(target.area_id, target.floor_id)
    )
    if not result.is_match:
        return request.no_match(result, constraints, "able to clean an area")
    entity_ids = tuple(state.entity_id for state in result.states)
    area_ids = [area.area_id for area in areas]
    call = ServiceCall(
        "vacuum", "clean_area", entity_ids, {"cleaning_area_id": list[JsonValue](area_ids)}
    )
    try:
        await request.perform(call)
    except ToolError as err:
        message = (
            f"Failed to call clean_area for areas: {area_ids} "
            f"with vacuums: {list(entity_ids)} ({err})"
        )
        return request.error(ErrorCode.FAILED_TO_HANDLE, message)
    return request.done(
        (call,),
        success=(
            *(IntentTarget(area.name, TargetType.AREA, area.area_id) for area in areas),
            *(IntentTarget(s.name, TargetType.ENTITY, s.entity_id) for s in result.states),
        ),
        matched_states=tuple(report(state) for state in result.states),
    )
