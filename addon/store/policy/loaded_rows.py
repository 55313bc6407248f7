"""Rows a repository keeps in memory, read again after each write, with a version that moves.

The confirmation policy and the rules per person and per satellite are checked at every turn;
their repositories keep every row in memory and the agent compiles them again only when the
version moved (``addon.agent.lifecycle``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker


class LoadedRows[R](ABC):
    """Every row of one table, as last loaded, and the version of that load."""

    def __init__(self, sessionmaker: async_sessionmaker[AsyncSession]) -> None:
        self._sessionmaker = sessionmaker
        self._rows: tuple[R, ...] = ()
        self._version = 0

    @property
    def version(self) -> int:
        """Moves with every load: a compiled copy of an older version is stale."""
        return self._version

    async def load(self) -> None:
        """Read every row again."""
        async with self._sessionmaker() as session:
            self._rows = tuple(await self._read(session))
        self._version += 1

    @abstractmethod
    async def _read(self, session: AsyncSession) -> Sequence[R]:
        """Every row, in the order the repository keeps them."""
