"""Weather: a read-only condition (the state) with temperature and humidity attributes."""

from __future__ import annotations

from typing import Any

from homeassistant.components.weather import WeatherEntity
from homeassistant.const import UnitOfTemperature

from .entity import SyntheticEntity, platform_setup


class SyntheticWeather(SyntheticEntity, WeatherEntity):
    """The fixture's state is the condition ("sunny", "rainy", ...); no forecasts."""

    def load(self, state: str, attributes: dict[str, Any]) -> None:
        self._attr_condition = state
        self._attr_native_temperature = attributes.get("temperature")  # ints stay ints
        self._attr_native_temperature_unit = (
            attributes.get("temperature_unit") or UnitOfTemperature.CELSIUS
        )
        self._attr_humidity = attributes.get("humidity")


async_setup_entry = platform_setup("weather", SyntheticWeather)
