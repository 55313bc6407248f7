"""What a listener hears when a local command fails: Home Assistant's own sentence for it.

A failed result carries two things: ``message``, the explanation a model reads in its tool
result (the closest names, "is not exposed to Assist, so it cannot be used; the user can
expose it in…"), and, for a failed target match, the :class:`MatchFailure` (why, and what was
asked for). A person is never read the first. They hear what Home Assistant's agent says for
the same failure: its ``_get_match_error_response`` (``conversation/default_agent.py``, 2025.4)
picks an error key and its arguments, and the language's error template in
``home-assistant-intents`` (``responses.errors``: "Sorry, I am not aware of any device called
{{ entity }}", "Sorry, no {{ domain }} in the {{ area }} area is exposed") says it.

:func:`failure_key` is that port. Where Home Assistant 2025.4 falls back to its catch-all
"Sorry, I couldn't understand that", we say the specific sentence its data has for the case:

* a name that matched nothing: ``no_entity`` (``_in_area``, ``_in_floor``), what Home
  Assistant says for a name its recogniser did not know;
* a known name whose state or features did not fit: ``entity_wrong_state``,
  ``feature_not_supported``;
* nothing of that name, class or domain in the area or on the floor: ``no_entity_in_area``,
  ``no_device_class_in_area``, ``no_domain_in_area`` and their floor forms (also for a device
  class on a floor, where Home Assistant drops the floor);
* several targets where one was needed: ``duplicate_targets`` (newer Home Assistant's key).

The templates come from the pinned package, which has every key in every language it ships;
where a template is missing or fails, our own sentence in the request's language is said
instead (:mod:`addon.i18n.translations`, ``could_not_do``).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping

from addon.home.actions.failure import match_failed
from addon.home.actions.intents import ASSISTANT
from addon.home.actions.response import ErrorCode, IntentResult
from addon.home.model.live import HomeModel
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import MatchFailedReason, MatchFailure, MatchTargetsConstraints
from addon.i18n.translations import messages_for
from addon.local.response_templates import ResponseTemplates
from addon.local.slots import slot_text
from addon.text import JsonValue

_LOGGER = logging.getLogger(__name__)

NO_INTENT = "no_intent"
HANDLE_ERROR = "handle_error"


def spoken_failure(result: IntentResult, templates: ResponseTemplates | None) -> str:
    """The short sentence a listener hears for the failed ``result``, in its language."""
    if result.failure is not None:
        key, arguments = failure_key(result.failure)
    elif result.error_code in (ErrorCode.FAILED_TO_HANDLE, ErrorCode.UNKNOWN):
        key, arguments = HANDLE_ERROR, {}
    else:
        key, arguments = NO_INTENT, {}
    return _say(key, arguments, templates, result.intent, result.language)


def spoken_match_failure(
    failure: MatchFailure, templates: ResponseTemplates | None, intent: str, language: str
) -> str:
    """What Home Assistant's agent says for ``failure`` ("Sorry, Front Door is not exposed")."""
    key, arguments = failure_key(failure)
    return _say(key, arguments, templates, intent, language)


def spoken_unknown(
    unmatched: Mapping[str, str],
    matched: Mapping[str, str],
    templates: ResponseTemplates | None,
    intent: str,
    language: str,
) -> str:
    """What Home Assistant says when its sentences match only with names the home lacks.

    Its ``_get_unmatched_response``: an unknown area is ``no_area``, else an unknown floor
    ``no_floor``, else an unknown name ``no_entity`` in the area or on the floor that did
    match, else ``no_intent``. ``unmatched`` and ``matched`` map slots to the words said.
    """
    key, arguments = NO_INTENT, {}
    if area := unmatched.get("area"):
        key, arguments = "no_area", {"area": area}
    elif floor := unmatched.get("floor"):
        key, arguments = "no_floor", {"floor": floor}
    elif name := unmatched.get("name"):
        key, arguments = _placed(
            "no_entity", {"entity": name}, matched.get("area"), matched.get("floor")
        )
    return _say(key, arguments, templates, intent, language)


def _say(
    key: str,
    arguments: Mapping[str, str],
    templates: ResponseTemplates | None,
    intent: str,
    language: str,
) -> str:
    """Error template ``key`` rendered, or our own sentence where it is missing or fails."""
    text = templates.render_error(key, arguments) if templates is not None else None
    if text is None:
        _LOGGER.warning("No %r error sentence for %s in %r; saying our own", key, intent, language)
        return messages_for(language).could_not_do
    return text


def unexposed_failure(
    intent: str, slots: Mapping[str, JsonValue], model: HomeModel, language: str
) -> IntentResult | None:
    """The failure for a sentence that matched only with a name not exposed to Assist.

    Home Assistant hands such a match to the intent's handler, which fails on exposure; a
    question's handler (HassGetState) answers an empty "no" instead. We skip the handler, so
    nothing can act, and fail every intent alike: ``no_entity_exposed`` ("Sorry, Front Door is
    not exposed"), or, if the area or floor said has no such device, ``no_entity_in_area``.
    None when the name turns out to be exposed after all (nothing to say about it here).
    """
    constraints = MatchTargetsConstraints(
        name=slot_text(slots, "name"),
        area_name=slot_text(slots, "area"),
        floor_name=slot_text(slots, "floor"),
        assistant=ASSISTANT,
    )
    result = match_targets(model, constraints)
    if result.is_match:
        return None
    return match_failed(intent, result, constraints, model, language=language)


def failure_key(failure: MatchFailure) -> tuple[str, dict[str, str]]:
    """Home Assistant's error key for ``failure``, and the template's arguments."""
    reason, constraints = failure.reason, failure.constraints
    name = constraints.name
    area, floor = constraints.area_name, constraints.floor_name
    device_class = _first(constraints.device_classes)
    domain = _first(constraints.domains)
    if reason in (MatchFailedReason.DEVICE_CLASS, MatchFailedReason.DOMAIN) and device_class:
        return _placed("no_device_class", {"device_class": device_class}, area, floor)
    if reason is MatchFailedReason.DOMAIN and domain:
        return _placed("no_domain", {"domain": domain}, area, floor)
    if reason is MatchFailedReason.DUPLICATE_NAME:
        # Home Assistant looks at the floor before the area here, and only here.
        entity = {"entity": failure.no_match_name or name or ""}
        if floor:
            return "duplicate_entities_in_floor", {**entity, "floor": floor}
        return _placed("duplicate_entities", entity, area, None)
    if reason is MatchFailedReason.INVALID_AREA:
        return "no_area", {"area": failure.no_match_name or area or ""}
    if reason is MatchFailedReason.INVALID_FLOOR:
        return "no_floor", {"floor": failure.no_match_name or floor or ""}
    if reason is MatchFailedReason.FEATURE:
        return "feature_not_supported", {}
    if reason is MatchFailedReason.STATE and (state := _first(constraints.states)):
        return _wrong_state(state, domain, device_class)
    if reason is MatchFailedReason.ASSISTANT:
        return _unexposed(name, device_class, domain, area, floor)
    # From here on Home Assistant 2025.4 says "Sorry, I couldn't understand that".
    if reason is MatchFailedReason.NAME and failure.name_exists:
        if state := _first(constraints.states):
            return _wrong_state(state, domain, device_class)
        if constraints.features:
            return "feature_not_supported", {}
    if reason in (MatchFailedReason.NAME, MatchFailedReason.AREA, MatchFailedReason.FLOOR):
        return _target_key(name, device_class, domain, area, floor) or (NO_INTENT, {})
    if reason is MatchFailedReason.MULTIPLE_TARGETS:
        return "duplicate_targets", {}
    return NO_INTENT, {}


def _wrong_state(
    state: str, domain: str | None, device_class: str | None
) -> tuple[str, dict[str, str]]:
    """``entity_wrong_state`` with the domain and class some languages' templates read.

    Home Assistant passes only the state; German, for one, says "Es läuft gerade kein Media
    Player" when it also knows the domain, and "Kein Gerät hat den Status playing" without.
    """
    arguments = {"state": state}
    if domain:
        arguments["domain"] = domain
    if device_class:
        arguments["device_class"] = device_class
    return "entity_wrong_state", arguments


def _unexposed(
    name: str | None,
    device_class: str | None,
    domain: str | None,
    area: str | None,
    floor: str | None,
) -> tuple[str, dict[str, str]]:
    """Home Assistant's keys for a target that exists but is not exposed to Assist."""
    found = _target_key(name, device_class, domain, area, floor)
    if found is None:
        return NO_INTENT, {}
    key, arguments = found
    return f"{key}_exposed", arguments


def _target_key(
    name: str | None,
    device_class: str | None,
    domain: str | None,
    area: str | None,
    floor: str | None,
) -> tuple[str, dict[str, str]] | None:
    """``no_entity``, else ``no_device_class``, else ``no_domain``, placed; None: none was asked."""
    if name:
        return _placed("no_entity", {"entity": name}, area, floor)
    if device_class:
        return _placed("no_device_class", {"device_class": device_class}, area, floor)
    if domain:
        return _placed("no_domain", {"domain": domain}, area, floor)
    return None


def _placed(
    key: str, arguments: dict[str, str], area: str | None, floor: str | None
) -> tuple[str, dict[str, str]]:
    """``key`` with ``_in_area`` or ``_in_floor`` when a place was named (the area first)."""
    if area:
        return f"{key}_in_area", {**arguments, "area": area}
    if floor:
        return f"{key}_in_floor", {**arguments, "floor": floor}
    return key, arguments


def _first(values: Collection[str] | None) -> str | None:
    """The first of ``values`` in sorted order (Home Assistant takes a set's first)."""
    return min(values) if values else None
