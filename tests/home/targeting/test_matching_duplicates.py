"""Duplicate names, preferences from the speaking satellite, and single targets."""

from __future__ import annotations

from addon.home.model.live import HomeModel
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import (
    MatchFailedReason,
    MatchTargetsConstraints,
    MatchTargetsPreferences,
)


def test_duplicate_name_is_ambiguous(demo: HomeModel) -> None:
    """Two exposed entities named "Lamp" and no preference: DUPLICATE_NAME."""
    result = match_targets(demo, MatchTargetsConstraints(name="Lamp"))
    assert result.no_match_reason is MatchFailedReason.DUPLICATE_NAME
    assert result.no_match_name == "Lamp"


def test_ambiguity_lists_candidates_with_areas(demo: HomeModel) -> None:
    """The tied candidates come back with their areas, so the model can ask or pick."""
    result = match_targets(demo, MatchTargetsConstraints(name="lamp"))
    assert [(c.entity_id, c.area.name if c.area else None) for c in result.candidates] == [
        ("light.bedroom_lamp", "Bedroom"),
        ("light.living_room_lamp", "Living Room"),
    ]


def test_preferred_area_resolves_duplicate(demo: HomeModel) -> None:
    """The satellite's area picks the same-named entity in that area."""
    result = match_targets(
        demo, MatchTargetsConstraints(name="Lamp"), MatchTargetsPreferences(area_id="bedroom")
    )
    assert result.entity_ids == ["light.bedroom_lamp"]


def test_preferred_floor_resolves_duplicate(demo: HomeModel) -> None:
    """The satellite's floor picks the same-named entity on that floor."""
    result = match_targets(
        demo, MatchTargetsConstraints(name="Lamp"), MatchTargetsPreferences(floor_id="ground")
    )
    assert result.entity_ids == ["light.living_room_lamp"]


def test_preference_with_none_of_them_is_a_name_failure(demo: HomeModel) -> None:
    """A preferred area holding none of the duplicates leaves nothing: Home Assistant says NAME."""
    result = match_targets(
        demo, MatchTargetsConstraints(name="Lamp"), MatchTargetsPreferences(area_id="garage")
    )
    assert result.no_match_reason is MatchFailedReason.NAME
    assert {s.entity_id for s in result.suggestions} == {
        "light.bedroom_lamp",
        "light.living_room_lamp",
    }


def test_area_constraint_resolves_duplicate(demo: HomeModel) -> None:
    """Naming the area disambiguates without any preference."""
    result = match_targets(demo, MatchTargetsConstraints(name="Lamp", area_name="Living Room"))
    assert result.entity_ids == ["light.living_room_lamp"]


def test_allow_duplicate_names_returns_all(demo: HomeModel) -> None:
    """With allow_duplicate_names every same-named entity matches."""
    result = match_targets(demo, MatchTargetsConstraints(name="Lamp", allow_duplicate_names=True))
    assert result.entity_ids == ["light.bedroom_lamp", "light.living_room_lamp"]


def test_same_name_in_two_domains_is_ambiguous(demo: HomeModel) -> None:
    """A lock and a door sensor both called Front Door are duplicates without a domain."""
    result = match_targets(demo, MatchTargetsConstraints(name="Front Door", assistant=None))
    assert result.no_match_reason is MatchFailedReason.DUPLICATE_NAME


def test_domain_resolves_cross_domain_duplicate(demo: HomeModel) -> None:
    """Adding the domain picks one of two same-named entities."""
    result = match_targets(
        demo, MatchTargetsConstraints(name="Front Door", domains=["lock"], assistant=None)
    )
    assert result.entity_ids == ["lock.front_door"]


def test_single_target_with_one_candidate_matches(demo: HomeModel) -> None:
    """single_target succeeds when exactly one entity is left."""
    result = match_targets(demo, MatchTargetsConstraints(domains=["climate"], single_target=True))
    assert result.entity_ids == ["climate.thermostat"]


def test_single_target_with_several_is_multiple_targets(demo: HomeModel) -> None:
    """single_target with several matches and no preference: MULTIPLE_TARGETS, all listed."""
    result = match_targets(
        demo, MatchTargetsConstraints(floor_name="Upstairs", domains=["light"], single_target=True)
    )
    assert result.no_match_reason is MatchFailedReason.MULTIPLE_TARGETS
    assert result.entity_ids == ["light.bedroom_lamp", "light.office_lamp"]
    assert len(result.candidates) == 2


def test_single_target_uses_preferred_area(demo: HomeModel) -> None:
    """The preferred area narrows a single-target request to the entity there."""
    result = match_targets(
        demo,
        MatchTargetsConstraints(floor_name="Upstairs", domains=["light"], single_target=True),
        MatchTargetsPreferences(area_id="office"),
    )
    assert result.entity_ids == ["light.office_lamp"]


def test_single_target_area_preference_wins_over_floor(demo: HomeModel) -> None:
    """The preferred area is tried first; the floor only when the area leaves several."""
    result = match_targets(
        demo,
        MatchTargetsConstraints(domains=["light"], single_target=True),
        MatchTargetsPreferences(area_id="living_room", floor_id="first"),
    )
    assert result.entity_ids == ["light.living_room_lamp"]


def test_single_target_unresolved_by_floor(demo: HomeModel) -> None:
    """A floor with two candidates cannot pick one: MULTIPLE_TARGETS."""
    result = match_targets(
        demo,
        MatchTargetsConstraints(domains=["light"], single_target=True),
        MatchTargetsPreferences(floor_id="ground"),
    )
    assert result.no_match_reason is MatchFailedReason.MULTIPLE_TARGETS
