"""The loose fallback: names that differ only in case, spacing or punctuation still match.

Home Assistant 2025.4 ignores only case and outer spaces; we retry a failed name (and an unknown
area or floor) with loose keys, leaving every other rule as it is.
"""

from __future__ import annotations

import unicodedata

import pytest

from addon.home.model.live import HomeModel
from addon.home.model.names import loose_name
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import (
    MatchFailedReason,
    MatchTargetsConstraints,
    MatchTargetsPreferences,
    MatchTargetsResult,
)
from tests.home.homes import demo_home


@pytest.fixture
def home() -> HomeModel:
    """The demo home plus loose twins: names and areas equal to others but for punctuation."""
    data = demo_home()
    data.area("guest_room", "Guest Room")
    data.area("guest_annex", "Guest-Room")
    data.entity("switch.garage_light_plug", friendly_name="Garage-Light", area_id="garage")
    data.entity("light.guest_lamp", friendly_name="Guest Lamp", area_id="guest_room")
    data.entity("light.annex_lamp", friendly_name="Annex Lamp", area_id="guest_annex")
    data.entity("light.attic_light", friendly_name="Attic Light", expose=False)
    data.entity("switch.attic_light", friendly_name="Attic-Light")
    data.entity("light.star", friendly_name="★")
    return data.build()


def match(model: HomeModel, **constraints: object) -> MatchTargetsResult:
    return match_targets(model, MatchTargetsConstraints(**constraints))  # type: ignore[arg-type]


def ids(model: HomeModel, **constraints: object) -> list[str]:
    result = match(model, **constraints)
    assert result.is_match, result
    return result.entity_ids


# The loose key -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "Kitchen-Ceiling",
        "kitchen  ceiling",
        "Kitchen Ceiling.",
        "KITCHEN_CEILING",
        " kitchen/ceiling!",
    ],
)
def test_loose_name_folds_case_spacing_and_punctuation(name: str) -> None:
    """Every variant gives the same key: lower case words separated by single spaces."""
    assert loose_name(name) == "kitchen ceiling"


def test_loose_name_keeps_every_word() -> None:
    """Only the punctuation between words goes; the words all stay."""
    assert loose_name("Entrance Color + White Lights") == "entrance color white lights"


def test_loose_name_treats_composed_and_decomposed_letters_alike() -> None:
    """A decomposed "Bär" is the composed "Bär", and neither is "Bar"."""
    decomposed = unicodedata.normalize("NFD", "Bär Lampe")
    assert loose_name(decomposed) == loose_name("Bär Lampe") == "bär lampe"
    assert loose_name(decomposed) != loose_name("Bar Lampe")


def test_loose_name_keeps_combining_vowel_signs() -> None:
    """Vowel signs are part of a Hindi word, not punctuation that splits it."""
    assert loose_name("रसोई की बत्ती!") == "रसोई की बत्ती"


def test_loose_name_of_punctuation_alone_is_empty() -> None:
    """A name with no letters or digits has an empty key, which never matches."""
    assert loose_name(" -!★ ") == ""


# Names, aliases, areas and floors ------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "Kitchen-Ceiling",
        "kitchen  ceiling",
        "Kitchen Ceiling.",
        "kitchen_ceiling",
        "KITCHEN-CEILING!",
    ],
)
def test_name_variants_match(home: HomeModel, name: str) -> None:
    """Punctuation, hyphens, dots, double spaces and case do not stop a name matching."""
    assert ids(home, name=name) == ["light.kitchen_ceiling"]


@pytest.mark.parametrize("name", ["Big-Light", "big light!", "BIG_LIGHT"])
def test_alias_variants_match(home: HomeModel, name: str) -> None:
    """An alias matches loosely like a name."""
    assert ids(home, name=name) == ["light.kitchen_ceiling"]


def test_registry_name_variant_matches(home: HomeModel) -> None:
    """The user's registry name matches loosely too."""
    assert ids(home, name="coffee-machine") == ["switch.coffee_maker"]


def test_integration_name_variant_does_not_match(home: HomeModel) -> None:
    """The loose fallback looks at the same names as Home Assistant, not the original name."""
    assert match(home, name="coffee-maker").no_match_reason is MatchFailedReason.NAME


@pytest.mark.parametrize("area", ["Living-Room", "living  room", "Living Room.", "lounge!"])
def test_area_name_and_alias_variants_match(home: HomeModel, area: str) -> None:
    """An area name or alias matches loosely, and the result names the area."""
    result = match(home, area_name=area, domains=["light"])
    assert result.entity_ids == ["light.living_room_lamp"]
    assert [found.area_id for found in result.areas] == ["living_room"]


@pytest.mark.parametrize("floor", ["Ground-Floor", "ground floor!"])
def test_floor_name_variants_match(home: HomeModel, floor: str) -> None:
    """A floor name matches loosely, and the result names the floor."""
    result = match(home, floor_name=floor, domains=["light"])
    assert result.entity_ids == ["light.kitchen_ceiling", "light.living_room_lamp"]
    assert [found.floor_id for found in result.floors] == ["ground"]


def test_unknown_area_variant_is_still_invalid_area(home: HomeModel) -> None:
    """An area that is not there loosely either is INVALID_AREA, named as asked."""
    result = match(home, area_name="Attic!", domains=["light"])
    assert result.no_match_reason is MatchFailedReason.INVALID_AREA
    assert result.no_match_name == "Attic!"


# Strict matches stay as they are ------------------------------------------------------------


def test_exact_name_is_not_widened_to_loose_twins(home: HomeModel) -> None:
    """An exact name matches only the entity with it ("Garage Light"), not "Garage-Light"."""
    assert ids(home, name="Garage Light") == ["light.garage_light"]


def test_exact_punctuated_name_matches_only_itself(home: HomeModel) -> None:
    """A punctuated name that exists exactly ("Garage-Light") matches only that entity."""
    assert ids(home, name="garage-light") == ["switch.garage_light_plug"]


def test_exact_area_is_not_widened_to_loose_twins(home: HomeModel) -> None:
    """An area found by its exact name is the only area, even with a loose twin."""
    assert ids(home, area_name="Guest Room", domains=["light"]) == ["light.guest_lamp"]


def test_loose_area_finds_every_loose_twin(home: HomeModel) -> None:
    """With no exact area, every area with the same loose name is targeted."""
    assert ids(home, area_name="guest room!", domains=["light"]) == [
        "light.guest_lamp",
        "light.annex_lamp",
    ]


@pytest.mark.parametrize("name", ["light.kitchen-ceiling", "light kitchen ceiling"])
def test_entity_ids_are_not_loosened(home: HomeModel, name: str) -> None:
    """Home Assistant accepts an entity id only exactly; so do we."""
    assert match(home, name=name).no_match_reason is MatchFailedReason.NAME


def test_name_of_only_punctuation_matches_nothing_loosely(home: HomeModel) -> None:
    """A request that loosens to nothing ("☆", like the name "★") matches nothing."""
    assert match(home, name="☆").no_match_reason is MatchFailedReason.NAME


# Every other rule still applies --------------------------------------------------------------


def test_loose_match_respects_exposure(home: HomeModel) -> None:
    """An unexposed entity is not matched loosely, nor suggested: the answer is NAME."""
    result = match(home, name="secret-lamp")
    assert result.no_match_reason is MatchFailedReason.NAME
    assert "light.secret_lamp" not in {s.entity_id for s in result.suggestions}


def test_loose_match_without_exposure_filter_finds_unexposed(home: HomeModel) -> None:
    """With the exposure filter off, the same request matches: exposure alone stopped it."""
    assert ids(home, name="secret-lamp", assistant=None) == ["light.secret_lamp"]


def test_unexposed_exact_name_is_not_replaced_by_loose_twin(home: HomeModel) -> None:
    """An unexposed exact match is ASSISTANT, never its exposed loose twin "Attic-Light"."""
    assert match(home, name="Attic Light").no_match_reason is MatchFailedReason.ASSISTANT


def test_loose_match_respects_area(home: HomeModel) -> None:
    """A loose name in another area than the one asked for is a NAME failure."""
    result = match(home, name="Kitchen-Ceiling", area_name="Bedroom")
    assert result.no_match_reason is MatchFailedReason.NAME


def test_loose_name_and_loose_area_match_together(home: HomeModel) -> None:
    """A loose name in a loosely named area matches."""
    assert ids(home, name="kitchen-ceiling", area_name="cooking area!") == ["light.kitchen_ceiling"]


def test_loose_match_respects_domain(home: HomeModel) -> None:
    """Only the loose matches in the asked domain count."""
    assert ids(home, name="garage light!", domains=["switch"]) == ["switch.garage_light_plug"]


# Duplicates and single targets ---------------------------------------------------------------


def test_loose_duplicates_are_duplicate_names(home: HomeModel) -> None:
    """Two entities with the same loose name tie as DUPLICATE_NAME, with both as candidates."""
    result = match(home, name="garage light!")
    assert result.no_match_reason is MatchFailedReason.DUPLICATE_NAME
    assert result.no_match_name == "garage light!"
    assert [c.entity_id for c in result.candidates] == [
        "light.garage_light",
        "switch.garage_light_plug",
    ]


def test_loose_duplicate_resolved_by_preferred_area(home: HomeModel) -> None:
    """The satellite's area picks one of the loosely same-named entities."""
    result = match_targets(
        home, MatchTargetsConstraints(name="lamp."), MatchTargetsPreferences(area_id="bedroom")
    )
    assert result.entity_ids == ["light.bedroom_lamp"]


def test_loose_duplicates_allowed_when_asked(home: HomeModel) -> None:
    """With duplicates allowed, every loose match is in the result."""
    assert ids(home, name="lamp!", allow_duplicate_names=True) == [
        "light.bedroom_lamp",
        "light.living_room_lamp",
    ]


def test_loose_duplicates_for_a_single_target_are_multiple_targets(home: HomeModel) -> None:
    """A single target with several loose matches is MULTIPLE_TARGETS, as for exact ones."""
    result = match(home, name="lamp!", allow_duplicate_names=True, single_target=True)
    assert result.no_match_reason is MatchFailedReason.MULTIPLE_TARGETS


# The loose index follows the home ------------------------------------------------------------


def test_renamed_entity_matches_its_new_name_loosely(home: HomeModel) -> None:
    """A friendly name changed by a state diff is matched loosely at once."""
    home.apply_entity_diff(
        {"c": {"light.garage_light": {"+": {"a": {"friendly_name": "Workshop Light"}}}}}
    )
    assert ids(home, name="workshop-light") == ["light.garage_light"]


def test_renamed_entity_no_longer_matches_its_old_name_loosely(home: HomeModel) -> None:
    """After a rename only the entity still called that matches the old loose name."""
    home.apply_entity_diff(
        {"c": {"light.garage_light": {"+": {"a": {"friendly_name": "Workshop Light"}}}}}
    )
    assert ids(home, name="garage light!") == ["switch.garage_light_plug"]


def test_removed_state_no_longer_matches_loosely(home: HomeModel) -> None:
    """An entity whose state went is not a loose match either."""
    home.apply_entity_diff({"r": ["switch.garage_light_plug"]})
    assert ids(home, name="garage light!") == ["light.garage_light"]


def test_copy_keeps_its_own_loose_index(home: HomeModel) -> None:
    """Renaming in a model copy leaves the original's loose matches alone."""
    copy = home.copy()
    copy.set_state("light.garage_light", "on", {"friendly_name": "Workshop Light"})
    assert match(home, name="workshop-light").no_match_reason is MatchFailedReason.NAME
    assert ids(copy, name="workshop-light") == ["light.garage_light"]
