"""The import flow that turns ``synthetic_home:`` in configuration.yaml into a config entry.

Devices need a config entry, and a config entry needs a flow; this one only imports.
"""

from __future__ import annotations

from typing import Any

from homeassistant.config_entries import ConfigFlow, ConfigFlowResult

from .const import DOMAIN


class SyntheticHomeFlow(ConfigFlow, domain=DOMAIN):
    """One entry per home; the fixture path lives in configuration.yaml, not in the entry."""

    VERSION = 1

    async def async_step_import(self, import_data: dict[str, Any]) -> ConfigFlowResult:
        """Create the single entry (a second import of the same home is a no-op)."""
        await self.async_set_unique_id(DOMAIN)
        self._abort_if_unique_id_configured()
        return self.async_create_entry(title="Synthetic home", data={})
