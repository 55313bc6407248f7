"""Rules per person and per satellite, as the gate's ``Holds`` applies them to each effect."""

from __future__ import annotations

from typing import Any

import pytest

from addon.errors import ActorRefusedError, StoreError
from addon.home.actions.actor import Actor, resolve_actor
from addon.home.actions.confirmation import ConfirmationPolicy, Holds
from addon.home.actions.gate import Gate
from addon.home.actions.impact import Impacts
from addon.home.actions.permissions import ActorRule, ActorRules, Level
from addon.home.model.live import HomeModel
from addon.home.model.routines import Routines
from tests.home.homes import HomeData

UNLOCK = {"action": "lock.unlock", "target": {"entity_id": "lock.front_door"}}


def home() -> HomeModel:
    """A kids' room with its satellite and lamp, a hall with the front door (exposed), a garage."""
    data = HomeData()
    data.area("kids_room", "Kids Room")
    data.area("hall", "Hall")
    data.area("garage", "Garage")
    data.device("sat_kids", "Kids Room Speaker", area_id="kids_room")
    data.entity("light.kids_lamp", friendly_name="Kids Lamp", area_id="kids_room")
    data.entity("light.hall", friendly_name="Hall Light", area_id="hall")
    data.entity(
        "lock.front_door", state="locked", friendly_name="Front Door", area_id="hall", expose=True
    )
    data.entity(
        "cover.garage_door",
        state="closed",
        friendly_name="Garage Door",
        area_id="garage",
        attributes={"device_class": "garage"},
    )
    data.entity("climate.heating", state="heat", friendly_name="Heating", area_id="hall")
    data.entity("scene.leave", friendly_name="Leave", attributes={"entity_id": ["lock.front_door"]})
    data.entity("scene.cosy", friendly_name="Cosy", attributes={"entity_id": ["light.hall"]})
    data.entity("script.let_in", state="off", unique_id="let_in")
    data.entity("person.guest", state="home", friendly_name="Guest", attributes={"user_id": "u-g"})
    return data.build(
        routines=Routines.of(
            scripts={"script.let_in": {"sequence": [UNLOCK]}},
            scenes={"scene.cosy": {"light.hall": "on"}},
        )
    )


MODEL = home()
KIDS = resolve_actor(MODEL, endpoint="wyoming", device_id="sat_kids")
GUEST = resolve_actor(MODEL, endpoint="ui", user_id="u-g", user_name="guest")


def satellite(
    targets: dict[str, Level] | None = None, *, own_area: bool = False, default: Level = "act"
) -> ActorRule:
    """The kids' room satellite's rule."""
    return ActorRule(
        1, "satellite", "sat_kids", "Kids Room Speaker", default, targets or {}, own_area
    )


GUEST_RULE = ActorRule.of_row(
    type(  # a stored row as the store hands it over
        "Row",
        (),
        {
            "id": 2,
            "kind": "person",
            "subject": "person.guest",
            "name": "Guest",
            "preset": "guest",
            "default": "act",
            "targets": {},
            "own_area": False,
            "enabled": True,
        },
    )()
)


def holds(actor: Actor, *rules: ActorRule, language: str = "en") -> Holds:
    """The turn's holds for ``actor``, with an empty confirmation policy."""

    def describe(entity_id: str) -> tuple[str | None, str]:
        entity = MODEL.entity(entity_id)
        return (entity.device_class, entity.name) if entity else (None, entity_id)

    def area_of(entity_id: str) -> str | None:
        entity = MODEL.entity(entity_id)
        return entity.area_id if entity else None

    access = ActorRules.of(rules).access(actor, area_of, language)
    return Holds(ConfirmationPolicy(), describe, impacts=Impacts(MODEL), access=access)


def check(turn: Holds, action: str, *entity_ids: str, **data: Any) -> str:
    """``refused: <words>``, ``held`` or ``allowed``."""
    domain, service = action.split(".", 1)
    try:
        held = turn.check(domain, service, entity_ids, data)
    except ActorRefusedError as err:
        return f"refused: {err.spoken}"
    return "held" if held is not None else "allowed"


def test_a_satellite_that_may_only_read_locks_cannot_unlock_the_door() -> None:
    """Refused, in words naming the satellite and the action; recorded on the holds."""
    turn = holds(KIDS, satellite({"lock": "read"}))
    assert check(turn, "lock.unlock", "lock.front_door") == (
        "refused: Kids Room Speaker can't unlock the Front Door."
    )
    assert turn.refused[0].action == "lock.unlock"
    assert "satellite rule for Kids Room Speaker allows read only" in turn.refused[0].reason


@pytest.mark.parametrize(
    ("action", "entity_id"),
    [("scene.turn_on", "scene.leave"), ("script.turn_on", "script.let_in")],
)
def test_a_scene_or_script_that_unlocks_is_refused_by_its_effect(
    action: str, entity_id: str
) -> None:
    """The routine is allowed by name; what it does to the lock is not."""
    turn = holds(KIDS, satellite({"lock": "none"}))
    assert check(turn, action, entity_id).startswith("refused: Kids Room Speaker can't")


def test_a_scene_that_only_sets_lights_is_allowed() -> None:
    """The same rule leaves a scene of lights alone."""
    assert check(holds(KIDS, satellite({"lock": "none"})), "scene.turn_on", "scene.cosy") == (
        "allowed"
    )


def test_a_confirm_level_holds_the_call_for_a_yes() -> None:
    """``confirm``: held like a policy entry, by "yes"."""
    turn = holds(KIDS, satellite({"cover": "confirm"}))
    assert check(turn, "cover.open_cover", "cover.garage_door") == "held"
    assert turn.held[0].method == "yes"


def test_own_area_only_keeps_the_satellite_to_its_room() -> None:
    """Its own lamp obeys; the hall light is only read."""
    turn = holds(KIDS, satellite(own_area=True))
    assert check(turn, "light.turn_on", "light.kids_lamp") == "allowed"
    assert check(turn, "light.turn_on", "light.hall").startswith("refused:")


def test_an_entity_entry_wins_over_its_domain() -> None:
    """Locks none, but this one lock confirm: held, not refused."""
    turn = holds(KIDS, satellite({"lock": "none", "lock.front_door": "confirm"}))
    assert check(turn, "lock.unlock", "lock.front_door") == "held"


def test_an_area_and_a_domain_entry_meet_at_the_lower() -> None:
    """Hall act, lights read: the hall light is only read."""
    turn = holds(KIDS, satellite({"area:hall": "act", "light": "read"}))
    assert check(turn, "light.turn_on", "light.hall").startswith("refused:")


def test_the_guest_preset_runs_lights_and_not_the_heating_or_the_garage() -> None:
    """Lights act; climate and covers read only; the refusal names the guest."""
    turn = holds(GUEST, GUEST_RULE)
    assert check(turn, "light.turn_off", "light.hall") == "allowed"
    assert check(turn, "climate.set_temperature", "climate.heating", temperature=25).startswith(
        "refused:"
    )
    assert check(turn, "cover.open_cover", "cover.garage_door") == (
        "refused: Guest can't open the Garage Door."
    )


def test_the_refusal_is_said_in_the_persons_language() -> None:
    """German: „Kids Room Speaker darf das nicht: Front Door aufschließen."."""
    turn = holds(KIDS, satellite({"lock": "none"}), language="de")
    assert check(turn, "lock.unlock", "lock.front_door") == (
        "refused: Kids Room Speaker darf das nicht: Front Door aufschließen."
    )


def test_no_rule_for_the_actor_means_no_access_to_check() -> None:
    """Another satellite: nothing applies, and a turn pays nothing for the rules."""
    other = resolve_actor(MODEL, endpoint="wyoming", device_id="sat_hall")
    assert ActorRules.of([satellite({"lock": "none"})]).access(other, lambda _: None, "en") is None


def test_a_switched_off_rule_does_not_apply() -> None:
    """A rule off is kept but not applied."""
    rule = ActorRule(1, "satellite", "sat_kids", "Kids", "none", {}, enabled=False)
    assert ActorRules.of([rule]).access(KIDS, lambda _: None, "en") is None


def test_the_gate_refuses_a_read_of_what_the_actor_may_not_read() -> None:
    """``none`` on locks: a custom tool's template reading the lock is refused by the gate."""
    gate = Gate(False, MODEL.is_exposed, holds=holds(KIDS, satellite({"lock": "none"})))
    assert gate.readable("lock.front_door").verdict == "refuse"
    assert gate.readable("light.kids_lamp").allowed


def test_the_gate_records_an_actor_refusal_and_raises_it() -> None:
    """``Gate.confirm`` (custom and MCP tools) refuses with the rule ``actor``, in words."""
    gate = Gate(False, MODEL.is_exposed, holds=holds(KIDS, satellite({"lock": "read"})))
    with pytest.raises(ActorRefusedError, match="Kids Room Speaker can't unlock"):
        gate.confirm("lock.unlock", ["lock.front_door"], {})
    assert gate.decisions[-1].rule == "actor"


@pytest.mark.parametrize(
    ("rule", "verdict"),
    [({"mcp": "read"}, "refused"), ({"mcp": "confirm"}, "held"), ({"lock": "read"}, "allowed")],
)
def test_an_mcp_servers_acting_tool_is_judged_by_the_rule_for_mcp(
    rule: dict[str, Level], verdict: str
) -> None:
    """A remote MCP tool that acts (``mcp.<tool>``, no entity named) follows the ``mcp`` line."""
    gate = Gate(False, MODEL.is_exposed, holds=holds(KIDS, satellite(rule)))
    try:
        decision = gate.confirm("mcp.notes__add_note", [], {"text": "milk"})
    except ActorRefusedError:
        got = "refused"
    else:
        got = "allowed" if decision.allowed else "held"
    assert got == verdict


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("kind", "robot"),
        ("default", "everything"),
        ("targets", {"lock": "sometimes"}),
        ("preset", "visitor"),
    ],
)
def test_a_stored_rule_with_a_value_nobody_wrote_is_refused(field: str, value: object) -> None:
    """An unknown kind, level or preset is a StoreError, not read as a default."""
    stored: dict[str, object] = {
        "id": 7,
        "kind": "person",
        "subject": "person.guest",
        "name": "Guest",
        "preset": None,
        "default": "act",
        "targets": {},
        "own_area": False,
        "enabled": True,
    }
    stored[field] = value
    with pytest.raises(StoreError, match="actor rule 7's"):
        ActorRule.of_row(type("Row", (), stored)())
