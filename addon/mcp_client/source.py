"""What the hub needs to know of a server the user added, and where it reads them from.

The store implements :class:`ServerSource` structurally (``store/mcp_servers.py``), so this
package does not import the store and the store does not import it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class ServerSettings(Protocol):
    """One server: how to reach it and which of its tools the user switched on."""

    @property
    def id(self) -> int:
        """The stored server's id."""

    @property
    def name(self) -> str:
        """The prefix of its tools' names for the model."""

    @property
    def url(self) -> str:
        """The Streamable HTTP endpoint."""

    @property
    def headers(self) -> tuple[tuple[str, str], ...]:
        """Headers to send (the secret's value included)."""

    @property
    def enabled_tools(self) -> frozenset[str]:
        """The server's tools (by its own names) the model may call."""


class ServerSource(Protocol):
    """Every server the user added, read again at each turn (switches change without restarts)."""

    async def servers(self) -> Sequence[ServerSettings]:
        """The servers, by name."""
