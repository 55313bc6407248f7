"""Where enabled custom tools and secrets come from: the store in the app, memory in tests.

The agent asks on every turn, so a tool enabled in the panel joins the next turn without a
restart. The store's implementation (``addon/store/tools/custom_tools.py``) returns each enabled
tool's current definition as the mapping users edit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from addon.text import JsonValue


class CustomToolSource(Protocol):
    """Enabled definitions (plain mappings) and the secrets table, read fresh for each turn."""

    async def enabled(self) -> list[Mapping[str, JsonValue]]:
        """The current definitions of every enabled, not deleted tool."""

    async def secrets(self) -> Mapping[str, str]:
        """Every secret by name, values included: only the runner may ask for this."""


@dataclass(frozen=True, slots=True)
class StaticSource:
    """A fixed set of definitions and secrets: the default until the store provides tools."""

    definitions: Sequence[Mapping[str, JsonValue]] = ()
    secret_values: Mapping[str, str] = field(default_factory=dict)

    async def enabled(self) -> list[Mapping[str, JsonValue]]:
        """The definitions whose ``enabled`` is not false."""
        return [d for d in self.definitions if d.get("enabled", True) is not False]

    async def secrets(self) -> Mapping[str, str]:
        """The secrets given."""
        return self.secret_values
