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
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime

from addon.errors import HomeAgentError, ToolError
from addon.home.actions import direct_intents, list_intents, media_intents, queries, questions
from addon.home.actions.executor import Executor
from addon.home.actions.intents import INTENTS
from addon.home.actions.request import IntentRequest
from addon.home.actions.response import ErrorCode, IntentResult, error_result
from addon.home.actions.service_intents import handle_service_intent, service_rule
from addon.home.actions.slots import slot_text, validate_slots
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
        area_id=slot_text(values, "preferred_area_id")
        or (preferences.area_id if preferences else None),
        floor_id=slot_text(values, "preferred_floor_id")
        or (preferences.floor_id if preferences else None),
    )
    request = IntentRequest(
        name,
        values,
        model,
        executor,
        chosen,
        language,
        now if now is not None else datetime.now().astimezone(),
    )
    try:
        return await _dispatch(request)
    except HomeAgentError as err:
        return error_result(name, ErrorCode.FAILED_TO_HANDLE, str(err), language=language)
    except Exception as err:  # the boundary of a model's tool call: never let it crash the loop
        _LOGGER.exception("Unexpected error handling %s", name)
        return error_result(
            name, ErrorCode.UNKNOWN, f"Error handling {name}: {err}", language=language
        )


type Handler = Callable[[IntentRequest], Awaitable[IntentResult]]
"""What serves one intent: the request in, its result out."""


def _answering(handler: Callable[[IntentRequest], IntentResult]) -> Handler:
    """A handler that only reads the model (a query), awaited like the ones that act."""

    async def answer(request: IntentRequest) -> IntentResult:
        return handler(request)

    return answer


def _gated(handler: Handler) -> Handler:
    """One of our own questions: answered only if the gate lets every entity said be read."""

    async def answer(request: IntentRequest) -> IntentResult:
        return questions.gated(await handler(request), request.model)

    return answer


_HANDLERS: Mapping[str, Handler] = {
    "HassGetState": _answering(queries.get_state),
    "HassClimateGetTemperature": _answering(queries.get_temperature),
    "HassGetWeather": _answering(queries.get_weather),
    "HassClimateSetTemperature": direct_intents.set_temperature,
    "HassListAddItem": direct_intents.add_list_item,
    # Home Assistant 2026.11's own handlers.
    "HassListCompleteItem": list_intents.change_list_item,
    "HassListRemoveItem": list_intents.change_list_item,
    "HassShoppingListAddItem": list_intents.shopping_list_add,
    "HassShoppingListCompleteItem": list_intents.shopping_list_complete,
    "HassSetVolumeRelative": media_intents.set_volume_relative,
    "HassMediaSearchAndPlay": media_intents.search_and_play,
    "HassClimateSetFanMode": direct_intents.set_fan_mode,
    "HassVacuumCleanArea": direct_intents.clean_area,
    # Our own questions (:mod:`addon.home.actions.questions`).
    "HomeAgentSensorValue": _gated(_answering(questions.sensor_value)),
    "HomeAgentStateCheck": _gated(_answering(questions.state_check)),
    "HomeAgentWeatherCondition": _gated(_answering(questions.weather_condition)),
    "HomeAgentOutsideTemperature": _gated(_answering(questions.outside_temperature)),
    "HomeAgentListItems": _gated(questions.list_items),
    "HomeAgentCalendarEvents": _gated(questions.calendar_events),
    "HassGetCurrentTime": _answering(queries.current_time),
    "HassGetCurrentDate": _answering(queries.current_date),
    "HassRespond": _answering(direct_intents.respond),
}
"""The handler of each intent that is not a service intent; any other answers as HassNevermind."""


async def _dispatch(request: IntentRequest) -> IntentResult:
    """Route a validated intent call to its handler: a service rule first, as in the release."""
    rule = service_rule(request.intent, request.model.release)
    if rule is not None:
        return await handle_service_intent(request, rule)
    handler = _HANDLERS.get(request.intent)
    if handler is None:
        return direct_intents.nevermind(request)
    return await handler(request)
