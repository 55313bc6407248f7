"""The one seam between deciding what to do and doing it.

Intent handlers decide *which* service to call on *which* entities with *what* data, always
naming entities explicitly (never an area or a device target, so what we act on is exactly
what the resolver matched and was exposed). An :class:`Executor` carries the call out: the
live one over Home Assistant's WebSocket, the virtual one on an in-memory copy of the home
for dry runs, the demo and evaluation. Both take the same calls, so a dry run shows what a
live run would do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

ExecutorName = Literal["live", "virtual"]


@dataclass(frozen=True, slots=True)
class ServiceCall:
    """One service call on explicitly named entities."""

    domain: str
    service: str
    entity_ids: tuple[str, ...]
    data: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-friendly form for traces and the UI."""
        return {
            "domain": self.domain,
            "service": self.service,
            "entity_ids": list(self.entity_ids),
            "data": dict(self.data),
        }


@dataclass(frozen=True, slots=True)
class ReadState:
    """An entity's state as an executor reads it back."""

    entity_id: str
    state: str
    attributes: Mapping[str, Any]


class Executor(Protocol):
    """Carries out service calls and reads states back."""

    @property
    def name(self) -> ExecutorName:
        """``"live"`` or ``"virtual"``: shown with every action so a user knows which ran."""
        ...

    async def call_service(
        self,
        domain: str,
        service: str,
        entity_ids: Sequence[str],
        data: Mapping[str, Any],
        *,
        wait: float | None = None,
    ) -> None:
        """Call ``domain.service`` on ``entity_ids``; raise ToolError if it fails.

        ``wait`` is how long to wait for the call before treating it as done and letting it
        finish in the background: Home Assistant's service intents wait 0.2 s, enough to
        catch a validation error but not to sit through a lock's two-second motor. None
        waits for the call to finish.
        """
        ...

    async def has_service(self, domain: str, service: str) -> bool:
        """True when ``domain.service`` exists (HassTurnOn falls back on it)."""
        ...

    async def state(self, entity_id: str) -> ReadState | None:
        """The entity's current state, or None if it does not exist."""
        ...
