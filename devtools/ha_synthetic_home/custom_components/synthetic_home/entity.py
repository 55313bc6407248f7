"""The part every synthetic entity shares: identity, device, fixture state and reset."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.helpers.device_registry import DeviceInfo
from homeassistant.helpers.entity import Entity
from homeassistant.helpers.entity_platform import AddEntitiesCallback

from .const import DATA_ENTITIES, DATA_HOME, DOMAIN


def text_state(value: Any) -> str:
    """YAML reads ``off`` as False: states are strings as Home Assistant shows them."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return "unknown" if value is None else str(value)


class SyntheticEntity(Entity):
    """An entity whose state comes from the fixture and can be put back at any time.

    Subclasses turn a (state, attributes) pair as Home Assistant shows it into their own fields in
    ``load``; their service methods then change those fields as a real device would.
    """

    _attr_should_poll = False
    _attr_has_entity_name = False
    default_features: int | None = None  # None: the domain has no feature flags

    def __init__(self, spec: dict[str, Any]) -> None:
        self.entity_id = spec["entity_id"]
        self._attr_unique_id = spec["entity_id"]
        self._attr_name = spec.get("name") or spec["entity_id"].partition(".")[2]
        if spec.get("device"):
            self._attr_device_info = DeviceInfo(identifiers={(DOMAIN, spec["device"])})
        if spec.get("device_class"):
            self._attr_device_class = self.device_class_of(spec["device_class"])
        features = spec.get("supported_features", self.default_features)
        if features is not None:
            self._attr_supported_features = self.features_of(int(features))
        self.initial = (text_state(spec.get("state")), dict(spec.get("attributes") or {}))
        self.loaded = self.initial
        self.load(*self.initial)

    def device_class_of(self, value: str) -> Any:
        """The domain's device class enum for ``value`` (subclasses convert; default: as is)."""
        return value

    def features_of(self, value: int) -> Any:
        """The domain's feature flag type for ``value``."""
        return value

    def load(self, state: str, attributes: dict[str, Any]) -> None:
        """Take on ``state`` and ``attributes`` (Home Assistant's view) as the device's own."""
        raise NotImplementedError

    def restore(self, state: Any, attributes: dict[str, Any]) -> None:
        """Reset or set: load the pair and publish it at once."""
        self.loaded = (text_state(state), dict(attributes))
        self.load(*self.loaded)
        self.async_write_ha_state()

    async def async_added_to_hass(self) -> None:
        """Known to the reset and set_state services from now on."""
        self.hass.data[DOMAIN][DATA_ENTITIES][self.entity_id] = self


def platform_setup(
    domain: str, make: Callable[[dict[str, Any]], SyntheticEntity]
) -> Callable[[HomeAssistant, ConfigEntry, AddEntitiesCallback], Any]:
    """An ``async_setup_entry`` adding one entity per fixture entity of ``domain``."""

    async def async_setup_entry(
        hass: HomeAssistant, entry: ConfigEntry, async_add_entities: AddEntitiesCallback
    ) -> None:
        specs: Iterable[dict[str, Any]] = hass.data[DOMAIN][DATA_HOME]["entities"]
        async_add_entities(
            [make(spec) for spec in specs if spec["entity_id"].partition(".")[0] == domain]
        )

    return async_setup_entry


def number(value: Any, default: float | None = None) -> float | None:
    """A fixture number (int or float as YAML gives it), or ``default``."""
    if value is None:
        return default
    return float(value)
