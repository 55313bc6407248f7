"""Intents that call one service per matched entity: Home Assistant's service intent handlers.

A port of ``DynamicServiceIntentHandler`` (``helpers/intent.py``), its ``OnOffIntentHandler``
(``components/intent``) and the handlers built on it in the light, cover/valve, media player,
fan and vacuum integrations, Home Assistant 2025.4, with the later release's handler
constraints where the connected home runs it (:func:`service_rule`):

* targets come from ``match_targets`` with the handler's own required domains, features and
  states (HassMediaNext only sees playing players that can skip) and the caller's name, area,
  floor, domain and device class; ``name: "all"`` means no name; no constraint at all is
  refused ("cannot target all devices");
* every matched entity gets its own call, all in parallel, each waited for 0.2 s (then it
  finishes in the background), and each lands in ``success`` or ``failed``; the targeted areas
  or floors come first in ``success``. Only when nothing succeeded is the answer an error;
* HassTurnOn/HassTurnOff open/close covers and valves, lock/unlock locks, and otherwise use
  ``homeassistant.turn_on``/``turn_off`` when the entity's domain has that service (a sensor
  does not: that entity fails). HassToggle has no such rules (``homeassistant.toggle``).

Where we differ on purpose (the contract tests pin each difference down):

* a call Home Assistant refuses within the 0.2 s (an entity lacking the feature, a value out of
  range) is reported under ``failed``. Home Assistant 2025.4 lists it under ``success``: its
  ``_run_then_background`` waits with ``asyncio.wait``, which never re-raises, so a model would
  be told "done" for a valve that never moved (2026.11 re-raises it and agrees with us);
* failures are attributed to the entity that failed. Home Assistant 2025.4 pairs the states
  with ``asyncio.as_completed`` results, so it names whichever entities finished first
  (2026.11 pairs them with ``asyncio.gather`` and agrees with us);
* HassMediaUnpause does not remember which players were paused by voice (it resumes every
  matched paused player), and the default agent's speech templates are not ported.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, replace

from addon.errors import ToolError
from addon.home.actions.executor import Executor, ServiceCall
from addon.home.actions.request import IntentRequest
from addon.home.actions.response import (
    ErrorCode,
    IntentResult,
    IntentTarget,
    ResponseType,
    TargetType,
)
from addon.home.actions.slot_targets import target_constraints
from addon.home.actions.slots import SlotValue, slot_texts
from addon.home.actions.wire import slot_json
from addon.home.model.features import (
    LawnMowerEntityFeature,
    MediaPlayerEntityFeature,
    VacuumEntityFeature,
)
from addon.home.model.records import EntityState
from addon.home.model.release import Release
from addon.home.targeting.matching import match_targets
from addon.text import JsonObject, JsonValue

_LOGGER = logging.getLogger(__name__)

SERVICE_TIMEOUT = 0.2
"""``DynamicServiceIntentHandler.service_timeout``: catch validation errors, not slow motors."""

# OnOffIntentHandler: the entity's own service for turn_on/turn_off, by domain.
_ON_OFF_DOMAINS: dict[str, dict[str, str]] = {
    "cover": {"turn_on": "open_cover", "turn_off": "close_cover"},
    "lock": {"turn_on": "lock", "turn_off": "unlock"},
    "valve": {"turn_on": "open_valve", "turn_off": "close_valve"},
}
_POSITION_SERVICES = {"cover": "set_cover_position", "valve": "set_valve_position"}


class IntentHandleError(ToolError):
    """Home Assistant's ``IntentHandleError``: the intent matched but cannot be carried out."""


@dataclass(frozen=True, slots=True)
class ServiceRule:
    """How one service intent is handled (the arguments of HA's ``ServiceIntentHandler``)."""

    domain: str
    service: str
    required_domains: frozenset[str] | None = None
    required_features: int | None = None
    required_states: frozenset[str] | None = None
    slot_data: tuple[tuple[str, str], ...] = ()
    """(slot, service data key) pairs copied into the call when the slot was given."""
    fixed_data: tuple[tuple[str, JsonValue], ...] = ()
    """Service data the handler always sends, whatever the slots say (mute: muted or not)."""
    on_off: bool = False
    """OnOffIntentHandler's domain rules (HassTurnOn/HassTurnOff)."""
    by_domain: Mapping[str, str] | None = None
    """Service per entity domain (HassSetPosition); other domains are refused."""
    speech: str | None = None
    requirement: str | None = None
    """The required states/features in words, for a failure message."""


def _in_domain(
    domain: str,
    service: str,
    *,
    required_features: int | None = None,
    required_states: frozenset[str] | None = None,
    slot_data: tuple[tuple[str, str], ...] = (),
    fixed_data: tuple[tuple[str, JsonValue], ...] = (),
    requirement: str | None = None,
) -> ServiceRule:
    """The rule of a handler that calls ``domain``'s service on ``domain``'s entities only.

    Every integration's own intent handler passes ``required_domains={DOMAIN}`` with the
    domain of the service it calls (media player, fan, vacuum, lawn mower).
    """
    return ServiceRule(
        domain,
        service,
        required_domains=frozenset({domain}),
        required_features=required_features,
        required_states=required_states,
        slot_data=slot_data,
        fixed_data=fixed_data,
        requirement=requirement,
    )


_PLAYING = frozenset({"playing"})


def _muting(muted: bool) -> ServiceRule:
    """``MediaPlayerMuteUnmuteHandler``: one handler for both intents, which fix the flag."""
    return _in_domain(
        "media_player",
        "volume_mute",
        required_features=MediaPlayerEntityFeature.VOLUME_MUTE,
        fixed_data=(("is_volume_muted", muted),),
        requirement="able to mute",
    )


SERVICE_RULES: dict[str, ServiceRule] = {
    "HassTurnOn": ServiceRule("homeassistant", "turn_on", on_off=True),
    "HassTurnOff": ServiceRule("homeassistant", "turn_off", on_off=True),
    "HassToggle": ServiceRule("homeassistant", "toggle"),
    "HassLightSet": ServiceRule(
        "light",
        "turn_on",
        slot_data=(
            ("color", "rgb_color"),
            ("temperature", "color_temp_kelvin"),
            ("brightness", "brightness_pct"),
        ),
    ),
    "HassSetPosition": ServiceRule(
        "cover",
        "set_cover_position",
        slot_data=(("position", "position"),),
        by_domain=_POSITION_SERVICES,
    ),
    "HassMediaPause": _in_domain(
        "media_player",
        "media_pause",
        required_features=MediaPlayerEntityFeature.PAUSE,
        required_states=_PLAYING,
        requirement="playing and able to pause",
    ),
    "HassMediaUnpause": _in_domain(
        "media_player",
        "media_play",
        required_states=frozenset({"paused"}),
        requirement="paused",
    ),
    "HassMediaNext": _in_domain(
        "media_player",
        "media_next_track",
        required_features=MediaPlayerEntityFeature.NEXT_TRACK,
        required_states=_PLAYING,
        requirement="playing and able to skip to the next item",
    ),
    "HassMediaPrevious": _in_domain(
        "media_player",
        "media_previous_track",
        required_features=MediaPlayerEntityFeature.PREVIOUS_TRACK,
        required_states=_PLAYING,
        requirement="playing and able to go back to the previous item",
    ),
    "HassSetVolume": _in_domain(
        "media_player",
        "volume_set",
        required_features=MediaPlayerEntityFeature.VOLUME_SET,
        required_states=_PLAYING,
        slot_data=(("volume_level", "volume_level"),),
        requirement="playing and able to set its volume",
    ),
    "HassFanSetSpeed": _in_domain("fan", "turn_on", slot_data=(("percentage", "percentage"),)),
    "HassMediaPlayerMute": _muting(True),
    "HassMediaPlayerUnmute": _muting(False),
    "HassLawnMowerStartMowing": _in_domain(
        "lawn_mower",
        "start_mowing",
        required_features=LawnMowerEntityFeature.START_MOWING,
        requirement="able to start mowing",
    ),
    "HassLawnMowerDock": _in_domain(
        "lawn_mower",
        "dock",
        required_features=LawnMowerEntityFeature.DOCK,
        requirement="able to dock",
    ),
    "HassVacuumStart": _in_domain("vacuum", "start"),
    "HassVacuumReturnToBase": _in_domain("vacuum", "return_to_base"),
}
"""The rules as Home Assistant 2025.4 has them; :func:`service_rule` gives a release's.

Mute, unmute and the lawn mower's are 2026.11's (2025.4 has no such intents): the handlers
``MediaPlayerMuteUnmuteHandler`` (``media_player/intent.py``) and ``lawn_mower/intent.py``'s
two ``ServiceIntentHandler``s."""

_REQUIRING_RULES: dict[str, ServiceRule] = {
    "HassLightSet": replace(SERVICE_RULES["HassLightSet"], required_domains=frozenset({"light"})),
    "HassVacuumStart": replace(
        SERVICE_RULES["HassVacuumStart"],
        required_features=VacuumEntityFeature.START,
        requirement="able to start",
    ),
    "HassVacuumReturnToBase": replace(
        SERVICE_RULES["HassVacuumReturnToBase"],
        required_features=VacuumEntityFeature.RETURN_HOME,
        requirement="able to return to base",
    ),
}
"""The rules that changed when handlers began to require what they call (2026.11): see
:attr:`Release.handlers_require_what_they_call`."""

_ANY_STATE_VOLUME = replace(
    SERVICE_RULES["HassSetVolume"], required_states=None, requirement="able to set its volume"
)
"""HassSetVolume as 2026.11 has it: see :attr:`Release.sets_volume_in_any_state`."""


def service_rule(intent: str, release: Release) -> ServiceRule | None:
    """The rule for ``intent`` as Home Assistant ``release`` has it; None for another intent.

    Releases differ in which entities a handler matches, and so in what a request does: in
    2025.4 "set the living room to red" calls ``light.turn_on`` on the room's switch, fan and
    cover too and lists them as done; in 2026.11 only its lights are targeted. We follow the
    connected release, so what we report is what that Home Assistant would report.
    """
    if release.handlers_require_what_they_call and intent in _REQUIRING_RULES:
        return _REQUIRING_RULES[intent]
    if release.sets_volume_in_any_state and intent == "HassSetVolume":
        return _ANY_STATE_VOLUME
    return SERVICE_RULES.get(intent)


async def handle_service_intent(request: IntentRequest, rule: ServiceRule) -> IntentResult:
    """Match targets with the rule's constraints, then call the service on each of them."""
    required = rule.required_domains
    if (
        required is not None
        and "domain" in request.slots
        and not set(slot_texts(request.slots, "domain")) <= required
    ):
        # The handler's slot schema only accepts its own domains (``In(required_domains)``).
        return request.error(
            ErrorCode.INVALID_SLOTS,
            f"domain must be one of {sorted(required)} for {request.intent}",
        )
    constraints = target_constraints(
        request.slots,
        domains=rule.required_domains,
        features=rule.required_features,
        states=rule.required_states,
    )
    if constraints.name == "all":
        constraints = replace(constraints, name=None)
    if not constraints.has_constraints:
        return request.error(
            ErrorCode.FAILED_TO_HANDLE,
            "Service handler cannot target all devices: give a name, area, floor, domain "
            "or device class.",
        )
    result = match_targets(request.model, constraints, request.preferences)
    if not result.is_match:
        return request.no_match(result, constraints, rule.requirement)

    success: list[IntentTarget] = []
    if result.floors:
        success.extend(IntentTarget(f.name, TargetType.FLOOR, f.floor_id) for f in result.floors)
        speech_name = result.floors[0].name
    elif result.areas:
        success.extend(IntentTarget(a.name, TargetType.AREA, a.area_id) for a in result.areas)
        speech_name = result.areas[0].name
    else:
        speech_name = result.states[0].name

    data = _service_data(rule, request.slots)
    try:
        planned = [_plan(rule, state) for state in result.states]
    except IntentHandleError as err:
        return request.error(ErrorCode.FAILED_TO_HANDLE, str(err))
    calls_made = [
        _call(plan, state, rule, data, request.executor)
        for plan, state in zip(planned, result.states, strict=True)
    ]
    outcomes = await _each(calls_made)
    failed: list[IntentTarget] = []
    calls: list[ServiceCall] = []
    problems: list[str] = []
    for state, outcome in zip(result.states, outcomes, strict=True):
        target = IntentTarget(state.name, TargetType.ENTITY, state.entity_id)
        if isinstance(outcome, ServiceCall):
            success.append(target)
            calls.append(outcome)
        else:
            failed.append(target)
            problems.append(f"{state.entity_id}: {outcome}")
            if not isinstance(outcome, ToolError):
                _LOGGER.warning("Service call failed for %s: %r", state.entity_id, outcome)
    if not success:
        service = planned[-1][1] if planned else rule.service
        message = f"Failed to call {service} for: {[t.id for t in failed]} ({'; '.join(problems)})"
        return request.error(ErrorCode.FAILED_TO_HANDLE, message)
    return request.answer(
        ResponseType.ACTION_DONE,
        speech=rule.speech.format(speech_name) if rule.speech is not None else None,
        success=success,
        failed=failed,
        message="; ".join(problems) if problems else None,
        calls=calls,
    )


async def _each(calls: Sequence[Awaitable[ServiceCall]]) -> list[ServiceCall | BaseException]:
    """Run the entities' calls at once, each one's call or error in order (``return_exceptions``).

    One entity (the usual target) is awaited in place: gather would wrap it in a task of its
    own and give the event loop a turn before it starts, for nothing to overlap. Its error is
    returned as gather returns it; a cancellation of the turn still propagates.
    """
    if len(calls) != 1:
        return await asyncio.gather(*calls, return_exceptions=True)
    try:
        return [await calls[0]]
    except Exception as err:  # returned, as gather(return_exceptions=True) does
        return [err]


def _service_data(rule: ServiceRule, slots: Mapping[str, SlotValue]) -> JsonObject:
    """The slot values the rule copies into the service call."""
    data: JsonObject = dict(rule.fixed_data)
    for slot, key in rule.slot_data:
        if slot in slots:
            value = slots[slot]
            # HassSetVolume's schema divides the percentage by 100 before the call.
            if slot == "volume_level" and isinstance(value, int | float):
                data[key] = value / 100
            else:
                data[key] = slot_json(value)
    return data


def _plan(rule: ServiceRule, state: EntityState) -> tuple[str, str]:
    """``get_domain_and_service``: the domain and service the intent names for this entity."""
    if rule.by_domain is not None:
        service = rule.by_domain.get(state.domain)
        if service is None:
            raise IntentHandleError(f"Domain not supported: {state.domain}")
        return state.domain, service
    return rule.domain, rule.service


async def _call(
    plan: tuple[str, str],
    state: EntityState,
    rule: ServiceRule,
    data: Mapping[str, JsonValue],
    executor: Executor,
) -> ServiceCall:
    """One entity's call with OnOffIntentHandler's rules; returns the call made."""
    domain, service = plan
    call_data: Mapping[str, JsonValue] = data
    if rule.on_off:
        special = _ON_OFF_DOMAINS.get(state.domain)
        if special is not None:
            domain, service, call_data = state.domain, special[service], {}
        elif not await executor.has_service(state.domain, service):
            raise IntentHandleError(f"Service {service} does not support entity {state.entity_id}")
    call = ServiceCall(domain, service, (state.entity_id,), dict(call_data))
    await executor.call_service(call, wait=SERVICE_TIMEOUT)
    return call
