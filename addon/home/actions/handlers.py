"""The entry point: one intent call in, one :class:`IntentResult` out, never an exception.

:func:`handle_intent` checks the intent name and slots, resolves targets the way Home
Assistant's handler for that intent does (with that handler's own domain, feature and state
constraints, and only entities exposed to Assist), and carries the action out through an
:class:`~addon.home.actions.executor.Executor`: live or virtual, the same calls either way.
Whatever goes wrong (an unknown intent, a bad slot, nothing matching, Home Assistant refusing)
comes back as an error result whose ``message`` tells a model what to change; a model tool
call must never crash the conversation loop.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime

from addon.errors import HomeAgentError, ToolError
from addon.home.actions import direct_intents, list_intents, media_intents, queries, questions
from addon.home.actions.executor import Executor
from addon.home.actions.intents import INTENTS
from addon.home.actions.response import ErrorCode, IntentResult, error_result
from addon.home.actions.service_intents import handle_service_intent, service_rule
from addon.home.actions.slots import SlotValue, validate_slots
from addon.home.model.live import HomeModel
from addon.home.targeting.targets import MatchTargetsPreferences
from addon.text import JsonValue

_LOGGER = logging.getLogger(__name__)


async def handle_intent(
    name: str,
    slots: Mapping[str, JsonValue],
    *,
    model: HomeModel,
    executor: Executor,
    preferences: MatchTargetsPreferences | None = None,
    language: str = "en",
    now: datetime | None = None,
) -> IntentResult:
    """Handle intent ``name`` with ``slots`` (plain values, as a model passes them).

    ``preferences`` is where the request came from (the satellite's area and floor), used to
    pick one of several same-named entities; ``preferred_area_id``/``preferred_floor_id``
    slots override it, as in Home Assistant. ``now`` answers the time and date intents
    (default: the current local time).
    """
    spec = INTENTS.get(name)
    if spec is None:
        known = ", ".join(sorted(INTENTS))
        return error_result(
            name,
            ErrorCode.UNKNOWN_INTENT,
            f"Unknown intent '{name}'. Known intents: {known}",
            language=language,
        )
    try:
        values = validate_slots(spec, slots)
    except ToolError as err:
        return error_result(name, ErrorCode.INVALID_SLOTS, str(err), language=language)
    chosen = MatchTargetsPreferences(
        area_id=_preferred(values, "preferred_area_id")
        or (preferences.area_id if preferences else None),
        floor_id=_preferred(values, "preferred_floor_id")
        or (preferences.floor_id if preferences else None),
    )
    try:
        return await _dispatch(name, values, model, executor, chosen, language, now)
    except HomeAgentError as err:
        return error_result(name, ErrorCode.FAILED_TO_HANDLE, str(err), language=language)
    except Exception as err:  # the boundary of a model's tool call: never let it crash the loop
        _LOGGER.exception("Unexpected error handling %s", name)
        return error_result(
            name, ErrorCode.UNKNOWN, f"Error handling {name}: {err}", language=language
        )


def _preferred(values: Mapping[str, SlotValue], key: str) -> str | None:
    """A preference slot's area or floor id (always text once validated), if given."""
    value = values.get(key)
    return value if isinstance(value, str) else None


async def _dispatch(
    name: str,
    slots: Mapping[str, SlotValue],
    model: HomeModel,
    executor: Executor,
    preferences: MatchTargetsPreferences,
    language: str,
    now: datetime | None,
) -> IntentResult:
    """Route a validated intent call to its handler."""
    rule = service_rule(name, model.release)
    if rule is not None:
        return await handle_service_intent(
            name,
            rule,
            slots,
            model=model,
            executor=executor,
            preferences=preferences,
            language=language,
        )
    if name == "HassGetState":
        return queries.get_state(
            name, slots, model=model, preferences=preferences, language=language
        )
    if name == "HassClimateGetTemperature":
        return queries.get_temperature(
            name, slots, model=model, preferences=preferences, language=language
        )
    if name == "HassGetWeather":
        return queries.get_weather(name, slots, model=model, language=language)
    if name == "HassClimateSetTemperature":
        return await direct_intents.set_temperature(
            name, slots, model=model, executor=executor, preferences=preferences, language=language
        )
    if name == "HassListAddItem":
        return await direct_intents.add_list_item(
            name, slots, model=model, executor=executor, language=language
        )
    acted = await _newer(name, slots, model, executor, preferences, language)
    if acted is not None:
        return acted
    moment = now if now is not None else datetime.now().astimezone()
    own = await _question(name, slots, model, executor, preferences, language, moment)
    if own is not None:
        return questions.gated(own, model)
    if name == "HassGetCurrentTime":
        return queries.current_time(name, moment, language)
    if name == "HassGetCurrentDate":
        return queries.current_date(name, moment, language)
    if name == "HassRespond":
        return direct_intents.respond(name, slots, language)
    return direct_intents.nevermind(name, language)


async def _newer(
    name: str,
    slots: Mapping[str, SlotValue],
    model: HomeModel,
    executor: Executor,
    preferences: MatchTargetsPreferences,
    language: str,
) -> IntentResult | None:
    """The intents Home Assistant 2026.11's own handlers brought; None for another."""
    if name in ("HassListCompleteItem", "HassListRemoveItem"):
        return await list_intents.change_list_item(
            name, slots, model=model, executor=executor, language=language
        )
    if name == "HassShoppingListAddItem":
        return await list_intents.shopping_list_add(
            name, slots, model=model, executor=executor, language=language
        )
    if name == "HassShoppingListCompleteItem":
        return await list_intents.shopping_list_complete(
            name, slots, model=model, executor=executor, language=language
        )
    placed = {
        "HassSetVolumeRelative": media_intents.set_volume_relative,
        "HassMediaSearchAndPlay": media_intents.search_and_play,
        "HassClimateSetFanMode": direct_intents.set_fan_mode,
        "HassVacuumCleanArea": direct_intents.clean_area,
    }.get(name)
    if placed is None:
        return None
    return await placed(
        name, slots, model=model, executor=executor, preferences=preferences, language=language
    )


async def _question(
    name: str,
    slots: Mapping[str, SlotValue],
    model: HomeModel,
    executor: Executor,
    preferences: MatchTargetsPreferences,
    language: str,
    now: datetime,
) -> IntentResult | None:
    """Our own question intents (:mod:`addon.home.actions.questions`); None for another."""
    if name == "HomeAgentSensorValue":
        return questions.sensor_value(
            name, slots, model=model, preferences=preferences, language=language
        )
    if name == "HomeAgentStateCheck":
        return questions.state_check(
            name, slots, model=model, preferences=preferences, language=language
        )
    if name == "HomeAgentWeatherCondition":
        return questions.weather_condition(name, slots, model=model, language=language)
    if name == "HomeAgentOutsideTemperature":
        return questions.outside_temperature(name, slots, model=model, language=language)
    if name == "HomeAgentListItems":
        return await questions.list_items(
            name, slots, model=model, executor=executor, language=language
        )
    if name == "HomeAgentCalendarEvents":
        return await questions.calendar_events(
            name, slots, model=model, executor=executor, language=language, now=now
        )
    return None
