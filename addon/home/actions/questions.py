"""Our own question intents: answers Home Assistant 2025.4 has no intent for.

Home Assistant's ``HassGetState`` answers a named entity's state, counts and yes/no questions,
and ``HassGetWeather`` the weather; these handlers answer the common questions left over (a
sensor's value by its kind and its device or place, whether the weather is sunny, the
temperature outside, a to-do list's items, today's calendar events), from the live home and,
for lists and calendars, Home Assistant's own read services (``todo.get_items``,
``calendar.get_events`` with ``return_response``).

Every read passes the gate (:mod:`addon.home.actions.gate`): only entities exposed to Assist are
matched, and a read service is called only on entities the gate lets through. A question that
cannot be answered for certain (nothing fits, or several things fit equally) is a matching
failure (``no_valid_targets``): the local path then hands it to the model, or, without one,
says it does not know. The words spoken come from the response templates beside our sentences
(``addon/local/custom``), in the request's language.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime, time, timedelta

from addon.home.actions.executor import ServiceCall
from addon.home.actions.gate import Gate
from addon.home.actions.intents import ASSISTANT
from addon.home.actions.queries import OPENING_STATES, report
from addon.home.actions.request import IntentRequest
from addon.home.actions.response import (
    ErrorCode,
    IntentResult,
    IntentTarget,
    ResponseType,
    StateReport,
    TargetType,
    error_result,
)
from addon.home.actions.slot_targets import target_constraints
from addon.home.actions.slots import slot_int, slot_text, slot_texts
from addon.home.actions.wire import as_object, objects
from addon.home.context.lexicon import FILLER
from addon.home.model.live import HomeModel
from addon.home.model.names import loose_name
from addon.home.model.records import Area, EntityState
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import MatchTargetsConstraints
from addon.text import JsonArray, JsonValue

MAX_ITEMS = 20
"""Items or events read out at most; the count says how many there are."""

_SUBJECT_FILLER = FILLER | frozenset(
    ("der", "die", "das", "dem", "den", "des", "vom", "von", "im", "in", "am", "an", "mein",
     "meine", "meinem", "meiner", "meines", "unser", "unsere", "unserem", "unserer", "level",
     "noch", "gerade", "schon", "eigentlich", "jetzt")
)  # fmt: skip
"""Words of a spoken subject that do not name anything ("the", "my", "level", "vom")."""


def _no_answer(request: IntentRequest, message: str) -> IntentResult:
    """A question we cannot answer for certain: a matching failure the model may still answer."""
    return request.error(ErrorCode.NO_VALID_TARGETS, message)


def _answer(
    request: IntentRequest,
    states: Sequence[StateReport],
    *,
    unmatched: Sequence[StateReport] = (),
    speech_slots: Mapping[str, JsonValue] | None = None,
) -> IntentResult:
    """A query answer on ``states`` (matched) and ``unmatched``."""
    success = tuple(
        IntentTarget(state.name, TargetType.ENTITY, state.entity_id)
        for state in (*states, *unmatched)
    )
    return request.answer(
        ResponseType.QUERY_ANSWER,
        success=success,
        matched_states=states,
        unmatched_states=unmatched,
        speech_slots=speech_slots,
    )


def gated(result: IntentResult, model: HomeModel) -> IntentResult:
    """``result`` if the gate lets every entity it answers about be read, else no answer.

    The handlers only match exposed entities; asking the gate of each state said keeps the
    promise in one place whatever a handler matched.
    """
    gate = Gate(dry_run=False, exposed=model.is_exposed)
    for state in (*result.matched_states, *result.unmatched_states):
        if not gate.entity(state.entity_id).allowed:
            message = f"{state.entity_id} is not exposed to Assist"
            return error_result(
                result.intent, ErrorCode.NO_VALID_TARGETS, message, language=result.language
            )
    return result


def _words(text: str) -> set[str]:
    return set(loose_name(text).split())


def _describing_words(model: HomeModel, state: EntityState) -> set[str]:
    """Every word that may name ``state``: its name, aliases, device and area."""
    words = _words(state.name)
    entity = model.entity(state.entity_id)
    if entity is None:
        return words
    for alias in entity.aliases:
        words |= _words(alias)
    device = model.devices.get(entity.device_id) if entity.device_id else None
    if device is not None and device.name:
        words |= _words(device.name)
    area = model.areas.get(entity.area_id) if entity.area_id else None
    if area is not None:
        words |= _words(area.name)
        for alias in area.aliases:
            words |= _words(alias)
    return words


def sensor_value(request: IntentRequest) -> IntentResult:
    """HomeAgentSensorValue: the one exposed sensor of a kind that the subject or area names.

    "the battery level of the motion sensor": every word of the subject must name the sensor
    (its name, aliases, device or area). "the humidity in the bathroom": the area's own
    humidity or temperature sensor when Home Assistant has one set, else the one sensor there.
    """
    constraints = target_constraints(request.slots, domains={"sensor"})
    classes = set(slot_texts(request.slots, "device_class"))
    result = match_targets(request.model, constraints, request.preferences)
    states = list(result.states) if result.is_match else []
    subject = _words(slot_text(request.slots, "subject") or "") - _SUBJECT_FILLER
    if subject:
        states = [s for s in states if subject <= _describing_words(request.model, s)]
    if len(states) > 1:
        own = _area_own_sensors(request.model, result.areas, classes)
        states = [s for s in states if s.entity_id in own] or states
    if len(states) != 1:
        found = "no" if not states else f"{len(states)}"
        return _no_answer(
            request,
            f"{found} exposed {'/'.join(sorted(classes))} sensors fit; ask which one is meant",
        )
    return _answer(request, [report(states[0])])


_CLASS_WORDS = {
    "garage": ("garage", "door"),
    "garage_door": ("garage", "door"),
    "moisture": ("leak", "water", "moisture"),
    "occupancy": ("presence", "occupancy"),
    "gas": ("gas",),
    "water": ("water",),
}
"""Words a device class adds to what may name an entity ("the garage door" is a garage cover)."""
_OPENING = frozenset({"door", "window", "garage_door", "opening"})
"""Binary sensor classes whose on and off a question reads as open and closed."""


def state_check(request: IntentRequest) -> IntentResult:
    """HomeAgentStateCheck: whether the one exposed device the words name is in ``state``.

    "is the shed locked", "is the gas valve open", "is the garage door open" where no entity
    has that name: every word of the subject (filler words left out) must name the entity (its
    name, aliases, device, area or device class). Exactly one fits, or the question is left to
    the model. A door or window sensor's on and off are read as open and closed.
    """
    subject = _words(slot_text(request.slots, "subject") or "") - _SUBJECT_FILLER
    wanted = set(slot_texts(request.slots, "state"))
    domains = set(slot_texts(request.slots, "domain")) if "domain" in request.slots else None
    constraints = MatchTargetsConstraints(domains=domains, assistant=ASSISTANT)
    result = match_targets(request.model, constraints, request.preferences)
    fitting: list[EntityState] = []
    for candidate in result.states if subject and result.is_match else ():
        entity = request.model.entity(candidate.entity_id)
        device_class = entity.device_class if entity is not None else None
        if (
            candidate.domain == "binary_sensor"
            and wanted & {"open", "closed"}
            and device_class not in _OPENING
        ):
            continue
        words = _describing_words(request.model, candidate) | set(
            _CLASS_WORDS.get(device_class or "", ())
        )
        if device_class:
            words |= _words(device_class.replace("_", " "))
        if subject <= words:
            fitting.append(candidate)
    if len(fitting) != 1:
        return _no_answer(request, f"{len(fitting)} exposed devices fit; ask which one")
    found = report(fitting[0])
    entity = request.model.entity(found.entity_id)
    if found.entity_id.startswith("binary_sensor.") and entity and entity.device_class in _OPENING:
        spoken = OPENING_STATES.get(found.state, found.state)
        found = StateReport(found.entity_id, found.name, spoken, found.attributes)
    if found.state in wanted:
        return _answer(request, [found])
    return _answer(request, [], unmatched=[found])


def _area_own_sensors(model: HomeModel, areas: Sequence[Area], classes: set[str]) -> set[str]:
    """The sensors the matched areas name as their own temperature or humidity."""
    own: set[str] = set()
    for matched in areas:
        area = model.areas.get(matched.area_id)
        if area is None:
            continue
        if "temperature" in classes and area.temperature_entity_id:
            own.add(area.temperature_entity_id)
        if "humidity" in classes and area.humidity_entity_id:
            own.add(area.humidity_entity_id)
    return own


def _weather(model: HomeModel, name: str | None) -> EntityState | None:
    """The weather entity Home Assistant's HassGetWeather would pick: the first exposed one."""
    constraints = MatchTargetsConstraints(name=name, domains={"weather"}, assistant=ASSISTANT)
    result = match_targets(model, constraints)
    return result.states[0] if result.is_match and result.states else None


def weather_condition(request: IntentRequest) -> IntentResult:
    """HomeAgentWeatherCondition: whether the weather's condition now is one of ``condition``."""
    weather = _weather(request.model, slot_text(request.slots, "name"))
    if weather is None:
        return _no_answer(request, "no weather entity is exposed to Assist")
    wanted = set(slot_texts(request.slots, "condition"))
    state = report(weather)
    if weather.state in wanted:
        return _answer(request, [state])
    return _answer(request, [], unmatched=[state])


def outside_temperature(request: IntentRequest) -> IntentResult:
    """HomeAgentOutsideTemperature: an outdoor temperature sensor, else the weather's.

    A sensor counts as outdoor when a word of its name, aliases, device or area is one of
    ``outside_words`` (the language's "outside", "outdoor"...). Only one such sensor answers
    for certain; several leave the question to the weather entity, then to the model.
    """
    outside = {word for text in slot_texts(request.slots, "outside_words") for word in _words(text)}
    constraints = MatchTargetsConstraints(
        domains={"sensor"}, device_classes={"temperature"}, assistant=ASSISTANT
    )
    result = match_targets(request.model, constraints)
    sensors = [
        s for s in result.states if outside and outside & _describing_words(request.model, s)
    ]
    if len(sensors) == 1:
        return _answer(request, [report(sensors[0])])
    weather = _weather(request.model, None)
    temperature = weather.attributes.get("temperature") if weather is not None else None
    if weather is None or temperature is None:
        return _no_answer(request, "no outdoor temperature sensor or weather entity")
    unit = weather.attributes.get("temperature_unit")
    if isinstance(temperature, float) and temperature.is_integer():
        temperature = int(temperature)  # Home Assistant shows 14 as 14.0; say "14 °C"
    reading = StateReport(
        weather.entity_id,
        weather.name,
        str(temperature),
        {"unit_of_measurement": unit} if unit else {},
    )
    return _answer(request, [reading])


async def list_items(request: IntentRequest) -> IntentResult:
    """HomeAgentListItems: the open items of the named to-do list (or the only one exposed)."""
    constraints = target_constraints(request.slots, domains={"todo"}, by_class=False)
    result = match_targets(request.model, constraints)
    if not result.is_match or len(result.states) != 1:
        return _no_answer(request, "no single exposed to-do list fits")
    todo = result.states[0]
    gate = Gate(dry_run=False, exposed=request.model.is_exposed)
    if not gate.entity(todo.entity_id).allowed:
        return _no_answer(request, f"{todo.entity_id} is not exposed to Assist")
    answer = await request.executor.read(
        ServiceCall("todo", "get_items", (todo.entity_id,), {"status": ["needs_action"]})
    )
    raw = as_object(answer.get(todo.entity_id)).get("items")
    items: JsonArray = [str(item["summary"]) for item in objects(raw) if item.get("summary")]
    return _answer(
        request,
        [report(todo)],
        speech_slots={"entries": items[:MAX_ITEMS], "count": len(items), "list": todo.name},
    )


async def calendar_events(request: IntentRequest) -> IntentResult:
    """HomeAgentCalendarEvents: the day's events of every exposed calendar (or the named one).

    ``day`` 0 is today, 1 tomorrow, in the home's time zone (``now``'s).
    """
    constraints = target_constraints(request.slots, domains={"calendar"}, by_class=False)
    result = match_targets(request.model, constraints)
    gate = Gate(dry_run=False, exposed=request.model.is_exposed)
    calendars = [s for s in result.states if gate.entity(s.entity_id).allowed]
    if not result.is_match or not calendars:
        return _no_answer(request, "no exposed calendar fits")
    offset = slot_int(request.slots, "day") or 0
    day = request.now.date() + timedelta(days=offset)
    start = datetime.combine(day, time(), request.now.tzinfo)
    end = start + timedelta(days=1)
    answer = await request.executor.read(
        ServiceCall(
            "calendar",
            "get_events",
            tuple(s.entity_id for s in calendars),
            {"start_date_time": start.isoformat(), "end_date_time": end.isoformat()},
        )
    )
    events: list[tuple[str, str, str]] = []
    for calendar in calendars:
        for event in objects(as_object(answer.get(calendar.entity_id)).get("events")):
            if event.get("summary"):
                key, spoken = _event_time(event.get("start"), request.now)
                events.append((key, spoken, str(event["summary"])))
    events.sort()
    said: JsonArray = [{"summary": summary, "time": at} for _key, at, summary in events]
    return _answer(
        request,
        [report(calendar) for calendar in calendars],
        speech_slots={
            "events": said[:MAX_ITEMS],
            "count": len(events),
            "day": offset,
        },
    )


def _event_time(start: JsonValue, now: datetime) -> tuple[str, str]:
    """A sort key and the spoken start ("09:30"; "" for an all-day event) of an event."""
    text = str(start or "")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return "", ""
    if len(text) <= len("2025-01-01"):
        return date.fromisoformat(text[:10]).isoformat(), ""
    if moment.tzinfo is not None and now.tzinfo is not None:
        moment = moment.astimezone(now.tzinfo)
    return moment.isoformat(), moment.strftime("%H:%M")
