"""The live executor: service calls on the real home over Home Assistant's WebSocket.

Every call names its entities explicitly (``target={"entity_id": [...]}``), so Home Assistant
acts on exactly what our resolver matched and the assistant may see. Waiting follows Home
Assistant's service intents (``DynamicServiceIntentHandler._run_then_background``): wait a
short while so a validation error still reaches the caller, then let a slow device (a lock's
motor, a cover's travel) finish in the background. Background calls are kept until they end so
they are neither garbage-collected mid-flight nor silently lost: a late failure is logged.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from addon.errors import HomeAssistantCommandError, HomeAssistantError, ToolError
from addon.home.actions.executor import ExecutorName, ReadState

_LOGGER = logging.getLogger(__name__)

SERVICES_TTL = 30.0
"""Seconds a fetched service list is trusted; scripts and integrations add services at run time."""


class ServiceClient(Protocol):
    """What the live executor needs from :class:`addon.ha.client.HomeAssistantClient`."""

    async def call_service(
        self,
        domain: str,
        service: str,
        *,
        service_data: dict[str, Any] | None = None,
        target: dict[str, Any] | None = None,
        return_response: bool = False,
    ) -> Any:
        """Call a service and wait for Home Assistant's answer."""
        ...

    async def command(self, message: dict[str, Any], *, timeout: float | None = None) -> Any:  # noqa: ASYNC109
        """Send one WebSocket command and return its result."""
        ...

    async def rest_get(self, path: str, *, timeout: float | None = None) -> Any:  # noqa: ASYNC109
        """GET a REST path under ``/api``."""
        ...


class LiveExecutor:
    """Carries out service calls on the real Home Assistant."""

    __slots__ = ("_background", "_client", "_services", "_services_at")

    def __init__(self, client: ServiceClient) -> None:
        self._client = client
        self._background: set[asyncio.Task[Any]] = set()
        self._services: dict[str, frozenset[str]] = {}
        self._services_at = float("-inf")

    @property
    def name(self) -> ExecutorName:
        """Always ``"live"``."""
        return "live"

    async def call_service(
        self,
        domain: str,
        service: str,
        entity_ids: Sequence[str],
        data: Mapping[str, Any],
        *,
        wait: float | None = None,
    ) -> None:
        """Call the service; after ``wait`` seconds an unfinished call counts as done.

        No entity ids means no target at all: Home Assistant merges a target into the service
        data, and a script's own service would see it as an ``entity_id`` variable.
        """
        call = self._client.call_service(
            domain,
            service,
            service_data=dict(data) if data else None,
            target={"entity_id": list(entity_ids)} if entity_ids else None,
        )
        if wait is None:
            await _translated(call, domain, service)
            return
        task = asyncio.create_task(_translated(call, domain, service))
        done, _pending = await asyncio.wait({task}, timeout=wait)
        if task in done:
            task.result()
            return
        self._background.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        """Forget a background call; log it if it failed after we stopped waiting."""
        self._background.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            _LOGGER.warning("A service call failed after the intent answered: %s", error)

    async def drain(self) -> None:
        """Wait for calls still running in the background (shutdown, tests)."""
        while self._background:
            await asyncio.wait(set(self._background))

    async def has_service(self, domain: str, service: str) -> bool:
        """True when Home Assistant offers ``domain.service`` (list cached briefly)."""
        if time.monotonic() - self._services_at > SERVICES_TTL:
            try:
                listed = await self._client.command({"type": "get_services"})
            except HomeAssistantError as err:
                raise ToolError(f"could not list Home Assistant's actions: {err}") from err
            self._services = {
                str(name): frozenset(str(key) for key in actions)
                for name, actions in (listed or {}).items()
            }
            self._services_at = time.monotonic()
        return service in self._services.get(domain, frozenset())

    async def state(self, entity_id: str) -> ReadState | None:
        """The entity's current state, read from Home Assistant."""
        try:
            raw = await self._client.rest_get(f"/states/{entity_id}")
        except HomeAssistantCommandError as err:
            if err.code == "http_404":
                return None
            raise ToolError(f"could not read the state of {entity_id}: {err}") from err
        except HomeAssistantError as err:
            raise ToolError(f"could not read the state of {entity_id}: {err}") from err
        return ReadState(str(raw["entity_id"]), str(raw["state"]), dict(raw["attributes"]))


async def _translated(call: Any, domain: str, service: str) -> None:
    """Await a client call, turning Home Assistant's refusal into a ToolError."""
    try:
        await call
    except HomeAssistantCommandError as err:
        message = str(err).partition(": ")[2] or str(err)
        raise ToolError(f"{domain}.{service} failed: {message}") from err
    except HomeAssistantError as err:
        raise ToolError(f"{domain}.{service} could not be sent: {err}") from err
