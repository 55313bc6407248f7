"""Applying subscribe_entities events to a live model."""

from __future__ import annotations

import pytest

from addon.home.model.live import HomeModel
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import MatchTargetsConstraints
from addon.text import JsonObject


def test_add_creates_state_and_returns_its_id(demo: HomeModel) -> None:
    """An 'a' event adds the state and reports the entity as changed."""
    changed = demo.apply_entity_diff(
        {"a": {"light.new": {"s": "on", "a": {"friendly_name": "New Light"}, "c": "x", "lc": 5.0}}}
    )
    state = demo.state("light.new")
    assert changed == ["light.new"]
    assert state is not None
    assert (state.state, state.name, state.last_changed) == ("on", "New Light", 5.0)


def test_added_state_goes_last_in_order(demo: HomeModel) -> None:
    """A new state is appended, as Home Assistant's state machine appends it."""
    demo.apply_entity_diff({"a": {"light.new": {"s": "on", "a": {}, "c": "x", "lc": 5.0}}})
    assert demo.entity_ids()[-1] == "light.new"


def test_added_entity_can_be_matched_by_name() -> None:
    """A state added by a diff is indexed at once."""
    model = HomeModel.build(
        config={},
        areas=[],
        floors=[],
        devices=[],
        entities=[],
        entity_details={},
        exposure={"light.new": {"conversation": True}},
        states={},
    )
    model.apply_entity_diff(
        {"a": {"light.new": {"s": "on", "a": {"friendly_name": "New Light"}, "c": "x", "lc": 1.0}}}
    )
    result = match_targets(model, MatchTargetsConstraints(name="new light"))
    assert result.entity_ids == ["light.new"]


def test_change_sets_state_and_last_changed(demo: HomeModel) -> None:
    """A '+' with s and lc changes the state; last_updated follows last_changed."""
    demo.apply_entity_diff({"c": {"light.bedroom_lamp": {"+": {"s": "off", "lc": 9.0}}}})
    state = demo.state("light.bedroom_lamp")
    assert state is not None
    assert (state.state, state.last_changed, state.last_updated) == ("off", 9.0, 9.0)


def test_change_with_only_last_updated_keeps_last_changed(demo: HomeModel) -> None:
    """A '+' with lu alone moves last_updated only."""
    before = demo.state("light.bedroom_lamp")
    demo.apply_entity_diff({"c": {"light.bedroom_lamp": {"+": {"lu": 9.0}}}})
    after = demo.state("light.bedroom_lamp")
    assert before is not None
    assert after is not None
    assert (after.last_changed, after.last_updated) == (before.last_changed, 9.0)


def test_change_merges_attributes(demo: HomeModel) -> None:
    """Attributes in '+' are merged into the existing ones."""
    demo.apply_entity_diff({"c": {"light.bedroom_lamp": {"+": {"a": {"brightness": 10}}}}})
    state = demo.state("light.bedroom_lamp")
    assert state is not None
    assert state.attributes["brightness"] == 10
    assert state.attributes["supported_features"] == 44


def test_change_removes_attributes(demo: HomeModel) -> None:
    """Keys listed in '-' 'a' are removed."""
    demo.apply_entity_diff({"c": {"light.bedroom_lamp": {"-": {"a": ["brightness"]}}}})
    state = demo.state("light.bedroom_lamp")
    assert state is not None
    assert "brightness" not in state.attributes


def test_context_string_replaces_only_the_id(demo: HomeModel) -> None:
    """A bare context string is a new id; parent and user ids stay."""
    demo.apply_entity_diff({"c": {"light.bedroom_lamp": {"+": {"c": {"user_id": "u1"}}}}})
    demo.apply_entity_diff({"c": {"light.bedroom_lamp": {"+": {"c": "ctx-2"}}}})
    state = demo.state("light.bedroom_lamp")
    assert state is not None
    assert (state.context["id"], state.context["user_id"]) == ("ctx-2", "u1")


def test_friendly_name_change_reindexes_the_name(demo: HomeModel) -> None:
    """A renamed entity matches its new name and no longer its old one."""
    demo.apply_entity_diff(
        {"c": {"light.office_lamp": {"+": {"a": {"friendly_name": "Reading Light"}}}}}
    )
    old = match_targets(demo, MatchTargetsConstraints(name="Work Lamp"))
    new = match_targets(demo, MatchTargetsConstraints(name="Reading Light"))
    assert not old.is_match
    assert new.entity_ids == ["light.office_lamp"]


def test_removal_drops_the_state(demo: HomeModel) -> None:
    """An 'r' event removes the state; the registry entry stays known without one."""
    changed = demo.apply_entity_diff({"r": ["light.garage_light"]})
    entity = demo.entity("light.garage_light")
    assert changed == ["light.garage_light"]
    assert demo.state("light.garage_light") is None
    assert entity is not None
    assert not entity.has_state


def test_removed_entity_no_longer_matches(demo: HomeModel) -> None:
    """Home Assistant matches states only, so a removed state cannot be targeted."""
    demo.apply_entity_diff({"r": ["light.garage_light"]})
    result = match_targets(demo, MatchTargetsConstraints(name="Garage Light"))
    assert not result.is_match


def test_removed_state_only_entity_is_forgotten(demo: HomeModel) -> None:
    """An entity with no registry entry disappears entirely with its state."""
    demo.apply_entity_diff({"r": ["light.porch"]})
    assert demo.entity("light.porch") is None


def test_readded_state_goes_last(demo: HomeModel) -> None:
    """A state removed and added again is appended, as in Home Assistant."""
    demo.apply_entity_diff({"r": ["light.kitchen_ceiling"]})
    demo.apply_entity_diff({"a": {"light.kitchen_ceiling": {"s": "on", "a": {}, "lc": 3.0}}})
    assert demo.entity_ids()[-1] == "light.kitchen_ceiling"


def test_change_for_unknown_entity_is_skipped(demo: HomeModel) -> None:
    """A change for a state we never had is ignored and not reported."""
    assert demo.apply_entity_diff({"c": {"light.ghost": {"+": {"s": "on"}}}}) == []
    assert demo.state("light.ghost") is None


def test_one_event_can_add_change_and_remove(demo: HomeModel) -> None:
    """Adds, changes and removals in one event are all applied and all reported."""
    changed = demo.apply_entity_diff(
        {
            "a": {"light.new": {"s": "on", "a": {}, "lc": 1.0}},
            "c": {"light.bedroom_lamp": {"+": {"s": "off"}}},
            "r": ["light.garage_light"],
        }
    )
    assert changed == ["light.new", "light.bedroom_lamp", "light.garage_light"]


@pytest.mark.parametrize(
    ("event", "refused"),
    [
        ({"a": {"light.new": "on"}}, "not a compressed state for light.new"),
        ({"c": {"light.bedroom_lamp": ["off"]}}, "not a state change for light.bedroom_lamp"),
    ],
)
def test_a_state_that_is_not_an_object_is_refused_by_entity(
    demo: HomeModel, event: JsonObject, refused: str
) -> None:
    """A state or change Home Assistant sent as something else raises, naming the entity."""
    with pytest.raises(TypeError, match=refused):
        demo.apply_entity_diff(event)
