"""Model copies for virtual executors, and setting states on them."""

from __future__ import annotations

import pytest

from addon.home.model.live import HomeModel
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import MatchTargetsConstraints


def test_set_state_on_copy_leaves_original(demo: HomeModel) -> None:
    """Changing a copy's state does not change the live model."""
    copy = demo.copy()
    copy.set_state("light.bedroom_lamp", "off", when=50.0)
    original = demo.state("light.bedroom_lamp")
    changed = copy.state("light.bedroom_lamp")
    assert original is not None
    assert changed is not None
    assert (original.state, changed.state) == ("on", "off")


def test_diff_on_copy_leaves_original_index(demo: HomeModel) -> None:
    """Renaming, adding and removing on a copy leaves the original's matching untouched."""
    copy = demo.copy()
    copy.apply_entity_diff(
        {
            "a": {"light.extra": {"s": "on", "a": {"friendly_name": "Extra"}, "lc": 1.0}},
            "c": {"light.office_lamp": {"+": {"a": {"friendly_name": "Reading Light"}}}},
            "r": ["light.garage_light"],
        }
    )
    assert match_targets(demo, MatchTargetsConstraints(name="Work Lamp")).is_match
    assert match_targets(demo, MatchTargetsConstraints(name="Garage Light")).is_match
    assert demo.state("light.extra") is None
    assert match_targets(copy, MatchTargetsConstraints(name="Reading Light")).is_match


def test_diff_on_original_leaves_copy(demo: HomeModel) -> None:
    """A copy keeps the states it was made with while the live model moves on."""
    copy = demo.copy()
    demo.apply_entity_diff({"c": {"light.bedroom_lamp": {"+": {"s": "off", "lc": 7.0}}}})
    state = copy.state("light.bedroom_lamp")
    assert state is not None
    assert state.state == "on"


def test_states_are_read_only(demo: HomeModel) -> None:
    """Attributes cannot be changed in place, so shared states stay shared safely."""
    state = demo.state("light.bedroom_lamp")
    assert state is not None
    with pytest.raises(TypeError):
        state.attributes["brightness"] = 1  # type: ignore[index]


def test_set_state_moves_last_changed_only_on_a_new_state(demo: HomeModel) -> None:
    """Like async_set: same state, new attributes moves last_updated but not last_changed."""
    before = demo.state("light.bedroom_lamp")
    after = demo.set_state("light.bedroom_lamp", "on", {"brightness": 3}, when=99.0)
    assert before is not None
    assert (after.last_changed, after.last_updated) == (before.last_changed, 99.0)
    assert dict(after.attributes) == {"brightness": 3}


def test_set_state_keeps_attributes_when_none_given(demo: HomeModel) -> None:
    """Without attributes, set_state changes the state and keeps what was there."""
    after = demo.set_state("light.bedroom_lamp", "off", when=99.0)
    assert after.attributes["friendly_name"] == "Lamp"
    assert after.last_changed == 99.0


def test_set_state_of_new_entity_creates_it(demo: HomeModel) -> None:
    """set_state on an unknown entity adds a state, indexed for matching."""
    demo.set_state("input_boolean.guest_mode", "on", {"friendly_name": "Guest Mode"}, when=1.0)
    result = match_targets(demo, MatchTargetsConstraints(name="guest mode", assistant=None))
    assert result.entity_ids == ["input_boolean.guest_mode"]
