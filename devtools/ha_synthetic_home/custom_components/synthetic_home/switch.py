"""Switches: on and off."""

from __future__ import annotations

from typing import Any

from homeassistant.components.switch import SwitchDeviceClass, SwitchEntity

from .entity import SyntheticEntity, platform_setup


class SyntheticSwitch(SyntheticEntity, SwitchEntity):
    """A plain switch (device class outlet or switch)."""

    def device_class_of(self, value: str) -> Any:
        return SwitchDeviceClass(value)

    def load(self, state: str, attributes: dict[str, Any]) -> None:
        self._attr_is_on = state == "on"

    async def async_turn_on(self, **kwargs: Any) -> None:
        self._attr_is_on = True
        self.async_write_ha_state()

    async def async_turn_off(self, **kwargs: Any) -> None:
        self._attr_is_on = False
        self.async_write_ha_state()


async_setup_entry = platform_setup("switch", SyntheticSwitch)
