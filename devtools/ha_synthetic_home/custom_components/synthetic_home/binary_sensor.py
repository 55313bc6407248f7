"""Binary sensors: read-only on/off with a device class (door, window, motion, ...)."""

from __future__ import annotations

from typing import Any

from homeassistant.components.binary_sensor import BinarySensorDeviceClass, BinarySensorEntity

from .entity import SyntheticEntity, platform_setup


class SyntheticBinarySensor(SyntheticEntity, BinarySensorEntity):
    """``on`` means open/detected, as Home Assistant's device classes read it."""

    def device_class_of(self, value: str) -> Any:
        return BinarySensorDeviceClass(value)

    def load(self, state: str, attributes: dict[str, Any]) -> None:
        self._attr_is_on = state == "on"


async_setup_entry = platform_setup("binary_sensor", SyntheticBinarySensor)
