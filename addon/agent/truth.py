"""A reply never claims what did not happen: the model's last words checked against the turn.

A model that called ``HassTurnOff`` on an unexposed front door, read "no_valid_targets", and
then wrote "The front door is unlocked." would be believed: the person hears a door unlocked
that stayed locked. After the model's last message, before anything is stored, the turn's
action calls are compared with what the reply says, in process, with no model call:

* **every action failed or was refused** (a retry that later worked does not count as a
  failure): the person hears Home Assistant's own sentence for each failure, as the local path
  says it ("Sorry, Front Door is not exposed"), and the turn is failed (its error set, its
  outcome "failed");
* **some failed, some worked**: the reply keeps the model's words and adds the sentence of what
  failed, and the turn carries an error naming it.

The model's own text stays in the turn's messages and trace. A failure that has no sentence of
Home Assistant's (a custom tool's refusal) is said in our own words in the request's language.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from addon.agent.loop import WRITTEN_IN_RESULT
from addon.tools.registry import ToolOutcome

NOT_ACTIONS = frozenset({"HassClimateGetTemperature", "HassNevermind", "HassRespond"})
"""Intent tools named like actions that change nothing in the home."""

FailureSpeech = Callable[[ToolOutcome], str]
"""The sentence a person hears for one failed call, in the request's language."""


@dataclass(frozen=True, slots=True)
class TruthCheck:
    """What the person hears instead of the model's reply, and what the turn records."""

    reply: str
    error: str
    """The turn's error: what failed (found by the dashboard's failed turns and the filter)."""
    all_failed: bool
    """Nothing the turn tried to do happened: the turn's outcome is "failed"."""


def is_action(outcome: ToolOutcome) -> bool:
    """Whether the call tried to change the home for the person.

    An acting intent, a tool that acted, or one the gate refused; not a call copied out of a
    tool result and refused unrun (text from outside is not the person's request; the real-HA test
    tests/agent/test_outside_text_real_ha.py keeps its answer).
    """
    if outcome.result.error_code == WRITTEN_IN_RESULT:
        return False
    if outcome.acted or outcome.refused:
        return True
    name = outcome.name
    return name.startswith("Hass") and not name.startswith("HassGet") and name not in NOT_ACTIONS


def failed_action(outcome: ToolOutcome) -> bool:
    """Whether the call was an action that did not happen (what the model says next is checked)."""
    return is_action(outcome) and outcome.failed


def check_reply(
    outcomes: Sequence[ToolOutcome], reply: str, speech: FailureSpeech
) -> TruthCheck | None:
    """The corrected reply when the turn's actions failed; None when the reply may stand.

    A failed call followed by a successful call of the same tool is a retry that worked.
    """
    actions = [outcome for outcome in outcomes if is_action(outcome)]
    if not actions:
        return None
    failures = [
        outcome
        for index, outcome in enumerate(actions)
        if outcome.failed
        and not any(
            later.name == outcome.name and not later.failed for later in actions[index + 1 :]
        )
    ]
    if not failures:
        return None
    sentences = list(dict.fromkeys(speech(outcome) for outcome in failures))
    said = " ".join(sentences)
    names = ", ".join(dict.fromkeys(outcome.name for outcome in failures))
    if len(failures) == len(actions):
        return TruthCheck(said, f"every action of the turn failed ({names})", all_failed=True)
    kept = reply if all(sentence in reply for sentence in sentences) else f"{reply} {said}".strip()
    return TruthCheck(kept, f"part of the turn failed ({names})", all_failed=False)
