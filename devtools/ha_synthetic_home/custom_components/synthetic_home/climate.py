"""Thermostats: HVAC mode, target temperature, current temperature, on/off."""

from __future__ import annotations

from typing import Any

from homeassistant.components.climate import (
    ATTR_HVAC_MODE,
    ClimateEntity,
    ClimateEntityFeature,
    HVACMode,
)
from homeassistant.const import ATTR_TEMPERATURE, UnitOfTemperature

from .entity import SyntheticEntity, number, platform_setup

DEFAULT_MODES = ("off", "heat", "cool", "auto")


class SyntheticClimate(SyntheticEntity, ClimateEntity):
    """Celsius unless ``unit_of_measurement`` says °F; on returns to the last mode but off."""

    default_features = int(
        ClimateEntityFeature.TARGET_TEMPERATURE
        | ClimateEntityFeature.TURN_ON
        | ClimateEntityFeature.TURN_OFF
    )
    _attr_target_temperature_step = 0.5

    def features_of(self, value: int) -> Any:
        return ClimateEntityFeature(value)

    def load(self, state: str, attributes: dict[str, Any]) -> None:
        self._attr_hvac_modes = [
            HVACMode(mode) for mode in attributes.get("hvac_modes", DEFAULT_MODES)
        ]
        self._attr_hvac_mode = HVACMode(state)
        on_modes = [mode for mode in self._attr_hvac_modes if mode != HVACMode.OFF]
        self._last_on = (
            self._attr_hvac_mode if self._attr_hvac_mode != HVACMode.OFF else on_modes[0]
        )
        fahrenheit = attributes.get("unit_of_measurement") == "°F"
        self._attr_temperature_unit = (
            UnitOfTemperature.FAHRENHEIT if fahrenheit else UnitOfTemperature.CELSIUS
        )
        self._attr_target_temperature = number(attributes.get("temperature"), 20.0)
        self._attr_current_temperature = number(attributes.get("current_temperature"), 20.0)
        self._attr_min_temp = number(attributes.get("min_temp"), 7.0) or 7.0
        self._attr_max_temp = number(attributes.get("max_temp"), 35.0) or 35.0

    def _mode(self, mode: HVACMode) -> None:
        self._attr_hvac_mode = mode
        if mode != HVACMode.OFF:
            self._last_on = mode

    async def async_set_temperature(self, **kwargs: Any) -> None:
        if ATTR_HVAC_MODE in kwargs:
            self._mode(HVACMode(kwargs[ATTR_HVAC_MODE]))
        if ATTR_TEMPERATURE in kwargs:
            self._attr_target_temperature = float(kwargs[ATTR_TEMPERATURE])
        self.async_write_ha_state()

    async def async_set_hvac_mode(self, hvac_mode: HVACMode) -> None:
        self._mode(hvac_mode)
        self.async_write_ha_state()

    async def async_turn_on(self) -> None:
        self._mode(self._last_on)
        self.async_write_ha_state()

    async def async_turn_off(self) -> None:
        self._mode(HVACMode.OFF)
        self.async_write_ha_state()


async_setup_entry = platform_setup("climate", SyntheticClimate)
