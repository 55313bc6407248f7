"""What ``light.turn_on``/``turn_off`` do to a light's state, as Home Assistant shows it.

Home Assistant's light component turns the call's colour into the light's own colour mode
(``color_temp_kelvin`` on a light without colour temperature becomes a hue and saturation;
``rgb_color`` on an RGBW light becomes ``rgbw_color``), turns ``brightness_pct`` into
``brightness`` (``round(pct * 255 / 100)``; 0 means off), and reports an "on" light in every
colour space at once. An "off" light reports ``None`` for brightness, colour mode, colours and
effect, which is why :class:`LightMemory` keeps what a light showed when it went off: the demo
lights (like real ones) come back on with their previous brightness and colour.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from addon.errors import ToolError
from addon.home.actions import color
from addon.home.actions.wire import items, texts, to_float, to_int
from addon.text import JsonObject, JsonValue

# Attributes a light reports only while it is on.
ON_ONLY = (
    "brightness",
    "color_mode",
    "color_temp_kelvin",
    "color_temp",
    "hs_color",
    "rgb_color",
    "xy_color",
    "rgbw_color",
    "rgbww_color",
    "effect",
)
_COLOR_KEYS = ON_ONLY[2:9]
_HS_MODES = ("hs", "rgb", "rgbw", "rgbww", "xy")


@dataclass(frozen=True, slots=True)
class Effect:
    """What a service call leaves an entity as: its new state and attributes."""

    state: str
    attributes: JsonObject


class LightMemory:
    """What each light reported when it was last on, so turning it on restores it."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[str, JsonObject] = {}

    def remember(self, entity_id: str, attributes: Mapping[str, JsonValue]) -> None:
        """Keep the on-only attributes of a light that is on."""
        kept = {key: attributes[key] for key in ON_ONLY if attributes.get(key) is not None}
        if kept:
            self._seen[entity_id] = kept

    def recall(self, entity_id: str) -> JsonObject:
        """What the light last reported while on (empty if never seen on)."""
        return dict(self._seen.get(entity_id, {}))


def turn_off(entity_id: str, attributes: Mapping[str, JsonValue], memory: LightMemory) -> Effect:
    """The light off: on-only attributes become None, their values remembered."""
    memory.remember(entity_id, attributes)
    new = dict(attributes)
    for key in ON_ONLY:
        if key in new:
            new[key] = None
    return Effect("off", new)


def turn_on(
    entity_id: str,
    state: str,
    attributes: Mapping[str, JsonValue],
    data: Mapping[str, JsonValue],
    memory: LightMemory,
) -> Effect:
    """The light on with the call's brightness and colour applied in its own colour mode."""
    if state == "on":
        memory.remember(entity_id, attributes)
    new = dict(attributes)
    if state != "on":
        new.update(memory.recall(entity_id))
        if new.get("brightness") is None and _dims(attributes):
            new["brightness"] = 255
    brightness = _brightness(data)
    if brightness == 0:
        return turn_off(entity_id, new, memory)
    if brightness is not None:
        new["brightness"] = brightness
    if "effect" in data:
        new["effect"] = data["effect"]
    modes = texts(attributes.get("supported_color_modes"))
    colour = _colour(data, modes)
    if colour is not None:
        for key in _COLOR_KEYS:
            if key in new:
                new[key] = None
        new.update(colour)
    return Effect("on", new)


def _dims(attributes: Mapping[str, JsonValue]) -> bool:
    """True when the light has a brightness at all (not an on/off-only light)."""
    modes = texts(attributes.get("supported_color_modes"))
    return "brightness" in attributes and any(mode != "onoff" for mode in modes)


def _brightness(data: Mapping[str, JsonValue]) -> int | None:
    """The 0-255 brightness a call asks for, if any."""
    if "brightness_pct" in data:
        return round(to_float(data["brightness_pct"], "brightness_pct") * 255 / 100)
    if "brightness" in data:
        return max(0, min(255, to_int(data["brightness"], "brightness")))
    return None


def _colour(data: Mapping[str, JsonValue], modes: list[str]) -> JsonObject | None:
    """The colour attributes a call leaves, converted to the light's colour mode."""
    if "color_temp_kelvin" in data:
        kelvin = to_int(data["color_temp_kelvin"], "color_temp_kelvin")
        if "color_temp" in modes:
            return _ct_attributes(kelvin)
        if any(mode in modes for mode in _HS_MODES):
            return _from_hs(color.kelvin_to_hs(kelvin), modes)
        return None
    if "rgb_color" in data:
        red, green, blue = (to_int(value, "rgb_color") for value in _triple(data, "rgb_color", 3))
        return _from_rgb((red, green, blue), modes)
    if "hs_color" in data:
        hue, saturation = (to_float(value, "hs_color") for value in _triple(data, "hs_color", 2))
        return _from_hs((hue, saturation), modes)
    return None


def _ct_attributes(kelvin: int) -> JsonObject:
    """A light in colour temperature mode, as Home Assistant reports it."""
    hs = color.kelvin_to_hs(kelvin)
    return {
        "color_mode": "color_temp",
        "color_temp_kelvin": kelvin,
        "color_temp": color.kelvin_to_mired(kelvin),
        "hs_color": list(hs),
        "rgb_color": list(color.hs_to_rgb(*hs)),
        "xy_color": list(color.hs_to_xy(*hs)),
    }


def _from_hs(hs: tuple[float, float], modes: list[str]) -> JsonObject | None:
    """A hue and saturation in the light's colour mode."""
    if "hs" in modes:
        return {
            "color_mode": "hs",
            "hs_color": list(hs),
            "rgb_color": list(color.hs_to_rgb(*hs)),
            "xy_color": list(color.hs_to_xy(*hs)),
        }
    return _from_rgb(color.hs_to_rgb(*hs), modes)


def _from_rgb(rgb: color.RGB, modes: list[str]) -> JsonObject | None:
    """An RGB colour in the light's colour mode (hs, rgb, rgbw, or rgbww approximated)."""
    if "rgb" in modes:
        shown = rgb
        extra: JsonObject = {"color_mode": "rgb"}
    elif "rgbw" in modes:
        rgbw = color.rgb_to_rgbw(*rgb)
        shown = color.rgbw_to_rgb(*rgbw)
        extra = {"color_mode": "rgbw", "rgbw_color": list(rgbw)}
    elif "rgbww" in modes:
        # The warm/cold split depends on the light's white points; saturated colours (the
        # only ones a colour name gives with no white in them) have both white channels at 0.
        white = min(rgb)
        shown = rgb
        extra = {
            "color_mode": "rgbww",
            "rgbww_color": [rgb[0] - white, rgb[1] - white, rgb[2] - white, white, white],
        }
    elif "hs" in modes:
        return _from_hs(color.rgb_to_hs(*rgb), modes)
    elif "xy" in modes:
        return {"color_mode": "xy", "xy_color": list(color.rgb_to_xy(*rgb))}
    else:
        return None
    hs = color.rgb_to_hs(*shown)
    return {
        **extra,
        "hs_color": list(hs),
        "rgb_color": list(shown),
        "xy_color": list(color.rgb_to_xy(*shown)),
    }


def _triple(data: Mapping[str, JsonValue], key: str, size: int) -> list[JsonValue]:
    """A colour's components (``[255, 0, 0]``), or a ToolError naming the key."""
    values = items(data[key])
    if len(values) != size:
        raise ToolError(f"'{key}' must be a list of {size} numbers, not {data[key]!r}")
    return values
