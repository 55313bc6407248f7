"""Sensors: read-only values (temperature, humidity, ...); only reset or set_state move them."""

from __future__ import annotations

from typing import Any

from homeassistant.components.sensor import SensorDeviceClass, SensorEntity

from .entity import SyntheticEntity, platform_setup

OWN = frozenset({"unit_of_measurement", "device_class", "friendly_name", "state_class"})


class SyntheticSensor(SyntheticEntity, SensorEntity):
    """Numbers stay numbers (``21`` shows as 21, not 21.0); other attributes pass through."""

    def device_class_of(self, value: str) -> Any:
        return SensorDeviceClass(value)

    def load(self, state: str, attributes: dict[str, Any]) -> None:
        self._attr_native_unit_of_measurement = attributes.get("unit_of_measurement")
        self._attr_native_value = _value(state)
        self._attr_extra_state_attributes = {k: v for k, v in attributes.items() if k not in OWN}


def _value(state: str) -> Any:
    for kind in (int, float):
        try:
            return kind(state)
        except ValueError:
            pass
    return state


async_setup_entry = platform_setup("sensor", SyntheticSensor)
