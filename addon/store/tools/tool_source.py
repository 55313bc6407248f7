"""The custom tools and secrets the agent reads at every turn, kept until a commit changes them."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from addon.store.models import CustomTool, CustomToolVersion
from addon.store.tools.changes import KeptRead, TableChanges
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
        self._enabled = KeptRead[tuple[Mapping[str, JsonValue], ...]](changes, *_TOOL_TABLES)
        self._secrets = KeptRead[Mapping[str, str]](changes, *_SECRET_TABLES)

    async def enabled(self) -> list[Mapping[str, JsonValue]]:
        """The current definitions of the tools enabled and not deleted."""
        return list(await self._enabled.read(self._read_enabled))

    async def secrets(self) -> Mapping[str, str]:
        """Every secret's value by name."""
        return await self._secrets.read(self._read_secrets)

    async def _read_enabled(self) -> tuple[Mapping[str, JsonValue], ...]:
        query = (
            select(CustomToolVersion.definition)
            .join(CustomTool, CustomTool.current_version_id == CustomToolVersion.id)
            .where(CustomTool.enabled.is_(True), CustomTool.deleted_at.is_(None))
            .order_by(CustomTool.name)
        )
        async with self._sessionmaker() as session:
            texts = (await session.scalars(query)).all()
        return tuple({**load_definition(text), "enabled": True} for text in texts)

    async def _read_secrets(self) -> Mapping[str, str]:
        async with self._sessionmaker() as session:
            return MappingProxyType(await secret_values(session))
