"""Fans: on/off and speed as a percentage, remembered across off/on."""

from __future__ import annotations

from typing import Any

from homeassistant.components.fan import FanEntity, FanEntityFeature

from .entity import SyntheticEntity, platform_setup


class SyntheticFan(SyntheticEntity, FanEntity):
    """Off reports percentage 0, as most fans do; on comes back at the last speed."""

    default_features = int(
        FanEntityFeature.SET_SPEED | FanEntityFeature.TURN_ON | FanEntityFeature.TURN_OFF
    )

    def features_of(self, value: int) -> Any:
        return FanEntityFeature(value)

    def load(self, state: str, attributes: dict[str, Any]) -> None:
        self._on = state == "on"
        self._speed = int(attributes.get("percentage") or 100)

    @property
    def is_on(self) -> bool:
        return self._on

    @property
    def percentage(self) -> int | None:
        return self._speed if self._on else 0

    async def async_turn_on(
        self, percentage: int | None = None, preset_mode: str | None = None, **kwargs: Any
    ) -> None:
        self._on = True
        if percentage:
            self._speed = percentage
        self.async_write_ha_state()

    async def async_turn_off(self, **kwargs: Any) -> None:
        self._on = False
        self.async_write_ha_state()

    async def async_set_percentage(self, percentage: int) -> None:
        self._on = percentage > 0
        if percentage:
            self._speed = percentage
        self.async_write_ha_state()


async_setup_entry = platform_setup("fan", SyntheticFan)
