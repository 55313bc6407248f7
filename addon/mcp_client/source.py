"""What the hub needs to know of a server the user added, and where it reads them from.

The store implements :class:`ServerSource` structurally (``store/tools/mcp_servers.py``), so this
package does not import the store and the store does not import it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol


class Approved(Protocol):
    """A tool's description and schema (JSON, keys sorted) as the user approved them."""

    @property
    def description(self) -> str:
        """The description approved."""

    @property
    def parameters(self) -> str:
        """The schema approved, as JSON with sorted keys."""


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

    @property
    def read_only_tools(self) -> frozenset[str]:
        """The tools the user marked read-only: the only ones a dry run lets run."""

    @property
    def approved_tools(self) -> Mapping[str, Approved]:
        """What each switched-on tool looked like when the user approved it."""


class ServerSource(Protocol):
    """Every server the user added, read again at each turn (switches change without restarts)."""

    async def servers(self) -> Sequence[ServerSettings]:
        """The servers, by name."""

    async def approve(self, server_id: int, tool: str, description: str, parameters: str) -> None:
        """Approve a switched-on tool never approved (switched on before it was listed)."""
