"""What ``/health`` reports: one check per resource, registered by the resource itself.

Supervisor's watchdog polls ``/health``; only a broken store (the one thing a restart can fix)
makes it answer 503. Home Assistant or the model being away is reported as ``degraded`` with the
reason, because restarting the add-on would not bring them back.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

Status = Literal["ok", "degraded", "down", "not_configured"]
_LOGGER = logging.getLogger(__name__)
CHECK_TIMEOUT_S = 3.0


@dataclass(frozen=True, slots=True)
class ComponentHealth:
    """One resource's state, as shown on ``/health`` and the dashboard."""

    status: Status
    detail: str = ""


HealthCheck = Callable[[], Awaitable[ComponentHealth]]


@dataclass(slots=True)
class HealthRegistry:
    """Checks by component name; ``critical`` ones decide the HTTP status."""

    checks: dict[str, HealthCheck] = field(default_factory=dict)
    critical: set[str] = field(default_factory=set)

    def register(self, name: str, check: HealthCheck, *, critical: bool = False) -> None:
        """Add or replace the check for ``name``."""
        self.checks[name] = check
        if critical:
            self.critical.add(name)

    def unregister(self, name: str) -> None:
        """Drop a check when its resource shuts down."""
        self.checks.pop(name, None)
        self.critical.discard(name)

    async def report(self) -> tuple[bool, dict[str, ComponentHealth]]:
        """Run every check concurrently; a check that fails or hangs reports ``down``."""
        names = list(self.checks)
        results = await asyncio.gather(
            *(self._run(name) for name in names), return_exceptions=False
        )
        components = dict(zip(names, results, strict=True))
        healthy = all(
            components[name].status != "down" for name in self.critical if name in components
        )
        return healthy, components

    async def _run(self, name: str) -> ComponentHealth:
        try:
            return await asyncio.wait_for(self.checks[name](), CHECK_TIMEOUT_S)
        except TimeoutError:
            return ComponentHealth("down", f"check timed out after {CHECK_TIMEOUT_S:.0f} s")
        except Exception as err:  # a check must never break /health itself
            _LOGGER.exception("Health check %s failed", name)
            return ComponentHealth("down", f"check failed: {err}")
