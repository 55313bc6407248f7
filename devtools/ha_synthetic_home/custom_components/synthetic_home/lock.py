"""Locks: lock and unlock (and open, which leaves it unlocked)."""

from __future__ import annotations

from typing import Any

from homeassistant.components.lock import LockEntity

from .entity import SyntheticEntity, platform_setup


class SyntheticLock(SyntheticEntity, LockEntity):
    """A lock that is ``locked``, ``unlocked``, ``jammed`` or ``open``."""

    def load(self, state: str, attributes: dict[str, Any]) -> None:
        self._attr_is_locked = state == "locked"
        self._attr_is_jammed = state == "jammed"
        self._attr_is_open = state == "open"

    async def async_lock(self, **kwargs: Any) -> None:
        self._attr_is_locked, self._attr_is_jammed, self._attr_is_open = True, False, False
        self.async_write_ha_state()

    async def async_unlock(self, **kwargs: Any) -> None:
        self._attr_is_locked, self._attr_is_jammed, self._attr_is_open = False, False, False
        self.async_write_ha_state()


async_setup_entry = platform_setup("lock", SyntheticLock)
