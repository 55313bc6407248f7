"""A drafted automation judged by the gate: by each action it will call, on exposed entities."""

from __future__ import annotations

from typing import Any

from addon.home.actions.actor import Actor
from addon.home.actions.confirmation import (
    ConfirmationPolicy,
    Holds,
    PolicyEntry,
    hash_pin,
)
from addon.home.actions.gate import Gate
from addon.home.actions.permissions import ActorRule, ActorRules
from addon.tools.automation import automation_entities, judge
from tests.fixtures.policy import default_policy

EXPOSED = {"light.kitchen", "lock.front_door", "binary_sensor.door", "cover.garage_door"}
CLASSES = {"cover.garage_door": "garage"}
AT_SEVEN = [{"trigger": "time", "at": "07:00:00"}]


def gate(entries: tuple[PolicyEntry, ...] | None = None) -> Gate:
    """The gate of a turn in a home exposing :data:`EXPOSED`, with the default policy."""
    holds = Holds(
        default_policy() if entries is None else ConfirmationPolicy.of(entries),
        describe=lambda entity_id: (CLASSES.get(entity_id), entity_id),
    )
    return Gate(False, EXPOSED.__contains__, holds=holds)


def config(*actions: dict[str, Any], triggers: list[dict[str, Any]] = AT_SEVEN) -> dict[str, Any]:
    """An automation doing ``actions`` on ``triggers``."""
    return {"alias": "A", "triggers": triggers, "conditions": [], "actions": list(actions)}


def turn_on(entity_id: str) -> dict[str, Any]:
    return {"action": "light.turn_on", "target": {"entity_id": entity_id}}


def test_an_automation_on_exposed_entities_is_approved_by_yes() -> None:
    """Lights at seven: nothing covered, a spoken yes approves it; the gate decided nothing."""
    judged = judge(config(turn_on("light.kitchen")), gate())
    assert (judged.refused, judged.covered, judged.confirm_by) == (None, None, "yes")
    assert judged.entities == ("light.kitchen",)


def test_the_entities_of_triggers_conditions_and_actions_are_listed_once() -> None:
    """A door sensor's trigger and the light it turns on, each once, in order."""
    door = [{"trigger": "state", "entity_id": "binary_sensor.door", "to": "on"}]
    both = config(turn_on("light.kitchen"), turn_on("light.kitchen"), triggers=door)
    assert automation_entities(both) == ("binary_sensor.door", "light.kitchen")


def test_an_unexposed_entity_refuses_the_draft() -> None:
    """The hall light is not exposed: the draft is refused, whatever it does."""
    judged = judge(config(turn_on("light.hall")), gate())
    assert judged.refused == "light.hall is not exposed to Assist"


def test_an_area_the_model_named_refuses_the_draft() -> None:
    """Only entities: an area stands for entities nobody checked one by one."""
    judged = judge(config({"action": "light.turn_on", "target": {"area_id": "kitchen"}}), gate())
    assert judged.refused is not None
    assert "area_id 'kitchen'" in judged.refused


def test_a_forbidden_action_nested_in_a_choice_refuses_the_draft() -> None:
    """A shell command inside ``choose`` is found and refused."""
    nested = {"choose": [{"conditions": [], "sequence": [{"action": "shell_command.wipe"}]}]}
    judged = judge(config(nested), gate())
    assert judged.refused == "shell_command.wipe can harm the host (shell_command.*)"
    assert [d.verdict for d in judged.decisions] == ["refuse"]


def test_an_unlock_covered_by_a_yes_entry_needs_the_panel() -> None:
    """The default lock entry is a plain yes: an automation unlocking later takes the panel."""
    unlock = {"action": "lock.unlock", "target": {"entity_id": "lock.front_door"}}
    judged = judge(config(unlock), gate())
    assert (judged.covered, judged.confirm_by) == ("lock.unlock on lock.front_door", "panel")


def test_an_unlock_covered_by_a_pin_entry_takes_that_pin() -> None:
    """With a PIN on the lock, the PIN approves the automation by voice."""
    pin = hash_pin("4711")
    entries = (PolicyEntry(1, "domain", "lock", ("unlock",), "pin", True, pin),)
    unlock = {"action": "lock.unlock", "entity_id": "lock.front_door"}
    judged = judge(config(unlock), gate(entries))
    assert (judged.confirm_by, judged.pin_hash) == ("pin", pin)


def test_a_generic_toggle_of_the_garage_is_judged_by_its_effect() -> None:
    """``homeassistant.toggle`` on the garage door opens it: covered like ``open_cover``."""
    toggle = {"action": "homeassistant.toggle", "target": {"entity_id": "cover.garage_door"}}
    judged = judge(config(toggle), gate())
    assert judged.covered is not None
    assert judged.confirm_by == "panel"


def test_judging_holds_nothing_of_the_turn() -> None:
    """The turn's holds and decisions are untouched: the actions run later, not now."""
    turn = gate()
    unlock = {"action": "lock.unlock", "target": {"entity_id": "lock.front_door"}}
    judge(config(unlock), turn)
    assert turn.holds is not None
    assert turn.holds.held == []
    assert turn.decisions == []


KIDS = Actor("wyoming", device_id="sat_kids", satellite_name="Kids Room Speaker")
LOCKS_READ = ActorRule(1, "satellite", "sat_kids", "Kids Room Speaker", "act", {"lock": "read"})


def gate_for(actor: Actor) -> Gate:
    """The gate of a turn by ``actor`` (the kids' room speaker may only read locks)."""
    turn = gate()
    assert turn.holds is not None
    turn.holds.access = ActorRules.of([LOCKS_READ]).access(actor, lambda _: None, "en")
    return turn


NIGHTLY_UNLOCK = config(
    {"action": "lock.unlock", "target": {"entity_id": "lock.front_door"}},
    triggers=[{"trigger": "time", "at": "22:00:00"}],
)


def test_an_unlock_drafted_by_a_satellite_whose_rule_forbids_it_is_refused_outright() -> None:
    """Every night at ten unlock the front door, from ``lock: read``: refused, in words."""
    turn = gate_for(KIDS)
    judged = judge(NIGHTLY_UNLOCK, turn)
    assert judged.refused == "Kids Room Speaker can't unlock the lock.front_door."
    assert judged.confirm_by == "yes"  # nothing offered for approval
    assert [(d.verdict, d.rule) for d in judged.decisions] == [("refuse", "actor")]
    assert turn.holds is not None
    assert turn.holds.refused == []  # judging keeps nothing of the turn


def test_the_same_draft_from_a_satellite_no_rule_names_needs_the_panel() -> None:
    """From the hall's satellite (no rule): covered by the lock entry, approved in the panel."""
    judged = judge(NIGHTLY_UNLOCK, gate_for(Actor("wyoming", device_id="sat_hall")))
    assert judged.refused is None
    assert (judged.covered, judged.confirm_by) == ("lock.unlock on lock.front_door", "panel")
