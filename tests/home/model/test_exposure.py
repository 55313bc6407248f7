"""Home Assistant's exposure rules: defaults, explicit settings, and what we cannot see."""

from __future__ import annotations

import pytest

from addon.home.model.exposure import is_default_exposed
from addon.home.model.live import HomeModel
from addon.home.model.records import EntityState, RegistryEntry
from tests.home.homes import HomeData


@pytest.mark.parametrize(
    ("entity_id", "exposed"),
    [
        ("light.kitchen_ceiling", True),
        ("switch.coffee_maker", True),
        ("climate.thermostat", True),
        ("cover.garage_door", True),
        ("media_player.tv", True),
        ("todo.shopping_list", True),
        ("lock.front_door", False),
        ("weather.home", False),
        ("script.party", False),
    ],
)
def test_default_exposure_by_domain(demo: HomeModel, entity_id: str, exposed: bool) -> None:
    """Only DEFAULT_EXPOSED_DOMAINS are exposed when nobody chose."""
    assert demo.is_exposed(entity_id) is exposed


@pytest.mark.parametrize(
    ("entity_id", "exposed"),
    [
        ("sensor.kitchen_multisensor_temperature", True),
        ("sensor.power", False),
        ("binary_sensor.front_door", True),
        ("binary_sensor.leak", False),
    ],
)
def test_default_exposure_by_device_class(demo: HomeModel, entity_id: str, exposed: bool) -> None:
    """Sensors and binary sensors are exposed by default only for the listed device classes."""
    assert demo.is_exposed(entity_id) is exposed


def test_entity_category_is_not_exposed_by_default(demo: HomeModel) -> None:
    """A diagnostic or config entity is not exposed by default."""
    assert not demo.is_exposed("sensor.kitchen_multisensor_battery")


def test_hidden_entity_is_not_exposed_by_default(demo: HomeModel) -> None:
    """An entity hidden by the user is not exposed by default, even a light."""
    assert not demo.is_exposed("light.hidden_lamp")


def test_explicit_true_overrides_default(demo: HomeModel) -> None:
    """A script the user exposed is exposed although scripts are not by default."""
    assert demo.is_exposed("script.good_night")


def test_explicit_false_overrides_default(demo: HomeModel) -> None:
    """A light the user unexposed is not exposed although lights are by default."""
    assert not demo.is_exposed("light.secret_lamp")


def test_explicit_false_wins_over_a_stale_list() -> None:
    """If the list still says True but the entry's options say False, False wins."""
    home = HomeData()
    home.entity("light.desk", friendly_name="Desk", expose=False, listed=True)
    assert not home.build().is_exposed("light.desk")


def test_listed_entry_without_known_options_is_exposed() -> None:
    """An entry whose options we were not sent is exposed when the list names it."""
    home = HomeData()
    home.entity("script.wake", friendly_name="Wake", listed=True)
    for raw in (home.entities[0], home.details["script.wake"]):
        assert raw is not None
        del raw["options"]
    assert home.build().is_exposed("script.wake")


def test_unlisted_entry_without_known_options_is_not_exposed() -> None:
    """Without options we cannot see an explicit False, so an unlisted entry stays hidden."""
    home = HomeData()
    home.entity("light.desk", friendly_name="Desk")
    for raw in (home.entities[0], home.details["light.desk"]):
        assert raw is not None
        del raw["options"]
    assert not home.build().is_exposed("light.desk")


def test_state_only_entity_follows_the_list(demo: HomeModel) -> None:
    """An entity without a registry entry is exposed exactly when the list names it."""
    assert demo.is_exposed("light.porch")
    assert not demo.is_exposed("light.yaml_shed")


def test_all_locks_group_is_never_exposed(demo: HomeModel) -> None:
    """group.all_locks is never exposed, whatever the list says."""
    assert not demo.is_exposed("group.all_locks")


def test_expose_new_off_disables_the_default_rule() -> None:
    """When Assist does not expose new entities, only explicit settings expose."""
    home = HomeData()
    home.entity("light.desk", friendly_name="Desk")
    home.entity("light.porch", friendly_name="Porch", expose=True)
    model = home.build(expose_new={"conversation": False})
    assert [e.entity_id for e in model.exposed_entities()] == ["light.porch"]


def test_other_assistants_do_not_expose_new_entities_by_default(demo: HomeModel) -> None:
    """Alexa and Google get only what the user exposed to them; Assist's settings do not count."""
    assert not demo.is_exposed("light.kitchen_ceiling", "cloud.alexa")


def test_state_device_class_decides_before_the_registry() -> None:
    """The default rule reads the device class from the state first, like get_device_class."""
    entry = RegistryEntry("sensor.x", original_device_class="power")
    state = EntityState("sensor.x", "20", {"device_class": "temperature"}, 0.0, 0.0)
    assert is_default_exposed("sensor.x", entry, state)
    assert not is_default_exposed("sensor.x", entry, None)


def test_device_class_change_in_a_diff_updates_exposure() -> None:
    """A sensor whose state gains a default-exposed device class becomes exposed."""
    home = HomeData()
    home.entity("sensor.probe", state="20", friendly_name="Probe")
    model = home.build()
    assert not model.is_exposed("sensor.probe")
    model.apply_entity_diff({"c": {"sensor.probe": {"+": {"a": {"device_class": "humidity"}}}}})
    assert model.is_exposed("sensor.probe")
