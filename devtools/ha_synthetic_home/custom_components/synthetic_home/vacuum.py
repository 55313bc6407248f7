"""Vacuums: start, pause, stop, return to base."""

from __future__ import annotations

from typing import Any

from homeassistant.components.vacuum import (
    StateVacuumEntity,
    VacuumActivity,
    VacuumEntityFeature,
)

from .entity import SyntheticEntity, platform_setup

V = VacuumEntityFeature


class SyntheticVacuum(SyntheticEntity, StateVacuumEntity):
    """Its state is its activity: docked, cleaning, paused, idle, returning."""

    default_features = int(V.START | V.PAUSE | V.STOP | V.RETURN_HOME | V.STATE)

    def features_of(self, value: int) -> Any:
        return VacuumEntityFeature(value)

    def load(self, state: str, attributes: dict[str, Any]) -> None:
        self._attr_activity = VacuumActivity(state)

    def _write(self, activity: VacuumActivity) -> None:
        self._attr_activity = activity
        self.async_write_ha_state()

    async def async_start(self) -> None:
        self._write(VacuumActivity.CLEANING)

    async def async_pause(self) -> None:
        self._write(VacuumActivity.PAUSED)

    async def async_stop(self, **kwargs: Any) -> None:
        self._write(VacuumActivity.IDLE)

    async def async_return_to_base(self, **kwargs: Any) -> None:
        self._write(VacuumActivity.RETURNING)


async_setup_entry = platform_setup("vacuum", SyntheticVacuum)
