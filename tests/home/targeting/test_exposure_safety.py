"""An entity the user has not exposed never matches, whatever the request says."""

from __future__ import annotations

import random

import pytest

from addon.home.model.live import HomeModel
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import MatchFailedReason, MatchTargetsConstraints
from devtools.synthetic import SyntheticHome
from tests.home.homes import HomeData

UNEXPOSED = [
    "light.secret_lamp",
    "light.hidden_lamp",
    "light.yaml_shed",
    "sensor.kitchen_multisensor_battery",
    "group.all_locks",
]


@pytest.mark.parametrize(
    "name", ["Secret Lamp", "Hidden Light", "light.secret_lamp", "Hidden Lamp", "Shed Light"]
)
def test_unexposed_entity_never_matches_by_name_alias_or_id(demo: HomeModel, name: str) -> None:
    """Name, alias or entity id of an unexposed entity: no match, and nothing about it returned."""
    result = match_targets(demo, MatchTargetsConstraints(name=name))
    assert result.no_match_reason is MatchFailedReason.ASSISTANT
    assert result.states == ()
    assert not {s.entity_id for s in result.suggestions} & set(UNEXPOSED)


def test_unexposed_entity_is_left_out_of_area_matches(demo: HomeModel) -> None:
    """Area plus domain matches the exposed lights in the area only."""
    result = match_targets(demo, MatchTargetsConstraints(area_name="Bedroom", domains=["light"]))
    assert result.entity_ids == ["light.bedroom_lamp"]


def test_unexposed_entity_is_left_out_of_domain_matches(demo: HomeModel) -> None:
    """A whole-domain request never includes unexposed entities."""
    result = match_targets(demo, MatchTargetsConstraints(domains=["light", "sensor", "group"]))
    assert not set(result.entity_ids) & set(UNEXPOSED)


def test_area_with_only_unexposed_entities_is_assistant(demo: HomeModel) -> None:
    """An area whose only match is unexposed fails on exposure, as in Home Assistant."""
    result = match_targets(demo, MatchTargetsConstraints(area_name="Office", domains=["light"]))
    assert result.entity_ids == ["light.office_lamp"]
    result = match_targets(demo, MatchTargetsConstraints(name="Hidden Lamp", area_name="Office"))
    assert result.no_match_reason is MatchFailedReason.ASSISTANT


def test_suggestions_never_name_an_unexposed_entity(demo: HomeModel) -> None:
    """The closest name to "Secret Lamb" is unexposed, so it is not suggested."""
    unfiltered = demo.index.fuzzy.closest("Secret Lamb", lambda _entity_id: True)
    result = match_targets(demo, MatchTargetsConstraints(name="Secret Lamb"))
    assert unfiltered[0][1] == "light.secret_lamp"
    assert all(s.entity_id not in UNEXPOSED for s in result.suggestions)


def test_duplicate_candidates_are_exposed_only() -> None:
    """An unexposed twin does not make a name ambiguous; the exposed one matches."""
    home = HomeData()
    home.entity("light.a", friendly_name="Desk")
    home.entity("light.b", friendly_name="Desk", expose=False)
    result = match_targets(home.build(), MatchTargetsConstraints(name="Desk"))
    assert result.entity_ids == ["light.a"]


def test_exposure_filter_can_be_turned_off_explicitly(demo: HomeModel) -> None:
    """assistant=None (Home Assistant's /api/intent/handle) sees every entity."""
    result = match_targets(demo, MatchTargetsConstraints(name="Secret Lamp", assistant=None))
    assert result.entity_ids == ["light.secret_lamp"]


def test_no_unexposed_entity_matches_in_a_synthetic_home(synthetic: SyntheticHome) -> None:
    """Across a generated home, no name, alias or id of an unexposed entity ever matches it."""
    model = synthetic.build()
    unexposed = [
        entity
        for entity_id in model.entity_ids()
        if (entity := model.entity(entity_id)) is not None and not model.is_exposed(entity)
    ]
    assert len(unexposed) > 20
    for entity in unexposed:
        for name in (*entity.names, entity.entity_id):
            result = match_targets(model, MatchTargetsConstraints(name=name))
            assert entity.entity_id not in result.entity_ids
            assert entity.entity_id not in {c.entity_id for c in result.candidates}
            assert entity.entity_id not in {s.entity_id for s in result.suggestions}


def test_every_match_in_a_synthetic_home_is_exposed(synthetic: SyntheticHome) -> None:
    """Random area, floor and domain requests only ever return exposed entities."""
    model = synthetic.build()
    rng = random.Random(3)
    areas, floors = list(model.areas.values()), list(model.floors.values())
    for _ in range(300):
        constraints = MatchTargetsConstraints(
            area_name=rng.choice(areas).name if rng.random() < 0.5 else None,
            floor_name=rng.choice(floors).name if rng.random() < 0.3 else None,
            domains=[rng.choice(["light", "sensor", "binary_sensor", "script", "weather"])],
        )
        result = match_targets(model, constraints)
        assert all(model.is_exposed(entity_id) for entity_id in result.entity_ids)
