"""Valves: open, close and (when the fixture gives ``current_position``) position."""

from __future__ import annotations

from typing import Any

from homeassistant.components.valve import ValveDeviceClass, ValveEntity, ValveEntityFeature

from .entity import SyntheticEntity, platform_setup


class SyntheticValve(SyntheticEntity, ValveEntity):
    """A water or gas valve; moves at once."""

    default_features = int(
        ValveEntityFeature.OPEN | ValveEntityFeature.CLOSE | ValveEntityFeature.STOP
    )

    def device_class_of(self, value: str) -> Any:
        return ValveDeviceClass(value)

    def features_of(self, value: int) -> Any:
        return ValveEntityFeature(value)

    def __init__(self, spec: dict[str, Any]) -> None:
        self._attr_reports_position = "current_position" in (spec.get("attributes") or {})
        if self._attr_reports_position and spec.get("supported_features") is None:
            self.default_features |= int(ValveEntityFeature.SET_POSITION)
        super().__init__(spec)

    def load(self, state: str, attributes: dict[str, Any]) -> None:
        position = attributes.get("current_position")
        self._set(int(position) if position is not None else (0 if state == "closed" else 100))

    def _set(self, position: int) -> None:
        self._attr_current_valve_position = position if self._attr_reports_position else None
        self._attr_is_closed = position == 0

    async def async_open_valve(self) -> None:
        self._set(100)
        self.async_write_ha_state()

    async def async_close_valve(self) -> None:
        self._set(0)
        self.async_write_ha_state()

    async def async_set_valve_position(self, position: int) -> None:
        self._set(position)
        self.async_write_ha_state()

    async def async_stop_valve(self) -> None:
        self.async_write_ha_state()


async_setup_entry = platform_setup("valve", SyntheticValve)
