"""The custom tools and secrets the agent reads at every turn, kept until a commit changes them."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from addon.store.models import CustomTool, CustomToolVersion
from addon.store.tools.changes import TableChanges
from addon.store.tools.custom_tools import load_definition
from addon.store.tools.stored_secrets import secret_values
from addon.text import JsonValue

_TOOL_TABLES = ("custom_tools", "custom_tool_versions")
_SECRET_TABLES = ("secrets", "mcp_servers")


class StoredToolSource:
    """The custom tools the agent offers, read from the store at each turn.

    Matches :mod:`addon.custom_tools`' ``CustomToolSource`` without importing it (the store
    imports nothing above it). Definitions come in name order with their keys as written, so
    the tool list the model sees is the same bytes until a tool changes. Given the store's
    ``changes``, what was read is kept until a commit touches the tables it came from, so a turn
    (or an MCP call) does not open two sessions to learn that nothing changed.
    """

    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        changes: TableChanges | None = None,
    ) -> None:
        self._sessionmaker = sessionmaker
        self._changes = changes
        self._enabled: tuple[tuple[int, ...], list[Mapping[str, JsonValue]]] | None = None
        self._secrets: tuple[tuple[int, ...], Mapping[str, str]] | None = None

    async def enabled(self) -> list[Mapping[str, JsonValue]]:
        """The current definitions of the tools enabled and not deleted."""
        version = self._version(_TOOL_TABLES)
        if self._enabled is not None and self._enabled[0] == version:
            return list(self._enabled[1])
        query = (
            select(CustomToolVersion.definition)
            .join(CustomTool, CustomTool.current_version_id == CustomToolVersion.id)
            .where(CustomTool.enabled.is_(True), CustomTool.deleted_at.is_(None))
            .order_by(CustomTool.name)
        )
        async with self._sessionmaker() as session:
            texts = (await session.scalars(query)).all()
        definitions: list[Mapping[str, JsonValue]] = [
            {**load_definition(text), "enabled": True} for text in texts
        ]
        if version is not None:
            self._enabled = (version, definitions)
        return list(definitions)

    async def secrets(self) -> Mapping[str, str]:
        """Every secret's value by name."""
        version = self._version(_SECRET_TABLES)
        if self._secrets is not None and self._secrets[0] == version:
            return self._secrets[1]
        async with self._sessionmaker() as session:
            values = MappingProxyType(await secret_values(session))
        if version is not None:
            self._secrets = (version, values)
        return values

    def _version(self, tables: tuple[str, ...]) -> tuple[int, ...] | None:
        """The tables' commit counts before reading; None (read every time) without ``changes``."""
        return None if self._changes is None else self._changes.version(*tables)
