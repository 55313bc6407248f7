"""Building the model from Home Assistant's WebSocket results."""

from __future__ import annotations

from addon.home.model.live import HomeModel
from tests.home.homes import HomeData


def test_floors_keep_names_aliases_and_levels(demo: HomeModel) -> None:
    """Floors come from config/floor_registry/list with their aliases and levels."""
    first = demo.floors["first"]
    assert (first.name, first.aliases, first.level) == ("First Floor", ("Upstairs",), 1)


def test_areas_keep_registry_order_floor_and_aliases(demo: HomeModel) -> None:
    """Areas keep registry order, their floor and their aliases."""
    assert list(demo.areas) == ["kitchen", "living_room", "bedroom", "office", "garage"]
    assert demo.areas["living_room"].aliases == ("Lounge",)
    assert demo.areas["kitchen"].floor_id == "ground"


def test_device_name_by_user_wins(demo: HomeModel) -> None:
    """A device renamed by the user is known by the new name."""
    assert demo.devices["dev_desk"].name == "Work Lamp"


def test_entity_without_area_takes_its_devices_area(demo: HomeModel) -> None:
    """An entity with no area of its own is in its device's area, and that area's floor."""
    entity = demo.entity("light.bedroom_lamp")
    assert entity is not None
    assert (entity.area_id, entity.floor_id) == ("bedroom", "first")


def test_entity_area_overrides_device_area() -> None:
    """An entity's own area wins over its device's."""
    home = HomeData()
    home.area("kitchen", "Kitchen")
    home.area("porch", "Porch")
    home.device("dev", "Plug", area_id="kitchen")
    home.entity("switch.plug", friendly_name="Plug", device_id="dev", area_id="porch")
    entity = home.build().entity("switch.plug")
    assert entity is not None
    assert entity.area_id == "porch"


def test_entity_name_is_home_assistants_friendly_name(demo: HomeModel) -> None:
    """The name is the state's friendly name, as Home Assistant's own prompt lists it."""
    entity = demo.entity("sensor.kitchen_multisensor_temperature")
    assert entity is not None
    assert entity.name == "Kitchen Multisensor Temperature"


def test_state_without_friendly_name_is_named_from_object_id() -> None:
    """Without a friendly name the name is the object id with spaces, like State.name."""
    home = HomeData()
    home.entity("light.back_yard", registry=False, listed=True)
    entity = home.build().entity("light.back_yard")
    assert entity is not None
    assert entity.name == "back yard"


def test_entity_without_state_falls_back_to_registry_names(demo: HomeModel) -> None:
    """A disabled entity (no state) is named from the registry's original name."""
    entity = demo.entity("light.disabled_lamp")
    assert entity is not None
    assert (entity.name, entity.has_state) == ("Old Lamp", False)


def test_aliases_come_from_get_entries(demo: HomeModel) -> None:
    """Aliases exist only in get_entries' extended dict and are read from there."""
    entity = demo.entity("light.kitchen_ceiling")
    assert entity is not None
    assert entity.aliases == ("Big Light",)
    assert entity.names == ("Kitchen Ceiling", "Big Light")


def test_get_entries_null_entry_is_tolerated() -> None:
    """get_entries answers null for an id it does not know; the list entry still counts."""
    home = HomeData()
    home.entity("light.desk", friendly_name="Desk")
    home.details["light.desk"] = None
    entity = home.build().entity("light.desk")
    assert entity is not None
    assert entity.entry is not None
    assert entity.aliases == ()


def test_state_reads_compressed_format(demo: HomeModel) -> None:
    """States come from subscribe_entities' compressed form; lu defaults to lc."""
    state = demo.state("climate.thermostat")
    assert state is not None
    assert (state.state, state.attributes["temperature"]) == ("heat", 21)
    assert state.last_updated == state.last_changed
    assert state.context["id"] == "ctx-climate.thermostat"


def test_exposed_entities_are_the_exposed_ones_with_a_state(demo: HomeModel) -> None:
    """exposed_entities lists what Assist may see, in state machine order."""
    exposed = [entity.entity_id for entity in demo.exposed_entities()]
    assert exposed == [
        "light.kitchen_ceiling",
        "light.bedroom_lamp",
        "light.living_room_lamp",
        "light.office_lamp",
        "light.garage_light",
        "light.porch",
        "switch.coffee_maker",
        "climate.thermostat",
        "sensor.kitchen_multisensor_temperature",
        "binary_sensor.front_door",
        "cover.garage_door",
        "media_player.tv",
        "script.good_night",
        "todo.shopping_list",
    ]


def test_config_is_kept(demo: HomeModel) -> None:
    """get_config's result is available to the prompt builder."""
    assert demo.config["location_name"] == "Test Home"


def test_entity_ids_are_in_state_order(demo: HomeModel) -> None:
    """entity_ids lists every entity with a state, in the order Home Assistant sent them."""
    ids = demo.entity_ids()
    assert ids[0] == "light.kitchen_ceiling"
    assert "light.disabled_lamp" not in ids
    assert len(ids) == len(set(ids))
