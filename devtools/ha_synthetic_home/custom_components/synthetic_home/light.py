"""Lights: on/off, brightness, hs colour and colour temperature, remembered across off/on."""

from __future__ import annotations

from typing import Any

from homeassistant.components.light import (
    ATTR_BRIGHTNESS,
    ATTR_COLOR_TEMP_KELVIN,
    ATTR_HS_COLOR,
    ColorMode,
    LightEntity,
)
from homeassistant.util import color as color_util

from .entity import SyntheticEntity, platform_setup

DEFAULT_MODES = ("hs", "color_temp")


class SyntheticLight(SyntheticEntity, LightEntity):
    """A dimmable colour light unless ``supported_color_modes`` says otherwise."""

    _attr_min_color_temp_kelvin = 2000
    _attr_max_color_temp_kelvin = 6500

    def load(self, state: str, attributes: dict[str, Any]) -> None:
        modes = {ColorMode(mode) for mode in attributes.get("supported_color_modes", DEFAULT_MODES)}
        self._attr_supported_color_modes = modes
        self._attr_is_on = state == "on"
        dimmable = modes != {ColorMode.ONOFF}
        self._attr_brightness = int(attributes.get("brightness") or 255) if dimmable else None
        if rgb := attributes.get("rgb_color"):
            hs = color_util.color_RGB_to_hs(*rgb)
        else:
            hs = tuple(attributes.get("hs_color") or (0.0, 0.0))
        self._attr_hs_color = (float(hs[0]), float(hs[1])) if ColorMode.HS in modes else None
        kelvin = attributes.get("color_temp_kelvin") or 3000
        self._attr_color_temp_kelvin = int(kelvin) if ColorMode.COLOR_TEMP in modes else None
        wanted = attributes.get("color_mode")
        self._attr_color_mode = ColorMode(wanted) if wanted else _first_mode(modes)

    async def async_turn_on(self, **kwargs: Any) -> None:
        self._attr_is_on = True
        if ATTR_BRIGHTNESS in kwargs and self._attr_brightness is not None:
            self._attr_brightness = int(kwargs[ATTR_BRIGHTNESS])
        if ATTR_HS_COLOR in kwargs and self._attr_hs_color is not None:
            self._attr_hs_color = tuple(kwargs[ATTR_HS_COLOR])
            self._attr_color_mode = ColorMode.HS
        if ATTR_COLOR_TEMP_KELVIN in kwargs and self._attr_color_temp_kelvin is not None:
            self._attr_color_temp_kelvin = int(kwargs[ATTR_COLOR_TEMP_KELVIN])
            self._attr_color_mode = ColorMode.COLOR_TEMP
        self.async_write_ha_state()

    async def async_turn_off(self, **kwargs: Any) -> None:
        self._attr_is_on = False
        self.async_write_ha_state()


def _first_mode(modes: set[ColorMode]) -> ColorMode:
    for mode in (ColorMode.HS, ColorMode.COLOR_TEMP, ColorMode.BRIGHTNESS, ColorMode.ONOFF):
        if mode in modes:
            return mode
    return next(iter(modes))


async_setup_entry = platform_setup("light", SyntheticLight)
