"""Covers: open, close, stop and position, with their device class (garage, curtain, ...)."""

from __future__ import annotations

from typing import Any

from homeassistant.components.cover import (
    ATTR_POSITION,
    CoverDeviceClass,
    CoverEntity,
    CoverEntityFeature,
)

from .entity import SyntheticEntity, platform_setup

FULL = (
    CoverEntityFeature.OPEN
    | CoverEntityFeature.CLOSE
    | CoverEntityFeature.STOP
    | CoverEntityFeature.SET_POSITION
)


class SyntheticCover(SyntheticEntity, CoverEntity):
    """Moves at once: ``open`` at position 100, ``closed`` at 0, ``open`` in between."""

    default_features = int(FULL)

    def device_class_of(self, value: str) -> Any:
        return CoverDeviceClass(value)

    def features_of(self, value: int) -> Any:
        return CoverEntityFeature(value)

    @property
    def _positioned(self) -> bool:
        return CoverEntityFeature.SET_POSITION in self.supported_features

    def load(self, state: str, attributes: dict[str, Any]) -> None:
        position = attributes.get("current_position")
        if position is None:
            position = 0 if state == "closed" else 100
        self._set(int(position))

    def _set(self, position: int) -> None:
        self._position = position
        self._attr_current_cover_position = position if self._positioned else None
        self._attr_is_closed = position == 0

    async def async_open_cover(self, **kwargs: Any) -> None:
        self._set(100)
        self.async_write_ha_state()

    async def async_close_cover(self, **kwargs: Any) -> None:
        self._set(0)
        self.async_write_ha_state()

    async def async_set_cover_position(self, **kwargs: Any) -> None:
        self._set(int(kwargs[ATTR_POSITION]))
        self.async_write_ha_state()

    async def async_stop_cover(self, **kwargs: Any) -> None:
        self.async_write_ha_state()


async_setup_entry = platform_setup("cover", SyntheticCover)
