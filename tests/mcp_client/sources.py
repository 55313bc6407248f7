"""Servers as the store would hand them to the hub, changed by a test as the panel would."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Settings:
    """One server as the store would hand it over."""

    id: int
    name: str
    url: str
    headers: tuple[tuple[str, str], ...]
    enabled_tools: frozenset[str]
    read_only_tools: frozenset[str] = frozenset()
    approved_tools: dict[str, Approved] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Approved:
    """A tool as the user approved it."""

    description: str
    parameters: str


@dataclass(slots=True)
class Source:
    """The servers, changed by the test as the panel would change them."""

    listed: list[Settings]

    async def servers(self) -> Sequence[Settings]:
        return self.listed

    async def approve(self, server_id: int, tool: str, description: str, parameters: str) -> None:
        for server in self.listed:
            if server.id == server_id:
                server.approved_tools.setdefault(tool, Approved(description, parameters))
