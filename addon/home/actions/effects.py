"""What a service call does to an entity's state, for the virtual executor.

The rules mimic Home Assistant 2025.4's entity services and its ``demo`` platforms, which is
what the contract tests compare against: a cover with a position goes to 100 when opened, a
lock ends ``locked``, a media player's ``volume_set`` sets ``volume_level``, a fan turned on
without a speed runs at 67 % (the demo's default), ``vacuum.return_to_base`` leaves it
``returning``. Devices that move (covers, valves, locks) are shown where they *end*, not in
their ``opening``/``locking`` passage, because a dry run answers "what will the home look
like". Home Assistant's checks are kept too: a service that does not exist, or an entity that
lacks the feature a service needs, is an error (``service_not_supported``), while
``homeassistant.toggle`` on a domain without ``toggle`` silently does nothing, as there.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from addon.errors import ToolError
from addon.home.actions import light_effects
from addon.home.actions.light_effects import Effect, LightMemory
from addon.home.actions.wire import number_or_none, texts, to_float, to_int
from addon.home.model.features import (
    ClimateEntityFeature,
    CoverEntityFeature,
    FanEntityFeature,
    LawnMowerEntityFeature,
    LockEntityFeature,
    MediaPlayerEntityFeature,
    VacuumEntityFeature,
    ValveEntityFeature,
)
from addon.text import JsonObject, JsonValue

_ON_OFF = frozenset({"turn_on", "turn_off", "toggle"})

SERVICES: dict[str, frozenset[str]] = {
    "homeassistant": _ON_OFF,
    "light": _ON_OFF,
    "switch": _ON_OFF,
    "input_boolean": _ON_OFF,
    "automation": _ON_OFF,
    "siren": _ON_OFF,
    "humidifier": _ON_OFF | {"set_humidity", "set_mode"},
    "fan": _ON_OFF | {"set_percentage", "set_preset_mode", "oscillate", "set_direction"},
    "media_player": _ON_OFF
    | {
        "media_play",
        "media_pause",
        "media_play_pause",
        "media_stop",
        "media_next_track",
        "media_previous_track",
        "volume_set",
        "volume_mute",
        "volume_up",
        "volume_down",
        "play_media",
    },
    "climate": _ON_OFF | {"set_temperature", "set_hvac_mode", "set_fan_mode"},
    "cover": frozenset({"open_cover", "close_cover", "set_cover_position", "stop_cover", "toggle"}),
    "valve": frozenset({"open_valve", "close_valve", "set_valve_position", "stop_valve", "toggle"}),
    "lock": frozenset({"lock", "unlock", "open"}),
    "vacuum": frozenset({"start", "pause", "stop", "return_to_base", "clean_area"}),
    "lawn_mower": frozenset({"start_mowing", "pause", "dock"}),
    "scene": frozenset({"turn_on"}),
    "script": _ON_OFF,
    "todo": frozenset({"add_item", "update_item", "remove_item"}),
    "water_heater": frozenset({"turn_on", "turn_off", "set_temperature"}),
}
"""The services the virtual home offers (Home Assistant's names, a subset of its list)."""

_VOLUME_UP_DOWN = MediaPlayerEntityFeature.VOLUME_SET | MediaPlayerEntityFeature.VOLUME_STEP
"""Either lets ``volume_up``/``volume_down`` run (stepping ``volume_set`` when there is no step)."""

# (domain, service) -> the supported_features bits Home Assistant requires for it (any one).
REQUIRED_FEATURES: dict[tuple[str, str], int] = {
    ("cover", "open_cover"): CoverEntityFeature.OPEN,
    ("cover", "close_cover"): CoverEntityFeature.CLOSE,
    ("cover", "set_cover_position"): CoverEntityFeature.SET_POSITION,
    ("cover", "stop_cover"): CoverEntityFeature.STOP,
    ("valve", "open_valve"): ValveEntityFeature.OPEN,
    ("valve", "close_valve"): ValveEntityFeature.CLOSE,
    ("valve", "set_valve_position"): ValveEntityFeature.SET_POSITION,
    ("valve", "stop_valve"): ValveEntityFeature.STOP,
    ("lock", "open"): LockEntityFeature.OPEN,
    ("media_player", "media_pause"): MediaPlayerEntityFeature.PAUSE,
    ("media_player", "volume_set"): MediaPlayerEntityFeature.VOLUME_SET,
    ("media_player", "volume_mute"): MediaPlayerEntityFeature.VOLUME_MUTE,
    ("media_player", "volume_up"): _VOLUME_UP_DOWN,
    ("media_player", "volume_down"): _VOLUME_UP_DOWN,
    ("media_player", "play_media"): MediaPlayerEntityFeature.PLAY_MEDIA,
    ("media_player", "media_previous_track"): MediaPlayerEntityFeature.PREVIOUS_TRACK,
    ("media_player", "media_next_track"): MediaPlayerEntityFeature.NEXT_TRACK,
    ("media_player", "turn_on"): MediaPlayerEntityFeature.TURN_ON,
    ("media_player", "turn_off"): MediaPlayerEntityFeature.TURN_OFF,
    ("media_player", "media_stop"): MediaPlayerEntityFeature.STOP,
    ("media_player", "media_play"): MediaPlayerEntityFeature.PLAY,
    ("fan", "set_percentage"): FanEntityFeature.SET_SPEED,
    ("fan", "oscillate"): FanEntityFeature.OSCILLATE,
    ("fan", "set_direction"): FanEntityFeature.DIRECTION,
    ("fan", "set_preset_mode"): FanEntityFeature.PRESET_MODE,
    ("fan", "turn_off"): FanEntityFeature.TURN_OFF,
    ("fan", "turn_on"): FanEntityFeature.TURN_ON,
    ("climate", "set_temperature"): (
        ClimateEntityFeature.TARGET_TEMPERATURE | ClimateEntityFeature.TARGET_TEMPERATURE_RANGE
    ),
    ("climate", "set_fan_mode"): ClimateEntityFeature.FAN_MODE,
    ("climate", "turn_off"): ClimateEntityFeature.TURN_OFF,
    ("climate", "turn_on"): ClimateEntityFeature.TURN_ON,
    ("vacuum", "pause"): VacuumEntityFeature.PAUSE,
    ("vacuum", "stop"): VacuumEntityFeature.STOP,
    ("vacuum", "return_to_base"): VacuumEntityFeature.RETURN_HOME,
    ("vacuum", "start"): VacuumEntityFeature.START,
    ("vacuum", "clean_area"): VacuumEntityFeature.CLEAN_AREA,
    ("lawn_mower", "start_mowing"): LawnMowerEntityFeature.START_MOWING,
    ("lawn_mower", "pause"): LawnMowerEntityFeature.PAUSE,
    ("lawn_mower", "dock"): LawnMowerEntityFeature.DOCK,
}

VOLUME_STEP = 0.1
"""``MediaPlayerEntity.volume_step``'s default: what ``volume_up``/``volume_down`` move by."""

FAN_DEFAULT_PERCENTAGE = 67
"""What the demo fans (and many real ones) run at when turned on without a speed."""


def has_service(domain: str, service: str) -> bool:
    """True when the virtual home offers ``domain.service``."""
    return service in SERVICES.get(domain, frozenset())


def check_service(
    domain: str, service: str, entity_id: str, attributes: Mapping[str, JsonValue]
) -> None:
    """Raise ToolError where Home Assistant would refuse the call for this entity."""
    if not has_service(domain, service):
        raise ToolError(f"Action {domain}.{service} not found")
    needed = REQUIRED_FEATURES.get((domain, service))
    if needed is None or domain != entity_id.partition(".")[0]:
        return
    features = to_int(attributes.get("supported_features") or 0, "supported_features")
    if not features & needed:
        raise ToolError(
            f"Validation error: Entity {entity_id} does not support action {domain}.{service}"
        )


def apply(
    domain: str,
    service: str,
    entity_id: str,
    state: str,
    attributes: Mapping[str, JsonValue],
    data: Mapping[str, JsonValue],
    *,
    memory: LightMemory,
    now: datetime,
) -> Effect | None:
    """The entity's new state and attributes, or None when the call leaves it unchanged.

    A call whose domain is not the entity's does nothing (Home Assistant ignores entity ids
    its domain's services do not own); ``homeassistant.*`` goes to the entity's own domain.
    """
    entity_domain = entity_id.partition(".")[0]
    if domain == "homeassistant":
        if not has_service(entity_domain, service):
            return None
        check_service(entity_domain, service, entity_id, attributes)
        domain = entity_domain
    if domain != entity_domain:
        return None
    attrs = dict(attributes)
    if domain == "light":
        return _light(service, entity_id, state, attrs, data, memory)
    handler = _HANDLERS.get(domain)
    if handler is None:
        return _on_off(service, state, attrs)
    return handler(service, state, attrs, data, now)


def _flip(service: str, state: str, on_states: tuple[str, ...] = ("on",)) -> str:
    """``toggle`` resolved to ``turn_on`` or ``turn_off`` from the current state."""
    if service != "toggle":
        return service
    return "turn_off" if state in on_states else "turn_on"


def _on_off(service: str, state: str, attrs: JsonObject) -> Effect | None:
    """Switches and other plain on/off entities."""
    if service not in _ON_OFF:
        return None
    return Effect("on" if _flip(service, state) == "turn_on" else "off", attrs)


def _light(
    service: str,
    entity_id: str,
    state: str,
    attrs: JsonObject,
    data: Mapping[str, JsonValue],
    memory: LightMemory,
) -> Effect | None:
    service = _flip(service, state)
    if service == "turn_on":
        return light_effects.turn_on(entity_id, state, attrs, data, memory)
    if service == "turn_off":
        return light_effects.turn_off(entity_id, attrs, memory)
    return None


def _cover(
    service: str, state: str, attrs: JsonObject, data: Mapping[str, JsonValue], now: datetime
) -> Effect | None:
    if service == "toggle":
        service = "open_cover" if state == "closed" else "close_cover"
    has_position = attrs.get("current_position") is not None
    if service == "open_cover":
        position: int | None = 100 if has_position else None
    elif service == "close_cover":
        position = 0 if has_position else None
    elif service == "set_cover_position":
        position = to_int(data["position"], "position")
    else:
        return None
    if position is None:
        return Effect("open" if service == "open_cover" else "closed", attrs)
    attrs["current_position"] = position
    return Effect("open" if position > 0 else "closed", attrs)


def _valve(
    service: str, state: str, attrs: JsonObject, data: Mapping[str, JsonValue], now: datetime
) -> Effect | None:
    if service == "toggle":
        service = "open_valve" if state == "closed" else "close_valve"
    if service == "set_valve_position":
        position = to_int(data["position"], "position")
        if "current_position" in attrs:
            attrs["current_position"] = position
        return Effect("open" if position > 0 else "closed", attrs)
    if service in ("open_valve", "close_valve"):
        opened = service == "open_valve"
        if attrs.get("current_position") is not None:
            attrs["current_position"] = 100 if opened else 0
        return Effect("open" if opened else "closed", attrs)
    return None


def _lock(
    service: str, state: str, attrs: JsonObject, data: Mapping[str, JsonValue], now: datetime
) -> Effect | None:
    ends = {"lock": "locked", "unlock": "unlocked", "open": "open"}
    return Effect(ends[service], attrs) if service in ends else None


def _climate(
    service: str, state: str, attrs: JsonObject, data: Mapping[str, JsonValue], now: datetime
) -> Effect | None:
    modes = texts(attrs.get("hvac_modes"))
    if service == "toggle":
        service = "turn_on" if state == "off" else "turn_off"
    if service == "turn_off":
        return Effect("off" if "off" in modes else state, attrs)
    if service == "turn_on":
        return Effect(_climate_on(state, modes), attrs)
    if service == "set_hvac_mode":
        return Effect(str(data["hvac_mode"]), attrs)
    if service == "set_fan_mode":
        modes = texts(attrs.get("fan_modes"))
        if modes and data["fan_mode"] not in modes:
            raise ToolError(
                f"Validation error: Fan mode {data['fan_mode']} is not valid. "
                f"Valid fan modes are: {', '.join(modes)}"
            )
        attrs["fan_mode"] = data["fan_mode"]
        return Effect(state, attrs)
    if service != "set_temperature":
        return None
    if "temperature" in data:
        temperature = to_float(data["temperature"], "temperature")
        low, high = number_or_none(attrs.get("min_temp")), number_or_none(attrs.get("max_temp"))
        if low is not None and high is not None and not low <= temperature <= high:
            raise ToolError(
                f"Validation error: Provided temperature {temperature} is not valid. "
                f"Accepted range is {low:g} to {high:g}"
            )
        attrs["temperature"] = round(temperature, 1)
    return Effect(str(data.get("hvac_mode", state)), attrs)


def _climate_on(state: str, modes: list[str]) -> str:
    """``ClimateEntity.async_turn_on``: the only other mode, else heat_cool, heat or cool."""
    if len(modes) == 2 and "off" in modes:
        return next(mode for mode in modes if mode != "off")
    for mode in ("heat_cool", "heat", "cool"):
        if mode in modes:
            return mode
    return state


def _media_player(
    service: str, state: str, attrs: JsonObject, data: Mapping[str, JsonValue], now: datetime
) -> Effect | None:
    if service == "toggle":
        service = "turn_on" if state in ("off", "standby") else "turn_off"
    if service == "media_play_pause":
        service = "media_pause" if state == "playing" else "media_play"
    simple = {
        "turn_on": "playing",
        "turn_off": "off",
        "media_play": "playing",
        "media_pause": "paused",
        "media_stop": "off",
    }
    if service in simple:
        return Effect(simple[service], attrs)
    if service == "volume_set":
        attrs["volume_level"] = to_float(data["volume_level"], "volume_level")
    elif service == "volume_mute":
        attrs["is_volume_muted"] = bool(data["is_volume_muted"])
    elif service in ("volume_up", "volume_down") and attrs.get("volume_level") is not None:
        # ``async_volume_up``/``down`` without a device method: one step, within 0..1.
        step = VOLUME_STEP if service == "volume_up" else -VOLUME_STEP
        volume = to_float(attrs["volume_level"], "volume_level")
        attrs["volume_level"] = max(0.0, min(1.0, volume + step))
    elif service == "play_media":
        attrs["media_content_id"] = data["media_content_id"]
        attrs["media_content_type"] = data["media_content_type"]
        return Effect("playing", attrs)
    elif service in ("media_next_track", "media_previous_track"):
        _step_track(attrs, 1 if service == "media_next_track" else -1)
    else:
        return None
    return Effect(state, attrs)


def _step_track(attrs: JsonObject, step: int) -> None:
    """Move the track (or episode) number; the new title is unknown, so it is not invented."""
    track, episode = attrs.get("media_track"), attrs.get("media_episode")
    if isinstance(track, int):
        attrs["media_track"] = max(1, track + step)
    elif isinstance(episode, str) and episode.isdigit():
        attrs["media_episode"] = str(max(1, int(episode) + step))


def _fan(
    service: str, state: str, attrs: JsonObject, data: Mapping[str, JsonValue], now: datetime
) -> Effect | None:
    service = _flip(service, state)
    if service == "turn_on" and "preset_mode" in data:
        attrs["preset_mode"] = data["preset_mode"]
        attrs["percentage"] = None
        return Effect("on", attrs)
    if service == "turn_on":
        percentage = to_int(data.get("percentage", FAN_DEFAULT_PERCENTAGE), "percentage")
    elif service == "set_percentage":
        percentage = to_int(data["percentage"], "percentage")
    elif service == "turn_off":
        percentage = 0
    elif service == "set_preset_mode":
        attrs["preset_mode"] = data["preset_mode"]
        attrs["percentage"] = None
        return Effect("on", attrs)
    else:
        return None
    if "percentage" in attrs or percentage:
        attrs["percentage"] = percentage
    if "preset_mode" in attrs:
        attrs["preset_mode"] = None
    return Effect("on" if percentage > 0 else "off", attrs)


def _vacuum(
    service: str, state: str, attrs: JsonObject, data: Mapping[str, JsonValue], now: datetime
) -> Effect | None:
    ends = {
        "start": "cleaning",
        "clean_area": "cleaning",
        "pause": "paused",
        "stop": "idle",
        "return_to_base": "returning",
    }
    if service == "pause" and state != "cleaning":
        return None
    return Effect(ends[service], attrs) if service in ends else None


def _lawn_mower(
    service: str, state: str, attrs: JsonObject, data: Mapping[str, JsonValue], now: datetime
) -> Effect | None:
    # Docking sends the mower home: it shows "returning" until it arrives (as the demo's).
    ends = {"start_mowing": "mowing", "pause": "paused", "dock": "returning"}
    return Effect(ends[service], attrs) if service in ends else None


def _scene(
    service: str, state: str, attrs: JsonObject, data: Mapping[str, JsonValue], now: datetime
) -> Effect | None:
    # A scene's state is when it was last activated.
    return Effect(now.isoformat(), attrs) if service == "turn_on" else None


def _script(
    service: str, state: str, attrs: JsonObject, data: Mapping[str, JsonValue], now: datetime
) -> Effect | None:
    # A script runs and ends; what stays visible is when it last ran.
    if _flip(service, state) != "turn_on":
        return Effect("off", attrs)
    attrs["last_triggered"] = now.isoformat()
    return Effect("off", attrs)


def _todo(
    service: str, state: str, attrs: JsonObject, data: Mapping[str, JsonValue], now: datetime
) -> Effect | None:
    # A to-do list's state is how many items still need doing; the virtual executor keeps
    # the items themselves and sets the count after an update or a removal.
    if service != "add_item":
        return None
    return Effect(str(int(state) + 1 if state.isdigit() else 1), attrs)


_HANDLERS = {
    "cover": _cover,
    "valve": _valve,
    "lock": _lock,
    "climate": _climate,
    "media_player": _media_player,
    "fan": _fan,
    "vacuum": _vacuum,
    "lawn_mower": _lawn_mower,
    "scene": _scene,
    "script": _script,
    "todo": _todo,
}
