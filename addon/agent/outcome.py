"""The outcome check: whether the home really changed the way the turn said it did.

A few seconds after a turn that acted, the states Home Assistant reported (the live home model,
kept current by ``subscribe_entities``) are compared with what each successful intent implies.
A turn is flagged when a claimed target did not reach the expected state, or when the reply
claims an action although no tool acted — the failure people find hardest to spot by ear; that
claim is read in the request's language.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from addon.i18n.claims import claims_action
from addon.text import JsonArray, JsonObject
from addon.tools.registry import ToolOutcome

# Accepted states per (intent, domain); transitional states count, since covers and locks take
# time and the check must not flag a door that is still closing.
_ON = {"on"}
EXPECTED_STATES: dict[tuple[str, str], set[str]] = {
    **{("HassTurnOn", d): _ON for d in ("light", "switch", "fan", "input_boolean", "siren")},
    **{("HassTurnOff", d): {"off"} for d in ("light", "switch", "fan", "input_boolean", "siren")},
    ("HassTurnOn", "cover"): {"open", "opening"},
    ("HassTurnOff", "cover"): {"closed", "closing"},
    ("HassTurnOn", "valve"): {"open", "opening"},
    ("HassTurnOff", "valve"): {"closed", "closing"},
    ("HassTurnOn", "lock"): {"locked", "locking"},
    ("HassTurnOff", "lock"): {"unlocked", "unlocking", "open", "opening"},
    ("HassLightSet", "light"): _ON,
    ("HassMediaPause", "media_player"): {"paused", "idle"},
    ("HassMediaUnpause", "media_player"): {"playing"},
    ("HassVacuumStart", "vacuum"): {"cleaning"},
    ("HassVacuumReturnToBase", "vacuum"): {"returning", "docked", "idle"},
    ("HassVacuumCleanArea", "vacuum"): {"cleaning"},
    ("HassLawnMowerStartMowing", "lawn_mower"): {"mowing"},
    ("HassLawnMowerDock", "lawn_mower"): {"returning", "docked"},
}

# A custom tool's Home Assistant action, read as the intent whose expected states apply.
ACTION_INTENTS: dict[str, str] = {
    "turn_on": "HassTurnOn",
    "turn_off": "HassTurnOff",
    "open_cover": "HassTurnOn",
    "close_cover": "HassTurnOff",
    "open_valve": "HassTurnOn",
    "close_valve": "HassTurnOff",
    "lock": "HassTurnOn",
    "unlock": "HassTurnOff",
    "media_pause": "HassMediaPause",
    "media_play": "HassMediaUnpause",
    "start": "HassVacuumStart",
    "return_to_base": "HassVacuumReturnToBase",
}

StateReader = Callable[[str], str | None]

type Verdict = Literal["confirmed", "mismatch", "not_applicable"]
"""What the check found: the targets reached their states, one did not (or the reply claims
an action no tool did), or there was nothing to compare."""


@dataclass(frozen=True, slots=True)
class OutcomeVerdict:
    """The check's result as stored on the turn."""

    outcome: Verdict
    flagged: bool
    detail: JsonObject
    """What was compared, as the turn stores it (JSON)."""


@dataclass(frozen=True, slots=True)
class ActingTarget:
    """One entity a successful intent says it acted on, and the intent whose states apply."""

    intent: str
    entity_id: str
    domain: str


def acting_targets(outcomes: Sequence[ToolOutcome]) -> list[ActingTarget]:
    """Every target a successful intent says it acted on.

    A custom tool's action counts as the intent it amounts to (``light.turn_on`` as
    ``HassTurnOn``); an action with no such intent is still a target, just not one with an
    expected state.
    """
    targets: list[ActingTarget] = []
    for outcome in outcomes:
        if outcome.ok and outcome.acted:
            for acted in outcome.acted:
                service = acted.action.partition(".")[2]
                domain = acted.entity_id.split(".", 1)[0]
                intent = ACTION_INTENTS.get(service, acted.action)
                targets.append(ActingTarget(intent, acted.entity_id, domain))
            continue
        if not outcome.ok:
            continue
        for target in outcome.result.entity_targets():
            targets.append(ActingTarget(outcome.name, target.id, target.id.split(".", 1)[0]))
    return targets


def check_outcome(
    outcomes: Sequence[ToolOutcome], reply: str, read_state: StateReader, *, language: str
) -> OutcomeVerdict:
    """Compare what the turn claimed with the states now reported.

    ``language`` is the request's: a reply's claims are read in it (:mod:`addon.i18n.claims`).
    """
    targets = acting_targets(outcomes)
    if not targets:
        if claims_action(reply, language):
            return OutcomeVerdict(
                "mismatch",
                True,
                {"reason": "the reply claims an action but no tool acted", "reply": reply[:300]},
            )
        return OutcomeVerdict("not_applicable", False, {})
    checked: JsonArray = []
    mismatched: JsonArray = []
    for target in targets:
        expected = EXPECTED_STATES.get((target.intent, target.domain))
        if expected is None:
            continue
        actual = read_state(target.entity_id)
        entry: JsonObject = {
            "entity_id": target.entity_id,
            "intent": target.intent,
            "expected": [*sorted(expected)],
            "actual": actual,
        }
        checked.append(entry)
        if actual not in expected:
            mismatched.append(entry)
    if not checked:
        return OutcomeVerdict("not_applicable", False, {"targets": len(targets)})
    if mismatched:
        return OutcomeVerdict(
            "mismatch",
            True,
            {"reason": "a target did not reach the state the turn claimed", "entities": mismatched},
        )
    return OutcomeVerdict("confirmed", False, {"entities": checked})
