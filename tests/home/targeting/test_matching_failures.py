"""Failed matches: Home Assistant's reason, in its order, plus what to try instead."""

from __future__ import annotations

from addon.home.model.live import HomeModel
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import MatchFailedReason, MatchTargetsConstraints
from tests.home.homes import HomeData


def reason(model: HomeModel, **constraints: object) -> MatchFailedReason | None:
    result = match_targets(model, MatchTargetsConstraints(**constraints))  # type: ignore[arg-type]
    assert not result.is_match
    return result.no_match_reason


def test_unknown_domain_is_domain(demo: HomeModel) -> None:
    """No state in the domain at all: DOMAIN."""
    assert reason(demo, domains=["fan"]) is MatchFailedReason.DOMAIN


def test_empty_domain_list_is_domain(demo: HomeModel) -> None:
    """An empty domain list matches nothing, as hass.states.async_all(set()) returns nothing."""
    assert reason(demo, domains=[]) is MatchFailedReason.DOMAIN


def test_required_state_missing_is_state(demo: HomeModel) -> None:
    """No entity of the domain is in a required state: STATE."""
    assert reason(demo, domains=["lock"], states=["unlocked"], assistant=None) is (
        MatchFailedReason.STATE
    )


def test_unknown_name_is_name(demo: HomeModel) -> None:
    """A name nothing has: NAME."""
    assert reason(demo, name="Chandelier") is MatchFailedReason.NAME


def test_name_miss_suggests_closest_exposed_names(demo: HomeModel) -> None:
    """A misspelt name gets the closest exposed names, best first, at most five."""
    result = match_targets(demo, MatchTargetsConstraints(name="Kitchen Celing"))
    assert result.suggestions[0].entity_id == "light.kitchen_ceiling"
    assert result.suggestions[0].area == "Kitchen"
    assert len(result.suggestions) <= 5


def test_name_miss_suggestions_respect_the_domain(demo: HomeModel) -> None:
    """With a domain given, suggestions come from that domain only."""
    result = match_targets(demo, MatchTargetsConstraints(name="Lamb", domains=["media_player"]))
    assert {s.entity_id for s in result.suggestions} <= {"media_player.tv"}


def test_area_prefixed_name_suggests_the_entity_in_that_area(demo: HomeModel) -> None:
    """No entity is called Bedroom Lamp, so Lamp in the Bedroom is suggested first."""
    result = match_targets(demo, MatchTargetsConstraints(name="bedroom lamp"))
    assert result.no_match_reason is MatchFailedReason.NAME
    assert (result.suggestions[0].entity_id, result.suggestions[0].area) == (
        "light.bedroom_lamp",
        "Bedroom",
    )


def test_unknown_area_is_invalid_area_with_suggestions(demo: HomeModel) -> None:
    """An area that does not exist: INVALID_AREA, its name, and similar area names."""
    result = match_targets(demo, MatchTargetsConstraints(area_name="Kitchn", domains=["light"]))
    assert result.no_match_reason is MatchFailedReason.INVALID_AREA
    assert result.no_match_name == "Kitchn"
    assert result.suggestions[0].name == "Kitchen"


def test_unknown_floor_is_invalid_floor(demo: HomeModel) -> None:
    """A floor that does not exist: INVALID_FLOOR and its name."""
    result = match_targets(demo, MatchTargetsConstraints(floor_name="Frist Floor"))
    assert result.no_match_reason is MatchFailedReason.INVALID_FLOOR
    assert result.no_match_name == "Frist Floor"
    assert result.suggestions[0].name == "First Floor"


def test_name_in_another_area_is_area_and_says_where(demo: HomeModel) -> None:
    """The name exists but not in the area: AREA, with the entity and its real area."""
    result = match_targets(demo, MatchTargetsConstraints(name="Work Lamp", area_name="Kitchen"))
    assert result.no_match_reason is MatchFailedReason.AREA
    assert [a.area_id for a in result.areas] == ["kitchen"]
    assert [(s.entity_id, s.area) for s in result.suggestions] == [("light.office_lamp", "Office")]


def test_nothing_on_the_floor_is_floor(demo: HomeModel) -> None:
    """No matching entity on the floor: FLOOR, with the floor targeted."""
    result = match_targets(demo, MatchTargetsConstraints(floor_name="Upstairs", domains=["cover"]))
    assert result.no_match_reason is MatchFailedReason.FLOOR
    assert [f.floor_id for f in result.floors] == ["first"]


def test_missing_device_class_is_device_class(demo: HomeModel) -> None:
    """No entity with the device class: DEVICE_CLASS."""
    assert reason(demo, domains=["sensor"], device_classes=["humidity"]) is (
        MatchFailedReason.DEVICE_CLASS
    )


def test_missing_feature_is_feature(demo: HomeModel) -> None:
    """No entity supporting the feature bits: FEATURE."""
    assert reason(demo, domains=["light"], features=2048) is MatchFailedReason.FEATURE


def test_name_is_checked_before_area(demo: HomeModel) -> None:
    """Home Assistant filters by name before it looks the area up, so NAME wins."""
    assert reason(demo, name="Chandelier", area_name="Nowhere") is MatchFailedReason.NAME


def test_domain_is_checked_before_area(demo: HomeModel) -> None:
    """The domain is the first filter of all."""
    assert reason(demo, domains=["fan"], area_name="Nowhere") is MatchFailedReason.DOMAIN


def test_device_class_is_checked_before_floor(demo: HomeModel) -> None:
    """Device class comes before floor in Home Assistant's order."""
    assert reason(demo, device_classes=["humidity"], floor_name="Nowhere") is (
        MatchFailedReason.DEVICE_CLASS
    )


def test_is_no_entities_reason_matches_home_assistant() -> None:
    """Invalid places and duplicates are not 'no entities' reasons."""
    assert MatchFailedReason.NAME.is_no_entities_reason()
    assert not MatchFailedReason.INVALID_AREA.is_no_entities_reason()
    assert not MatchFailedReason.DUPLICATE_NAME.is_no_entities_reason()


def test_many_same_named_entities_do_not_crowd_out_a_closer_name() -> None:
    """Six rooms' "Thermostat" leave room for "Porch Thermostat" when "Pocrh Thermostat" misses."""
    home = HomeData()
    for room in ("a", "b", "c", "d", "e", "f"):
        home.area(room, room.upper())
        home.entity(f"climate.{room}", state="heat", friendly_name="Thermostat", area_id=room)
    home.entity("climate.porch", state="heat", friendly_name="Porch Thermostat")
    result = match_targets(home.build(), MatchTargetsConstraints(name="Pocrh Thermostat"))
    assert "climate.porch" in [s.entity_id for s in result.suggestions]
    assert len(result.suggestions) == 5
