"""What to say after a locally handled command: Home Assistant's own response templates.

``home-assistant-intents`` ships a Jinja template per intent and response key ("Turned on the
light", "Brightness set", "{{ slots.name | capitalize }} is {{ state.state_with_unit }}").
Home Assistant's ``DefaultAgent._build_speech`` renders the template named by the recognised
sentence's ``response`` key with three variables (plus its ``state_attr`` function), and we
give them the same meaning:

* ``slots``: each recognised slot's spoken text (else its value), overlaid with the handler's
  ``speech_slots``;
* ``state``: the first matched state, else the first unmatched one;
* ``query``: ``matched`` and ``unmatched`` states.

It does so only when the handler set no speech of its own, and collapses whitespace afterwards.
Templates are trusted package data, but they run in Jinja's immutable sandbox anyway
(:mod:`addon.local.response_templates`), so a template can never change the states it is
shown. When a template is missing or fails on our data, a short sentence is built from the
result instead, in the request's language (:mod:`addon.i18n.translations`): an answer is always
spoken. A failure is said in Home Assistant's words for it, never in the explanation meant for a
model (:mod:`addon.local.failure_speech`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Mapping

from addon.home.actions.response import IntentResult, ResponseType, StateReport, TargetType
from addon.home.model.records import EntityIdParts
from addon.i18n.messages import Action, Done, Messages
from addon.i18n.translations import messages_for
from addon.local.failure_speech import spoken_failure
from addon.local.matcher import LocalMatch

_VERBS = {
    "HassTurnOn": Action.TURNED_ON,
    "HassTurnOff": Action.TURNED_OFF,
    "HassToggle": Action.TOGGLED,
}
"""Fallback wording for the intents whose success list says it all."""


class TemplateState(EntityIdParts):
    """A state as a response template reads it: HA's ``TemplateState`` attributes we have."""

    __slots__ = ("attributes", "entity_id", "name", "state")

    def __init__(self, report: StateReport) -> None:
        self.entity_id = report.entity_id
        self.name = report.name
        self.state = report.state
        self.attributes = dict(report.attributes)

    @property
    def state_with_unit(self) -> str:
        """The state followed by its unit, as HA's ``TemplateState.state_with_unit``."""
        unit = self.attributes.get("unit_of_measurement")
        return f"{self.state} {unit}" if unit else self.state

    def __str__(self) -> str:
        return self.state


def template_variables(match: LocalMatch, result: IntentResult) -> dict[str, object]:
    """``slots``, ``state``, ``query`` and ``state_attr`` as ``_build_speech`` provides them.

    Home Assistant's service intents report the entities they acted on as matched states;
    where our result only lists them as success targets, those stand in (with an unknown
    state), which is all templates like "Turned on {{ … state.domain }}" need.
    """
    matched_reports = result.matched_states
    acted = result.response_type is not ResponseType.QUERY_ANSWER
    if acted and not matched_reports and not result.unmatched_states:
        matched_reports = tuple(
            StateReport(target.id, target.name, "")
            for target in result.success
            if target.type is TargetType.ENTITY and target.id is not None
        )
    matched = [TemplateState(report) for report in matched_reports]
    unmatched = [TemplateState(report) for report in result.unmatched_states]
    by_id = {state.entity_id: state for state in (*matched, *unmatched)}

    def state_attr(entity_id: str, attribute: str) -> object:
        state = by_id.get(entity_id)
        if state is None:
            return None
        if attribute == "current_temperature" and state.domain == "sensor":
            # Home Assistant 2025.4's template reads only a thermostat's attribute; its newer
            # one falls back on the state. A temperature sensor's state is its temperature.
            return state.attributes.get(attribute, state.state)
        return state.attributes.get(attribute)

    first = matched[0] if matched else unmatched[0] if unmatched else None
    return {
        "slots": {**match.speech_slots, **_revived(result.speech_slots)},
        "state": first,
        "query": {"matched": matched, "unmatched": unmatched},
        "state_attr": state_attr,
    }


def _revived(speech_slots: Mapping[str, object]) -> dict[str, object]:
    """Speech slots with ISO ``time``/``date`` strings turned back into the objects HA passes.

    Our results keep them as strings so they stay JSON; the templates read ``slots.time.hour``.
    """
    slots = dict(speech_slots)
    for key, kind in (("time", dt.time), ("date", dt.date)):
        value = slots.get(key)
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                slots[key] = kind.fromisoformat(value)
    return slots


def render_speech(match: LocalMatch, result: IntentResult) -> str:
    """What to say for ``result``: the handler's speech, HA's template, or plain words.

    A failure is said as Home Assistant's agent says it (:mod:`addon.local.failure_speech`),
    never with the result's message, which explains the failure to a model.
    """
    if result.is_error:
        return spoken_failure(result, match.templates)
    if result.speech:
        return result.speech
    if match.response_key is not None and match.templates is not None:
        text = match.templates.render(
            match.intent, match.response_key, template_variables(match, result)
        )
        if text is not None:
            return text
    return fallback_speech(result)


def fallback_speech(result: IntentResult) -> str:
    """A short sentence from the result alone, in its language, for when no template applies."""
    words = messages_for(result.language)
    if result.matched_states and not result.success:
        return "; ".join(_describe(report, words) for report in result.matched_states[:3])
    names = [target.name for target in result.success if target.name]
    action = _VERBS.get(result.intent)
    if action and names:
        return words.acted(Done(action, tuple(names)))
    return words.done


def _describe(report: StateReport, words: Messages) -> str:
    """'Kitchen Lights is on', with the unit when the state has one."""
    unit = report.attributes.get("unit_of_measurement")
    value = f"{report.state} {unit}" if unit else report.state
    return words.state(report.name, value)
