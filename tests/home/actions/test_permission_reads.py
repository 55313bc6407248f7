"""Reads by an actor whose rule says ``none``: the gate's home hides it as if unexposed."""

from __future__ import annotations

from addon.home.actions.confirmation import ConfirmationPolicy, Holds
from addon.home.actions.handlers import handle_intent
from addon.home.actions.permissions import ActorRule
from addon.home.actions.virtual import VirtualExecutor
from addon.home.context.overview import static_overview
from addon.home.model.live import HomeModel
from tests.home.actions.test_permissions import GUEST, KIDS, MODEL, holds, satellite


def readable(turn: Holds) -> HomeModel:
    """The turn's home as the gate lets its actor read it."""
    return turn.readable(MODEL)


def test_an_entity_at_none_is_not_exposed_in_the_actors_home() -> None:
    """``lock: none``: the front door is unexposed for the satellite; the rest is as it was."""
    turn = holds(KIDS, satellite({"lock": "none"}))
    home = readable(turn)
    assert not home.is_exposed("lock.front_door")
    assert home.is_exposed("light.kids_lamp")
    assert turn.hidden == frozenset({"lock.front_door"})
    assert MODEL.is_exposed("lock.front_door")  # the home itself is untouched


def test_read_and_no_rule_leave_the_home_itself() -> None:
    """``read`` reads; a turn no rule names gets the home object itself, with nothing judged."""
    assert readable(holds(KIDS, satellite({"lock": "read"}))) is MODEL
    unrestricted = Holds(ConfirmationPolicy())
    assert unrestricted.readable(MODEL) is MODEL
    assert unrestricted.hidden == frozenset()


def test_an_entity_line_at_none_hides_that_entity_only() -> None:
    """An entity's own line wins over its area's: only it is hidden."""
    turn = holds(KIDS, satellite({"lock.front_door": "none", "area:hall": "act"}))
    home = readable(turn)
    assert not home.is_exposed("lock.front_door")
    assert home.is_exposed("climate.heating")
    assert home.is_exposed("light.hall")


def test_a_default_of_none_hides_all_but_what_is_named() -> None:
    """Everything else ``none``: only the lights the rule names can be read."""
    rule = satellite({"light": "act"}, default="none")
    home = readable(holds(KIDS, rule))
    exposed = {entity.entity_id for entity in home.exposed_entities()}
    assert exposed == {"light.kids_lamp", "light.hall"}


def test_a_persons_rule_hides_for_that_person_only() -> None:
    """The guest's ``none`` on climate hides the heating from the guest, not from the speaker."""
    guest_rule = ActorRule(3, "person", "person.guest", "Guest", "act", {"climate": "none"})
    assert not readable(holds(GUEST, guest_rule)).is_exposed("climate.heating")
    assert readable(holds(KIDS, guest_rule)).is_exposed("climate.heating")


async def test_a_question_about_a_hidden_entity_answers_as_for_an_unexposed_one() -> None:
    """HassGetState on the front door: no state in the answer, the same as for an unexposed lock."""
    home = readable(holds(KIDS, satellite({"lock": "none"})))
    result = await handle_intent(
        "HassGetState",
        {"name": "Front Door", "domain": ["lock"]},
        model=home,
        executor=VirtualExecutor(MODEL.copy()),
    )
    assert not result.matched_states
    assert not result.unmatched_states
    assert "locked" not in str(result.as_dict())
    unexposed = MODEL.hiding(frozenset({"lock.front_door"}))
    plain = await handle_intent(
        "HassGetState",
        {"name": "Front Door", "domain": ["lock"]},
        model=unexposed,
        executor=VirtualExecutor(MODEL.copy()),
    )
    assert result.as_dict() == plain.as_dict()


async def test_a_question_about_every_lock_counts_none_for_the_actor() -> None:
    """Which locks are locked: the front door is not among them for the satellite."""
    home = readable(holds(KIDS, satellite({"lock": "none"})))
    result = await handle_intent(
        "HassGetState",
        {"domain": ["lock"], "state": ["locked"]},
        model=home,
        executor=VirtualExecutor(MODEL.copy()),
    )
    assert all(state.entity_id != "lock.front_door" for state in result.matched_states)


def test_the_overview_in_the_prompt_leaves_out_what_the_actor_may_not_read() -> None:
    """The model's home overview for the satellite names no lock, nor its state."""
    home = readable(holds(KIDS, satellite({"lock": "none"})))
    overview = static_overview(home) or ""
    assert "Front Door" not in overview
    assert "Kids Lamp" in overview
    assert "Front Door" in (static_overview(MODEL) or "")


def test_the_actors_home_sees_the_homes_later_states() -> None:
    """A view, not a copy: a state change in the home shows in the actor's home at once."""
    base = MODEL.copy()
    turn = holds(KIDS, satellite({"lock": "none"}))
    home = turn.readable(base)
    base.set_state("light.kids_lamp", "on", {"friendly_name": "Kids Lamp"})
    state = home.state("light.kids_lamp")
    assert state is not None
    assert state.state == "on"
