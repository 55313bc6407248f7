"""Hand-made homes in Home Assistant 2025.4's WebSocket formats, for precise tests.

:class:`HomeData` collects registry and state dicts exactly as the WebSocket commands return
them (``as_partial_dict`` for the entity list, ``extended_dict`` for ``get_entries``, compressed
states), so every test exercises the same parsing the live model uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from addon.home.model.live import HomeModel

T0 = 1_767_225_600.0


@dataclass
class HomeData:
    """Raw Home Assistant results, built up by the helpers below."""

    areas: list[dict[str, Any]] = field(default_factory=list)
    floors: list[dict[str, Any]] = field(default_factory=list)
    devices: list[dict[str, Any]] = field(default_factory=list)
    entities: list[dict[str, Any]] = field(default_factory=list)
    details: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    exposure: dict[str, dict[str, Any]] = field(default_factory=dict)
    states: dict[str, dict[str, Any]] = field(default_factory=dict)

    def floor(self, floor_id: str, name: str, *aliases: str, level: int = 0) -> None:
        self.floors.append(
            {
                "floor_id": floor_id,
                "name": name,
                "aliases": list(aliases),
                "level": level,
                "icon": None,
                "created_at": T0,
                "modified_at": T0,
            }
        )

    def area(self, area_id: str, name: str, *aliases: str, floor_id: str | None = None) -> None:
        self.areas.append(
            {
                "area_id": area_id,
                "name": name,
                "aliases": list(aliases),
                "floor_id": floor_id,
                "icon": None,
                "labels": [],
                "picture": None,
                "humidity_entity_id": None,
                "temperature_entity_id": None,
                "created_at": T0,
                "modified_at": T0,
            }
        )

    def device(
        self, device_id: str, name: str, *, area_id: str | None, name_by_user: str | None = None
    ) -> None:
        self.devices.append(
            {
                "id": device_id,
                "name": name,
                "name_by_user": name_by_user,
                "area_id": area_id,
                "manufacturer": "Acme",
                "model": "One",
                "model_id": None,
                "config_entries": ["entry1"],
                "config_entries_subentries": {},
                "connections": [],
                "identifiers": [["test", device_id]],
                "labels": [],
                "disabled_by": None,
                "entry_type": None,
                "hw_version": None,
                "sw_version": None,
                "serial_number": None,
                "configuration_url": None,
                "via_device_id": None,
                "primary_config_entry": "entry1",
                "created_at": T0,
                "modified_at": T0,
            }
        )

    def entity(
        self,
        entity_id: str,
        *,
        state: str | None = "on",
        friendly_name: str | None = None,
        attributes: dict[str, Any] | None = None,
        name: str | None = None,
        original_name: str | None = None,
        aliases: tuple[str, ...] = (),
        area_id: str | None = None,
        device_id: str | None = None,
        entity_category: str | None = None,
        hidden_by: str | None = None,
        disabled_by: str | None = None,
        device_class: str | None = None,
        original_device_class: str | None = None,
        expose: bool | None = None,
        registry: bool = True,
        listed: bool | None = None,
        unique_id: str | None = None,
    ) -> None:
        """One entity: its registry entry (unless ``registry=False``) and its state.

        ``expose`` stores an explicit ``should_expose`` in the entry's options (and lists it
        when True, as Home Assistant's ``expose_entity/list`` does); ``listed`` forces the list.
        ``unique_id`` defaults to one made from the entity id.
        """
        if registry:
            options = {} if expose is None else {"conversation": {"should_expose": expose}}
            partial = {
                "area_id": area_id,
                "categories": {},
                "config_entry_id": "entry1",
                "config_subentry_id": None,
                "created_at": T0,
                "device_id": device_id,
                "disabled_by": disabled_by,
                "entity_category": entity_category,
                "entity_id": entity_id,
                "has_entity_name": device_id is not None,
                "hidden_by": hidden_by,
                "icon": None,
                "id": f"id-{entity_id}",
                "labels": [],
                "modified_at": T0,
                "name": name,
                "options": options,
                "original_name": original_name,
                "platform": "test",
                "translation_key": None,
                "unique_id": unique_id or f"uid-{entity_id}",
            }
            self.entities.append(partial)
            self.details[entity_id] = {
                **partial,
                "aliases": list(aliases),
                "capabilities": None,
                "device_class": device_class,
                "original_device_class": original_device_class,
                "original_icon": None,
            }
        if listed or (listed is None and expose):
            self.exposure[entity_id] = {"conversation": True}
        if state is not None:
            attrs = dict(attributes or {})
            if friendly_name is not None:
                attrs["friendly_name"] = friendly_name
            self.states[entity_id] = {"s": state, "a": attrs, "c": f"ctx-{entity_id}", "lc": T0}

    def build(self, **extra: Any) -> HomeModel:
        return HomeModel.build(
            config={"location_name": "Test Home", "language": "en"},
            areas=self.areas,
            floors=self.floors,
            devices=self.devices,
            entities=self.entities,
            entity_details=self.details,
            exposure=self.exposure,
            states=self.states,
            **extra,
        )


def demo_home() -> HomeData:
    """A small home with every case the resolver must get right.

    Two floors; a kitchen, living room, bedroom, office and a garage on no floor. Two lights
    named "Lamp" (bedroom, living room); "Front Door" is both a lock and a door sensor; a hidden
    light, a light the user unexposed, a YAML light that is exposed and one that is not.
    """
    home = HomeData()
    home.floor("ground", "Ground Floor", "Downstairs", level=0)
    home.floor("first", "First Floor", "Upstairs", level=1)
    home.area("kitchen", "Kitchen", "Cooking Area", floor_id="ground")
    home.area("living_room", "Living Room", "Lounge", floor_id="ground")
    home.area("bedroom", "Bedroom", floor_id="first")
    home.area("office", "Office", floor_id="first")
    home.area("garage", "Garage")
    home.device("dev_ceiling", "Kitchen Ceiling", area_id="kitchen")
    home.device("dev_bed_lamp", "Lamp", area_id="bedroom")
    home.device("dev_living_lamp", "Lamp", area_id="living_room")
    home.device("dev_desk", "Desk Lamp", area_id="office", name_by_user="Work Lamp")
    home.device("dev_thermostat", "Thermostat", area_id="living_room")
    home.device("dev_multi", "Kitchen Multisensor", area_id="kitchen")
    home.device("dev_tv", "TV", area_id="living_room")

    light = {"supported_features": 44, "brightness": 128}
    home.entity(
        "light.kitchen_ceiling",
        friendly_name="Kitchen Ceiling",
        attributes=light,
        device_id="dev_ceiling",
        aliases=("Big Light",),
    )
    home.entity(
        "light.bedroom_lamp", friendly_name="Lamp", attributes=light, device_id="dev_bed_lamp"
    )
    home.entity(
        "light.living_room_lamp",
        state="off",
        friendly_name="Lamp",
        attributes=light,
        device_id="dev_living_lamp",
    )
    home.entity("light.office_lamp", friendly_name="Work Lamp", device_id="dev_desk")
    home.entity("light.garage_light", friendly_name="Garage Light", area_id="garage")
    home.entity(
        "light.secret_lamp",
        friendly_name="Secret Lamp",
        area_id="bedroom",
        aliases=("Hidden Light",),
        expose=False,
    )
    home.entity(
        "light.hidden_lamp", friendly_name="Hidden Lamp", area_id="office", hidden_by="user"
    )
    home.entity("light.porch", friendly_name="Porch Light", registry=False, listed=True)
    home.entity("light.yaml_shed", friendly_name="Shed Light", registry=False)
    home.entity(
        "switch.coffee_maker",
        friendly_name="Coffee Machine",
        name="Coffee Machine",
        original_name="Coffee Maker",
        area_id="kitchen",
    )
    home.entity(
        "climate.thermostat",
        state="heat",
        friendly_name="Thermostat",
        attributes={"supported_features": 385, "current_temperature": 20, "temperature": 21},
        device_id="dev_thermostat",
    )
    home.entity(
        "sensor.kitchen_multisensor_temperature",
        state="21.5",
        friendly_name="Kitchen Multisensor Temperature",
        attributes={"device_class": "temperature", "unit_of_measurement": "°C"},
        original_name="Temperature",
        original_device_class="temperature",
        device_id="dev_multi",
    )
    home.entity(
        "sensor.kitchen_multisensor_battery",
        state="80",
        friendly_name="Kitchen Multisensor Battery",
        attributes={"device_class": "battery"},
        original_name="Battery",
        original_device_class="battery",
        device_id="dev_multi",
        entity_category="diagnostic",
    )
    home.entity(
        "sensor.power",
        state="12",
        friendly_name="Power",
        attributes={"device_class": "power"},
        original_device_class="power",
        area_id="kitchen",
    )
    home.entity(
        "binary_sensor.front_door",
        state="off",
        friendly_name="Front Door",
        attributes={"device_class": "door"},
        original_device_class="door",
        area_id="living_room",
    )
    home.entity(
        "binary_sensor.leak",
        state="off",
        friendly_name="Leak",
        attributes={"device_class": "moisture"},
        original_device_class="moisture",
        area_id="kitchen",
    )
    home.entity(
        "lock.front_door",
        state="locked",
        friendly_name="Front Door",
        attributes={"supported_features": 0},
        area_id="living_room",
    )
    home.entity(
        "cover.garage_door",
        state="closed",
        friendly_name="Garage Door",
        attributes={"device_class": "garage", "supported_features": 3},
        original_device_class="garage",
        area_id="garage",
    )
    home.entity(
        "media_player.tv",
        state="playing",
        friendly_name="TV",
        attributes={"supported_features": 152463},
        device_id="dev_tv",
        aliases=("Telly",),
    )
    home.entity("script.good_night", state="off", friendly_name="Good Night", expose=True)
    home.entity("script.party", state="off", friendly_name="Party")
    home.entity("todo.shopping_list", state="2", friendly_name="Shopping List")
    home.entity("weather.home", state="sunny", friendly_name="Home")
    home.entity("group.all_locks", state="locked", registry=False, listed=True)
    home.entity("light.disabled_lamp", state=None, original_name="Old Lamp", disabled_by="user")
    return home
