"""Target matching for each slot combination, with Home Assistant's semantics."""

from __future__ import annotations

import pytest

from addon.home.model.live import HomeModel
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import MatchFailedReason, MatchTargetsConstraints
from tests.home.homes import HomeData


def ids(model: HomeModel, **constraints: object) -> list[str]:
    result = match_targets(model, MatchTargetsConstraints(**constraints))  # type: ignore[arg-type]
    assert result.is_match, result
    return result.entity_ids


def test_name_matches(demo: HomeModel) -> None:
    """A name slot matches the entity with that name."""
    assert ids(demo, name="Kitchen Ceiling") == ["light.kitchen_ceiling"]


@pytest.mark.parametrize("name", ["kitchen ceiling", "KITCHEN CEILING", "  Kitchen Ceiling  "])
def test_name_ignores_case_and_surrounding_spaces(demo: HomeModel, name: str) -> None:
    """Names compare after strip() and casefold(), as Home Assistant's _normalize_name does."""
    assert ids(demo, name=name) == ["light.kitchen_ceiling"]


@pytest.mark.parametrize("name", ["Kitchen-Ceiling", "kitchen  ceiling", "kitchen ceiling!"])
def test_punctuation_variant_suggests_the_real_name_first(demo: HomeModel, name: str) -> None:
    """A variant whose loose match fails elsewhere still gets the real name suggested first."""
    result = match_targets(demo, MatchTargetsConstraints(name=name, area_name="Bedroom"))
    assert result.no_match_reason is MatchFailedReason.NAME
    assert result.suggestions[0].entity_id == "light.kitchen_ceiling"


def test_alias_matches(demo: HomeModel) -> None:
    """An entity alias from the registry matches like a name."""
    assert ids(demo, name="big light") == ["light.kitchen_ceiling"]


def test_registry_name_matches(demo: HomeModel) -> None:
    """The user's registry name matches."""
    assert ids(demo, name="Coffee Machine") == ["switch.coffee_maker"]


def test_integration_name_alone_does_not_match(demo: HomeModel) -> None:
    """The integration's original name is not a name Home Assistant matches."""
    result = match_targets(demo, MatchTargetsConstraints(name="Coffee Maker"))
    assert result.no_match_reason is MatchFailedReason.NAME


def test_entity_id_in_name_slot_matches(demo: HomeModel) -> None:
    """An exact entity id in the name slot matches that entity."""
    assert ids(demo, name="light.garage_light") == ["light.garage_light"]


def test_entity_id_compares_exactly(demo: HomeModel) -> None:
    """Entity ids are not case-folded, as in Home Assistant."""
    result = match_targets(demo, MatchTargetsConstraints(name="LIGHT.GARAGE_LIGHT"))
    assert not result.is_match


def test_area_only_matches_everything_exposed_in_it(demo: HomeModel) -> None:
    """An area slot alone matches every exposed entity in the area (device areas included)."""
    assert ids(demo, area_name="Kitchen") == [
        "light.kitchen_ceiling",
        "switch.coffee_maker",
        "sensor.kitchen_multisensor_temperature",
    ]


@pytest.mark.parametrize("area", ["Cooking Area", "kitchen", "KITCHEN", " kitchen "])
def test_area_by_alias_id_or_case(demo: HomeModel, area: str) -> None:
    """An area is found by its id, name or alias, ignoring case and surrounding spaces."""
    result = match_targets(demo, MatchTargetsConstraints(area_name=area, domains=["light"]))
    assert result.entity_ids == ["light.kitchen_ceiling"]
    assert [a.area_id for a in result.areas] == ["kitchen"]


def test_area_id_matches_exactly(demo: HomeModel) -> None:
    """An area id is accepted only exactly; living_room is the id of Living Room."""
    assert ids(demo, area_name="living_room", domains=["light"]) == ["light.living_room_lamp"]


def test_area_and_name(demo: HomeModel) -> None:
    """Area plus name picks the entity of that name in that area."""
    assert ids(demo, name="Lamp", area_name="Bedroom") == ["light.bedroom_lamp"]


def test_area_and_domain(demo: HomeModel) -> None:
    """Area plus domain matches that domain's exposed entities in the area."""
    assert ids(demo, area_name="Living Room", domains=["light"]) == ["light.living_room_lamp"]


def test_area_and_several_domains(demo: HomeModel) -> None:
    """A domain list matches any of its domains."""
    assert ids(demo, area_name="Living Room", domains=["light", "media_player"]) == [
        "light.living_room_lamp",
        "media_player.tv",
    ]


def test_floor_and_domain(demo: HomeModel) -> None:
    """Floor plus domain matches the domain in every area on the floor (alias accepted)."""
    result = match_targets(demo, MatchTargetsConstraints(floor_name="Upstairs", domains=["light"]))
    assert result.entity_ids == ["light.bedroom_lamp", "light.office_lamp"]
    assert [floor.floor_id for floor in result.floors] == ["first"]


def test_floor_and_area_must_agree(demo: HomeModel) -> None:
    """An area not on the given floor leaves nothing: Home Assistant says AREA."""
    result = match_targets(
        demo, MatchTargetsConstraints(floor_name="Ground Floor", area_name="Bedroom")
    )
    assert result.no_match_reason is MatchFailedReason.AREA


def test_device_class_and_domain(demo: HomeModel) -> None:
    """Device class plus domain matches by the state's device class."""
    assert ids(demo, domains=["sensor"], device_classes=["temperature"]) == [
        "sensor.kitchen_multisensor_temperature"
    ]


def test_area_and_device_class(demo: HomeModel) -> None:
    """Area plus device class ("garage door") works without a domain."""
    assert ids(demo, area_name="Garage", device_classes=["garage"]) == ["cover.garage_door"]


def test_device_class_from_registry_override() -> None:
    """A device class the user set in the registry matches even if the state has another."""
    home = HomeData()
    home.entity(
        "switch.kettle", friendly_name="Kettle", attributes={"device_class": "switch"},
        device_class="outlet",
    )  # fmt: skip
    assert ids(home.build(), domains=["switch"], device_classes=["outlet"]) == ["switch.kettle"]


def test_domain_only_matches_every_exposed_entity_of_it(demo: HomeModel) -> None:
    """A domain alone ("all lights") matches every exposed light, YAML ones included."""
    assert ids(demo, domains=["light"]) == [
        "light.kitchen_ceiling",
        "light.bedroom_lamp",
        "light.living_room_lamp",
        "light.office_lamp",
        "light.garage_light",
        "light.porch",
    ]


def test_required_states_filter(demo: HomeModel) -> None:
    """Required states keep only entities in one of them."""
    assert ids(demo, domains=["light"], states=["off"]) == ["light.living_room_lamp"]


def test_required_features_filter(demo: HomeModel) -> None:
    """Required features keep entities whose supported_features include every bit."""
    assert ids(demo, domains=["light", "climate"], features=1) == ["climate.thermostat"]


def test_name_all_is_not_special_here(demo: HomeModel) -> None:
    """'all' is turned into no name by the intent handler, not by the resolver."""
    result = match_targets(demo, MatchTargetsConstraints(name="all", domains=["light"]))
    assert result.no_match_reason is MatchFailedReason.NAME


def test_given_entity_ids_restrict_the_search(demo: HomeModel) -> None:
    """entity_ids works like Home Assistant's states argument."""
    result = match_targets(
        demo,
        MatchTargetsConstraints(domains=["light"]),
        entity_ids=["light.bedroom_lamp", "switch.coffee_maker"],
    )
    assert result.entity_ids == ["light.bedroom_lamp"]


def test_custom_area_filter_replaces_area_membership(demo: HomeModel) -> None:
    """An area_candidate_filter decides area membership, as HassClimateGetTemperature's does."""
    result = match_targets(
        demo,
        MatchTargetsConstraints(area_name="Office", domains=["sensor"]),
        area_candidate_filter=lambda c, _ids: c.entity_id.endswith("_temperature"),
    )
    assert result.entity_ids == ["sensor.kitchen_multisensor_temperature"]


def test_constraints_accept_lists_and_store_frozensets() -> None:
    """Lists from tool arguments become frozensets; a lone string is one value."""
    constraints = MatchTargetsConstraints(domains=["light", "switch"], device_classes="door")
    assert constraints.domains == frozenset({"light", "switch"})
    assert constraints.device_classes == frozenset({"door"})
    assert constraints.has_constraints
    assert not MatchTargetsConstraints().has_constraints
