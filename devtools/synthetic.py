"""Realistic synthetic homes in Home Assistant 2025.4's WebSocket formats.

For tests and benchmarks that need a home larger than anyone would write by hand. The output is
exactly what :meth:`HomeModel.build` takes (registry lists, ``get_entries`` details, the
``expose_entity/list`` mapping, compressed states), shaped like a real home: devices in areas on
floors, ``has_entity_name`` entities named after their device, diagnostic sensors with an
``entity_category``, generic names ("Ceiling Light") repeated across areas, some aliases, user
renames, hidden and disabled entities, YAML entities with no registry entry, and exposure that
is partly explicit (both ways) and partly left to Home Assistant's default rule.

Everything derives from ``random.Random(seed)``, so a size and seed always give the same home.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from addon.home.model.exposure import CONVERSATION, is_default_exposed
from addon.home.model.live import HomeModel
from addon.home.model.records import EntityState, RegistryEntry

_FLOORS: tuple[tuple[str, str, list[str], int], ...] = (
    ("ground_floor", "Ground Floor", ["Downstairs"], 0),
    ("first_floor", "First Floor", ["Upstairs"], 1),
    ("basement", "Basement", ["Cellar"], -1),
    ("second_floor", "Second Floor", [], 2),
)
_ROOMS: tuple[tuple[str, list[str]], ...] = (
    ("Kitchen", []), ("Living Room", ["Lounge"]), ("Bedroom", ["Master Bedroom"]),
    ("Bathroom", []), ("Office", ["Study"]), ("Hallway", ["Hall"]), ("Dining Room", []),
    ("Garage", []), ("Guest Room", []), ("Kids Room", ["Nursery"]), ("Laundry Room", []),
    ("Porch", []), ("Patio", []), ("Attic", []), ("Gym", []), ("Pantry", []),
)  # fmt: skip

Attrs = Callable[[random.Random], tuple[str, dict[str, Any]]]


@dataclass(frozen=True, slots=True)
class _Kind:
    """One kind of entity: domain, device class, base names, state and attributes."""

    domain: str
    names: tuple[str, ...]
    make: Attrs
    device_class: str | None = None
    category: str | None = None


def _onoff(rng: random.Random) -> str:
    return rng.choice(("on", "off"))


_KINDS: Mapping[str, _Kind] = MappingProxyType({
    "light": _Kind("light", ("Ceiling Light", "Lamp", "Floor Lamp", "Desk Lamp", "Pendant",
                             "Spotlights", "Strip Light", "Wall Light"),
                   lambda r: (_onoff(r), {"brightness": r.randint(1, 255), "color_mode": "hs",
                                          "supported_color_modes": ["hs", "color_temp"],
                                          "supported_features": 44})),
    "switch": _Kind("switch", ("Coffee Maker", "Heater Plug", "Fan Plug", "TV Plug"),
                    lambda r: (_onoff(r), {"device_class": "outlet"})),
    "cover": _Kind("cover", ("Blinds", "Curtains", "Shades"),
                   lambda r: ("open", {"current_position": r.randint(0, 100),
                                       "supported_features": 15, "device_class": "blind"})),
    "garage": _Kind("cover", ("Garage Door",),
                    lambda r: ("closed", {"supported_features": 3, "device_class": "garage"})),
    "climate": _Kind("climate", ("Thermostat",),
                     lambda r: ("heat", {"hvac_modes": ["off", "heat", "cool"],
                                         "current_temperature": r.randint(17, 24),
                                         "temperature": 21, "supported_features": 385})),
    "fan": _Kind("fan", ("Ceiling Fan", "Tower Fan"),
                 lambda r: (_onoff(r), {"percentage": r.choice((0, 33, 66, 100)),
                                        "supported_features": 49})),
    "lock": _Kind("lock", ("Front Door Lock", "Back Door Lock"),
                  lambda r: (r.choice(("locked", "unlocked")), {"supported_features": 0})),
    "media_player": _Kind("media_player", ("TV", "Speaker", "Soundbar"),
                          lambda r: (r.choice(("playing", "paused", "off")),
                                     {"volume_level": 0.3, "supported_features": 152463,
                                      "device_class": "speaker"})),
    "vacuum": _Kind("vacuum", ("Robot Vacuum",),
                    lambda r: ("docked", {"supported_features": 12796})),
    "valve": _Kind("valve", ("Water Main", "Garden Valve"),
                   lambda r: ("open", {"supported_features": 3, "device_class": "water"})),
    "temperature": _Kind("sensor", ("Temperature",),
                         lambda r: (f"{r.uniform(16, 26):.1f}",
                                    {"unit_of_measurement": "°C", "state_class": "measurement"}),
                         "temperature"),
    "humidity": _Kind("sensor", ("Humidity",),
                      lambda r: (str(r.randint(30, 70)), {"unit_of_measurement": "%"}),
                      "humidity"),
    "co2": _Kind("sensor", ("CO2",), lambda r: (str(r.randint(400, 1200)),
                                                {"unit_of_measurement": "ppm"}), "carbon_dioxide"),
    "illuminance": _Kind("sensor", ("Illuminance",),
                         lambda r: (str(r.randint(0, 800)), {"unit_of_measurement": "lx"}),
                         "illuminance"),
    "power": _Kind("sensor", ("Power",),
                   lambda r: (f"{r.uniform(0, 90):.1f}", {"unit_of_measurement": "W"}), "power"),
    "battery": _Kind("sensor", ("Battery",), lambda r: (str(r.randint(5, 100)),
                                                        {"unit_of_measurement": "%"}),
                     "battery", "diagnostic"),
    "signal": _Kind("sensor", ("Signal Strength",),
                    lambda r: (str(r.randint(-90, -40)), {"unit_of_measurement": "dBm"}),
                    "signal_strength", "diagnostic"),
    "motion": _Kind("binary_sensor", ("Motion",), lambda r: (_onoff(r), {}), "motion"),
    "door": _Kind("binary_sensor", ("Door",), lambda r: (_onoff(r), {}), "door"),
    "window": _Kind("binary_sensor", ("Window",), lambda r: (_onoff(r), {}), "window"),
    "moisture": _Kind("binary_sensor", ("Leak",), lambda r: ("off", {}), "moisture"),
    "identify": _Kind("button", ("Identify",), lambda r: ("unknown", {}), "identify", "config"),
})  # fmt: skip

_SENSOR_DEVICES = ("Multisensor", "Climate Sensor", "Air Monitor", "Contact Sensor")
_DEVICES: tuple[tuple[int, str, tuple[str, ...]], ...] = (
    # (weight, main kind, extra kinds on the same device); sensor devices are named from
    # _SENSOR_DEVICES and their main entity gets the kind's name, as integrations do.
    (26, "light", ("signal",)),
    (8, "switch", ("power",)),
    (6, "cover", ("battery",)),
    (2, "garage", ()),
    (3, "climate", ("temperature", "humidity")),
    (3, "fan", ()),
    (2, "lock", ("battery",)),
    (4, "media_player", ()),
    (1, "vacuum", ("battery",)),
    (1, "valve", ()),
    (7, "temperature", ("humidity", "co2", "battery")),
    (5, "motion", ("illuminance", "battery")),
    (5, "door", ("battery",)),
    (4, "window", ("battery",)),
    (2, "moisture", ("battery", "identify")),
)
_ALIASES: Mapping[str, str] = MappingProxyType(
    {"Ceiling Light": "Big Light", "TV": "Telly", "Lamp": "Reading Light",
     "Thermostat": "Heating", "Robot Vacuum": "Roomba", "Blinds": "Shutters",
     "Floor Lamp": "Standing Lamp", "Pendant": "Hanging Light", "Speaker": "Music",
     "Coffee Maker": "Coffee", "Curtains": "Drapes", "Front Door Lock": "Front Lock"}
)  # fmt: skip
_HOME_WIDE = (
    ("scene", "2026-01-01T08:00:00+00:00", ("Movie Time", "Relax", "Bright", "Dinner")),
    ("script", "off", ("Good Night", "Morning Routine", "Leave Home")),
    ("todo", "3", ("Shopping List", "Chores")),
    ("weather", "sunny", ("Forecast Home",)),
)


def _fixed(value: str) -> Attrs:
    """A kind whose state never varies (scenes, scripts, to-do lists, weather)."""
    return lambda _rng: (value, {})


def _slug(text: str) -> str:
    return "_".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


@dataclass(frozen=True, slots=True)
class SyntheticHome:
    """A generated home: the arguments of :meth:`HomeModel.build`, in Home Assistant's formats."""

    config: dict[str, Any]
    areas: list[dict[str, Any]]
    floors: list[dict[str, Any]]
    devices: list[dict[str, Any]]
    entities: list[dict[str, Any]]
    entity_details: dict[str, dict[str, Any]]
    exposure: dict[str, dict[str, Any]]
    states: dict[str, dict[str, Any]]

    def build_kwargs(self) -> dict[str, Any]:
        """The keyword arguments for :meth:`HomeModel.build`."""
        return {
            "config": self.config,
            "areas": self.areas,
            "floors": self.floors,
            "devices": self.devices,
            "entities": self.entities,
            "entity_details": self.entity_details,
            "exposure": self.exposure,
            "states": self.states,
        }

    def build(self) -> HomeModel:
        """The model of this home."""
        return HomeModel.build(**self.build_kwargs())


@dataclass(slots=True)
class _Builder:
    """Accumulates one home; kept private so the generated dicts are only ever handed out."""

    rng: random.Random
    now: float = 1_767_225_600.0  # 2026-01-01T00:00:00Z
    areas: list[dict[str, Any]] = field(default_factory=list)
    floors: list[dict[str, Any]] = field(default_factory=list)
    devices: list[dict[str, Any]] = field(default_factory=list)
    entities: list[dict[str, Any]] = field(default_factory=list)
    details: dict[str, dict[str, Any]] = field(default_factory=dict)
    exposure: dict[str, dict[str, Any]] = field(default_factory=dict)
    states: dict[str, dict[str, Any]] = field(default_factory=dict)
    taken: set[str] = field(default_factory=set)

    def uid(self) -> str:
        return f"{self.rng.getrandbits(128):032x}"

    def entity_id(self, domain: str, name: str) -> str:
        base = f"{domain}.{_slug(name) or 'entity'}"
        entity_id, n = base, 1
        while entity_id in self.taken:
            n += 1
            entity_id = f"{base}_{n}"
        self.taken.add(entity_id)
        return entity_id

    def places(self, area_count: int) -> None:
        floor_count = max(1, min(len(_FLOORS), (area_count + 5) // 6))
        for floor_id, name, aliases, level in _FLOORS[:floor_count]:
            self.floors.append(
                {"floor_id": floor_id, "name": name, "aliases": aliases, "level": level,
                 "icon": None, "created_at": self.now, "modified_at": self.now}
            )  # fmt: skip
        for i in range(area_count):
            room, aliases = _ROOMS[i % len(_ROOMS)]
            name = room if i < len(_ROOMS) else f"{room} {i // len(_ROOMS) + 1}"
            self.areas.append(
                {"area_id": _slug(name), "name": name,
                 "aliases": aliases if i < len(_ROOMS) else [],
                 "floor_id": self.floors[i % floor_count]["floor_id"], "icon": None,
                 "humidity_entity_id": None, "temperature_entity_id": None, "labels": [],
                 "picture": None, "created_at": self.now, "modified_at": self.now}
            )  # fmt: skip

    def device(self, area: dict[str, Any], name: str, kind: _Kind) -> dict[str, Any]:
        rename = self.rng.random() < 0.08
        device = {
            "id": self.uid(), "area_id": area["area_id"], "name": name,
            "name_by_user": f"{name} {self.rng.randint(2, 9)}" if rename else None,
            "manufacturer": self.rng.choice(("Acme", "Hue", "Aqara", "Shelly", "Ikea")),
            "model": f"{kind.domain.title()} {self.rng.randint(100, 999)}", "model_id": None,
            "config_entries": [self.uid()], "config_entries_subentries": {}, "connections": [],
            "identifiers": [["synthetic", self.uid()]], "labels": [], "disabled_by": None,
            "entry_type": None, "hw_version": None, "sw_version": "1.0", "serial_number": None,
            "configuration_url": None, "via_device_id": None, "primary_config_entry": None,
            "created_at": self.now, "modified_at": self.now,
        }  # fmt: skip
        self.devices.append(device)
        return device

    def entity(
        self,
        kind: _Kind,
        *,
        device: dict[str, Any] | None,
        original_name: str | None,
        friendly: str,
        area_id: str | None = None,
    ) -> None:
        rng = self.rng
        entity_id = self.entity_id(kind.domain, friendly)
        renamed = rng.random() < 0.05
        hidden = rng.random() < 0.03
        disabled = kind.category is not None and rng.random() < 0.3
        name = f"{rng.choice(('Main', 'Old', 'New', 'Big'))} {friendly}" if renamed else None
        base = original_name or (device["name"] if device else friendly)
        aliases = [_ALIASES[base]] if base in _ALIASES and rng.random() < 0.4 else []
        listed: dict[str, Any] = {
            "area_id": area_id, "categories": {}, "config_entry_id": self.uid(),
            "config_subentry_id": None, "created_at": self.now, "modified_at": self.now,
            "device_id": device["id"] if device else None,
            "disabled_by": "user" if disabled else None, "entity_category": kind.category,
            "entity_id": entity_id, "has_entity_name": device is not None,
            "hidden_by": "user" if hidden else None, "icon": None, "id": self.uid(),
            "labels": [], "name": name, "options": {}, "original_name": original_name,
            "platform": "synthetic", "translation_key": None, "unique_id": self.uid(),
        }  # fmt: skip
        state, attributes = kind.make(rng)
        attributes = {**attributes, "friendly_name": name or friendly}
        if kind.device_class:
            attributes["device_class"] = kind.device_class
        entry = RegistryEntry.from_ha(listed, {"original_device_class": kind.device_class})
        compressed = EntityState.from_compressed(entity_id, {"s": state, "a": attributes})
        default = is_default_exposed(entity_id, entry, compressed)
        roll = rng.random()
        exposed: bool | None = None
        if roll < 0.6:  # Home Assistant already stored its default.
            exposed = default
        elif roll < 0.67:  # The user flipped it.
            exposed = not default
        if exposed is not None:
            listed["options"] = {CONVERSATION: {"should_expose": exposed}}
        if exposed:
            self.exposure[entity_id] = {CONVERSATION: True}
        self.entities.append(listed)
        self.details[entity_id] = {
            **listed, "aliases": aliases, "capabilities": None, "device_class": None,
            "original_device_class": kind.device_class, "original_icon": None,
        }  # fmt: skip
        if not disabled:
            self.state(entity_id, state, attributes)

    def state(self, entity_id: str, state: str, attributes: dict[str, Any]) -> None:
        changed = self.now - self.rng.randint(0, 86_400)
        compressed: dict[str, Any] = {"s": state, "a": attributes, "c": self.uid()[:26],
                                      "lc": changed}  # fmt: skip
        if self.rng.random() < 0.3:
            compressed["lu"] = changed + self.rng.randint(1, 600)
        self.states[entity_id] = compressed


def synthetic_home(entity_count: int, *, seed: int = 0) -> SyntheticHome:
    """A home of about ``entity_count`` entities (registry entries plus YAML-only states)."""
    rng = random.Random(seed)
    home = _Builder(rng)
    home.places(max(3, entity_count // 12))
    weights = [weight for weight, _main, _extra in _DEVICES]
    budget = entity_count - 2 * len(_HOME_WIDE)
    yaml_lights = max(1, entity_count // 100)
    while len(home.entities) + yaml_lights < budget:
        _weight, main, extras = rng.choices(_DEVICES, weights)[0]
        area = rng.choice(home.areas)
        kind = _KINDS[main]
        sensor = kind.domain in ("sensor", "binary_sensor")
        base = rng.choice(_SENSOR_DEVICES if sensor else kind.names)
        device_name = f"{area['name']} {base}" if rng.random() < 0.55 else base
        device = home.device(area, device_name, kind)
        shown = device["name_by_user"] or device_name
        own_area = rng.choice(home.areas)["area_id"] if rng.random() < 0.05 else None
        label = kind.names[0] if sensor else None
        friendly = f"{shown} {label}" if label else shown
        home.entity(kind, device=device, original_name=label, friendly=friendly, area_id=own_area)
        for extra in extras:
            if rng.random() < 0.5:
                extra_kind = _KINDS[extra]
                label = extra_kind.names[0]
                home.entity(extra_kind, device=device, original_name=label,
                            friendly=f"{shown} {label}")  # fmt: skip
    for domain, value, names in _HOME_WIDE:
        for name in names[: 1 + entity_count // 400]:
            kind = _Kind(domain, (name,), _fixed(value))
            home.entity(kind, device=None, original_name=name, friendly=name)
    for i in range(yaml_lights):
        # YAML entities without unique_id: states only; Home Assistant stored half as exposed.
        entity_id = home.entity_id("light", f"yaml porch light {i + 1}")
        home.state(entity_id, "off", {"friendly_name": f"Porch Light {i + 1}",
                                      "supported_features": 0})  # fmt: skip
        if i % 2 == 0:
            home.exposure[entity_id] = {CONVERSATION: True}
    config = {
        "location_name": "Synthetic Home", "language": "en", "country": "GB",
        "latitude": 51.5, "longitude": -0.12, "elevation": 10, "time_zone": "Europe/London",
        "currency": "GBP", "radius": 100, "version": "2025.4.4", "state": "RUNNING",
        "unit_system": {"length": "km", "mass": "g", "temperature": "°C", "volume": "L",
                        "pressure": "Pa", "wind_speed": "m/s", "accumulated_precipitation": "mm"},
        "components": ["conversation", "intent", "homeassistant"], "config_source": "storage",
        "safe_mode": False, "recovery_mode": False, "external_url": None, "internal_url": None,
    }  # fmt: skip
    return SyntheticHome(
        config=config,
        areas=home.areas,
        floors=home.floors,
        devices=home.devices,
        entities=home.entities,
        entity_details=home.details,
        exposure=home.exposure,
        states=home.states,
    )
