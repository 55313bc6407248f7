"""``HomeModel.with_entries``: one entity's registry entry swapped in, the rest shared."""

from __future__ import annotations

import dataclasses

from addon.home.model.live import HomeModel
from addon.home.model.records import RegistryEntry
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import MatchTargetsConstraints


def _entry_of(model: HomeModel, entity_id: str) -> RegistryEntry:
    entity = model.entity(entity_id)
    assert entity is not None
    assert entity.entry is not None
    return entity.entry


def test_an_unchanged_entry_keeps_the_same_model(demo: HomeModel) -> None:
    """Nothing differs: the same object, so caches kept per model stay valid."""
    entry = _entry_of(demo, "light.garage_light")
    assert demo.with_entries({"light.garage_light": entry}) is demo


def test_a_renamed_entry_matches_by_its_new_name_only_in_the_copy(demo: HomeModel) -> None:
    """The new name matches in the patched model; the model it came from is untouched."""
    entry = dataclasses.replace(_entry_of(demo, "light.garage_light"), name="Workshop Light")
    patched = demo.with_entries({"light.garage_light": entry})
    found = match_targets(patched, MatchTargetsConstraints(name="Workshop Light"))
    before = match_targets(demo, MatchTargetsConstraints(name="Workshop Light"))
    assert ([s.entity_id for s in found.states], before.is_match) == (["light.garage_light"], False)


def test_an_area_move_keeps_the_state_machine_order(demo: HomeModel) -> None:
    """A moved entity is in its new area and keeps its place among the states."""
    entry = dataclasses.replace(_entry_of(demo, "light.garage_light"), area_id="kitchen")
    patched = demo.with_entries({"light.garage_light": entry})
    assert "light.garage_light" in patched.index.by_area["kitchen"]
    assert patched.entity_ids() == demo.entity_ids()


def test_a_removed_entry_leaves_the_state(demo: HomeModel) -> None:
    """An entry removed (None) while the state is still there: the entity has no entry."""
    patched = demo.with_entries({"light.garage_light": None})
    entity = patched.entity("light.garage_light")
    assert (entity is not None, entity and entity.entry) == (True, None)


def test_a_plain_state_change_keeps_the_revision(demo: HomeModel) -> None:
    """Only adding, removing or renaming an entity in place moves what caches compare."""
    before = demo.revision
    demo.apply_entity_diff({"c": {"light.garage_light": {"+": {"s": "off", "lc": 9.0}}}})
    kept = demo.revision
    renamed = {"+": {"a": {"friendly_name": "Workshop Light"}}}
    demo.apply_entity_diff({"c": {"light.garage_light": renamed}})
    assert (kept, demo.revision > before) == (before, True)
