"""A task file's home as a :class:`~addon.home.model.live.HomeModel`, and its reset between tasks.

The fixture is written in Home Assistant's terms (areas, floors, devices, entities with states),
so it becomes exactly the registry lists, ``get_entries`` details, exposure and compressed states
that :meth:`HomeModel.build` takes from a real Home Assistant; the agent cannot tell the
difference. Where the fixture leaves ``supported_features`` out, the domain's usual full set is
given, so a cover opens and a media player pauses as most real ones do. A light is read as the
side-by-side harness's synthetic home reads it (devtools/ha_synthetic_home), so one file means
one home in both: a dimmable colour light unless ``supported_color_modes`` says otherwise, and an
"off" light shows ``None`` for its brightness and colours, as Home Assistant shows it.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntFlag
from types import MappingProxyType

from addon.eval.tasks import EntitySpec, HomeSpec, StateSpec
from addon.home.actions.light_effects import ON_ONLY
from addon.home.model.exposure import CONVERSATION
from addon.home.model.features import (
    ClimateEntityFeature,
    CoverEntityFeature,
    FanEntityFeature,
    LightEntityFeature,
    LockEntityFeature,
    MediaPlayerEntityFeature,
    TodoListEntityFeature,
    VacuumEntityFeature,
    ValveEntityFeature,
)
from addon.home.model.live import HomeModel
from addon.text import JsonObject

# Short names for the table below, which is easier to check against Home Assistant one line each.
_Light, _Cover, _Valve = LightEntityFeature, CoverEntityFeature, ValveEntityFeature
_Fan, _Media, _Climate = FanEntityFeature, MediaPlayerEntityFeature, ClimateEntityFeature
_Vacuum, _Todo = VacuumEntityFeature, TodoListEntityFeature


def _every(features: type[IntFlag]) -> int:
    """Every bit of the domain that Home Agent knows by name (``~`` would set the gaps too)."""
    return sum(features)


FULL_FEATURES: Mapping[str, int] = MappingProxyType(
    {
        domain: int(features)
        for domain, features in (
            ("light", _Light.EFFECT | _Light.FLASH | _Light.TRANSITION),
            ("cover", _Cover.OPEN | _Cover.CLOSE | _Cover.SET_POSITION | _Cover.STOP),
            ("valve", _Valve.OPEN | _Valve.CLOSE | _Valve.SET_POSITION | _Valve.STOP),
            ("lock", LockEntityFeature.OPEN),
            ("fan", _every(_Fan)),
            ("media_player", _every(_Media)),
            ("climate", _Climate.TARGET_TEMPERATURE | _Climate.TURN_OFF | _Climate.TURN_ON),
            (
                "vacuum",
                _Vacuum.PAUSE | _Vacuum.STOP | _Vacuum.RETURN_HOME | _Vacuum.STATE | _Vacuum.START,
            ),
            ("todo", _every(_Todo)),
        )
    }
)
"""The ``supported_features`` a fixture entity gets when it names none (Home Assistant's bits)."""

_START = 1_767_225_600.0  # 2026-01-01T00:00:00Z: every fixture state starts here


def initial_states(home: HomeSpec) -> dict[str, tuple[str, JsonObject]]:
    """Each entity's state and full attributes as the fixture starts it."""
    devices = {device.id: device for device in home.devices}
    states: dict[str, tuple[str, JsonObject]] = {}
    for entity in home.entities:
        device = devices.get(entity.device) if entity.device else None
        name = entity.name or (device.name if device else entity.entity_id.split(".")[1])
        attributes: JsonObject = {"friendly_name": name.replace("_", " ")}
        if entity.device_class:
            attributes["device_class"] = entity.device_class
        features = entity.supported_features
        if features is None:
            features = FULL_FEATURES.get(entity.domain, 0)
        attributes["supported_features"] = features
        attributes.update(entity.attributes)
        if entity.domain == "light":
            attributes = _light(entity.state, attributes)
        states[entity.entity_id] = (entity.state, attributes)
    return states


LIGHT_MODES = ("hs", "color_temp")
"""A fixture light's colour modes when it names none (as the harness's synthetic light)."""


def _light(state: str, attributes: JsonObject) -> JsonObject:
    """A light as Home Assistant shows it: a colour mode and brightness when on, None when off."""
    shown: JsonObject = {"supported_color_modes": list(LIGHT_MODES), **attributes}
    listed = shown["supported_color_modes"]
    modes = [str(mode) for mode in (listed if isinstance(listed, list) else [listed])]
    dims = modes != ["onoff"]
    if state != "on":
        hidden = [key for key in ON_ONLY if key in shown or key == "color_mode"]
        return {**shown, **dict.fromkeys([*hidden, *(["brightness"] if dims else [])], None)}
    if shown.get("color_mode") is None:
        shown["color_mode"] = modes[0] if modes else None
    if dims and shown.get("brightness") is None:
        shown["brightness"] = 255
    return shown


def build_model(home: HomeSpec) -> HomeModel:
    """The home as Home Assistant's WebSocket API would have described it."""
    devices = {device.id: device for device in home.devices}
    registry: list[JsonObject] = []
    details: dict[str, JsonObject] = {}
    exposure: dict[str, JsonObject] = {}
    states: dict[str, JsonObject] = {}
    for (entity_id, (state, attributes)), entity in zip(
        initial_states(home).items(), home.entities, strict=True
    ):
        listed = _registry_entry(entity, has_device=entity.device in devices)
        registry.append(listed)
        details[entity_id] = {
            **listed,
            "aliases": list(entity.aliases),
            "device_class": None,
            "original_device_class": entity.device_class,
        }
        exposure[entity_id] = {CONVERSATION: entity.exposed}
        states[entity_id] = {"s": state, "a": attributes, "c": "eval", "lc": _START}
    return HomeModel.build(
        config={"location_name": home.name, "language": home.language, "time_zone": "UTC"},
        areas=[
            {"area_id": a.id, "name": a.name, "aliases": list(a.aliases), "floor_id": a.floor}
            for a in home.areas
        ],
        floors=[
            {"floor_id": f.id, "name": f.name, "aliases": list(f.aliases), "level": f.level}
            for f in home.floors
        ],
        devices=[{"id": d.id, "name": d.name, "area_id": d.area} for d in home.devices],
        entities=registry,
        entity_details=details,
        exposure=exposure,
        states=states,
    )


def _registry_entry(entity: EntitySpec, *, has_device: bool) -> JsonObject:
    return {
        "entity_id": entity.entity_id,
        "platform": "eval",
        "name": entity.name,
        "original_name": None,
        "area_id": entity.area,
        "device_id": entity.device if has_device else None,
        "disabled_by": None,
        "hidden_by": None,
        "entity_category": None,
        "has_entity_name": False,
        "unique_id": entity.entity_id.split(".")[1],
        "options": {CONVERSATION: {"should_expose": entity.exposed}},
    }


def apply_states(model: HomeModel, changes: Mapping[str, StateSpec]) -> None:
    """Set a task's ``setup``: the given state and attributes, merged over the current ones."""
    for entity_id, spec in changes.items():
        current = model.state(entity_id)
        state = spec.state if spec.state is not None else (current.state if current else "")
        attributes = {**(current.attributes if current else {}), **spec.attributes}
        model.set_state(entity_id, state, attributes, when=_START)
