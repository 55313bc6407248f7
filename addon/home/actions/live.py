"""The live executor: service calls on the real home over Home Assistant's WebSocket.

Every call names its entities explicitly (``target={"entity_id": [...]}``), so Home Assistant
acts on exactly what our resolver matched and the assistant may see. Waiting follows Home
Assistant's service intents (``DynamicServiceIntentHandler._run_then_background``): wait a
short while so a validation error still reaches the caller, then let a slow device (a lock's
motor, a cover's travel, a script's delay) finish in the background. Background calls are kept
until they end, without a command timeout, so they are neither garbage-collected mid-flight nor
reported as failed just for running long: only Home Assistant's own late refusal is a warning.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import time
from collections.abc import Mapping
from enum import Enum
from typing import Literal, Protocol

from addon.errors import (
    HomeAssistantCommandError,
    HomeAssistantError,
    HomeAssistantUnavailableError,
    ToolError,
)
from addon.home.actions import effects
from addon.home.actions.executor import (
    ExecutorName,
    HandedAnswer,
    HandedSentence,
    ReadState,
    ScriptRun,
    ServiceCall,
)
from addon.home.actions.slots import SlotValue
from addon.home.actions.wire import as_object, slots_json
from addon.text import JsonObject, JsonValue

_LOGGER = logging.getLogger(__name__)

HOME_ASSISTANT_AGENT = "conversation.home_assistant"
"""Home Assistant's built-in conversation agent: the one that knows its timers."""
SERVICES_TTL = 30.0
"""Seconds a fetched service list is trusted; scripts and integrations add services at run time."""


class _Pending(Enum):
    """What :meth:`LiveExecutor._call` returns for a call it stopped waiting for."""

    STILL_RUNNING = "still running"


_STILL_RUNNING = _Pending.STILL_RUNNING


class ServiceClient(Protocol):
    """What the live executor needs from :class:`addon.ha.client.HomeAssistantClient`."""

    async def call_service(
        self,
        domain: str,
        service: str,
        *,
        service_data: JsonObject | None = None,
        target: JsonObject | None = None,
        return_response: bool = False,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> JsonValue:
        """Call a service and wait for Home Assistant's answer (``math.inf``: no time limit)."""
        ...

    async def command(self, message: JsonObject, *, timeout: float | None = None) -> JsonValue:  # noqa: ASYNC109
        """Send one WebSocket command and return its result."""
        ...

    async def rest_get(self, path: str, *, timeout: float | None = None) -> JsonValue:  # noqa: ASYNC109
        """GET a REST path under ``/api``."""
        ...

    async def rest_post(self, path: str, payload: JsonObject) -> JsonValue:
        """POST JSON to a REST path under ``/api``."""
        ...


class LiveExecutor:
    """Carries out service calls on the real Home Assistant."""

    __slots__ = ("_background", "_client", "_refused", "_services", "_services_at")

    def __init__(self, client: ServiceClient) -> None:
        self._client = client
        self._background: set[asyncio.Task[JsonValue]] = set()
        self._services: dict[str, frozenset[str]] = {}
        self._services_at = float("-inf")
        self._refused = False
        """Whether the last ``get_services`` was refused (warned once until it answers)."""

    @property
    def name(self) -> ExecutorName:
        """Always ``"live"``."""
        return "live"

    async def call_service(self, call: ServiceCall, *, wait: float | None = None) -> None:
        """Call the service; after ``wait`` seconds an unfinished call counts as done.

        No entity ids means no target at all: Home Assistant merges a target into the service
        data, and a script's own service would see it as an ``entity_id`` variable.
        """
        entity_ids = call.entity_ids
        target: JsonObject | None = {"entity_id": list(entity_ids)} if entity_ids else None
        await self._call(call.domain, call.service, call.data, target=target, wait=wait)

    async def run_script(
        self, service: str, variables: Mapping[str, JsonValue], *, wait: float
    ) -> ScriptRun:
        """Run the script's own service as Home Assistant's ScriptTool does, with its response.

        Home Assistant answers a ``return_response`` call with ``{"context": …, "response": …}``
        once the script ends; a script still running after ``wait`` seconds has no answer yet.
        """
        answer = await self._call(
            "script", service, variables, target=None, wait=wait, return_response=True
        )
        if answer is _STILL_RUNNING:
            return ScriptRun(still_running=True)
        response = as_object(answer).get("response")
        return ScriptRun({} if response is None else response)

    async def _call(
        self,
        domain: str,
        service: str,
        data: Mapping[str, JsonValue],
        *,
        target: JsonObject | None,
        wait: float | None,
        return_response: bool = False,
    ) -> JsonValue | Literal[_Pending.STILL_RUNNING]:
        """Home Assistant's answer, or :data:`_STILL_RUNNING` once ``wait`` seconds have passed.

        A call we may stop waiting for has no command timeout: it is expected to outlast the
        wait (a script's delay, a cover's travel), and Home Assistant's own background calls do
        not time out either; the link's heartbeat still ends it if Home Assistant goes away.
        """
        call = self._client.call_service(
            domain,
            service,
            service_data=dict(data) if data else None,
            target=target,
            return_response=return_response,
            timeout=None if wait is None else math.inf,
        )
        if wait is None:
            try:
                return await call
            except HomeAssistantError as err:
                raise _tool_error(err, domain, service) from err
        task = asyncio.create_task(call)
        try:
            done, _pending = await asyncio.wait({task}, timeout=wait)
        finally:
            if not task.done():
                # Still running, or our caller was cancelled: either way it finishes on its own.
                self._background.add(task)
                task.add_done_callback(functools.partial(self._finished, f"{domain}.{service}"))
        if task not in done:
            return _STILL_RUNNING
        try:
            return task.result()
        except HomeAssistantError as err:
            raise _tool_error(err, domain, service) from err

    def _finished(self, action: str, task: asyncio.Task[JsonValue]) -> None:
        """Forget a background call; warn if Home Assistant refused it after we moved on.

        A lost link (or our own shutdown) says nothing about the call itself, and the client
        already logs the lost link, so that is only worth a debug line.
        """
        self._background.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if isinstance(error, HomeAssistantUnavailableError):
            _LOGGER.debug("Stopped following %s in the background: %s", action, error)
        elif error is not None:
            _LOGGER.warning("%s failed after we stopped waiting for it: %s", action, error)

    async def drain(self) -> None:
        """Wait for calls still running in the background (shutdown, tests)."""
        while self._background:
            await asyncio.wait(set(self._background))

    async def has_service(self, domain: str, service: str) -> bool:
        """True when Home Assistant offers ``domain.service`` (list cached briefly).

        One integration's broken ``services.yaml`` can make Home Assistant refuse
        ``get_services`` to everyone (``unknown_error``); then the actions Home Assistant's
        own integrations define (the virtual executor's table) answer, with one warning, until
        the list can be read again, rather than every generic on/off command failing.
        """
        if time.monotonic() - self._services_at > SERVICES_TTL:
            try:
                listed = await self._client.command({"type": "get_services"})
            except HomeAssistantError as err:
                if not self._refused:
                    _LOGGER.warning(
                        "Home Assistant refused its list of actions (get_services: %s); "
                        "checking actions against its own integrations' until it answers",
                        err,
                    )
                self._refused = True
                self._services_at = time.monotonic()
                self._services = {}
                return effects.has_service(domain, service)
            self._refused = False
            self._services = {
                str(name): frozenset(str(key) for key in as_object(actions))
                for name, actions in as_object(listed).items()
            }
            self._services_at = time.monotonic()
        if self._refused:
            return effects.has_service(domain, service)
        return service in self._services.get(domain, frozenset())

    async def handle_intent(self, intent: str, slots: Mapping[str, SlotValue]) -> tuple[str, ...]:
        """Home Assistant's ``POST /api/intent/handle``; the entities its answer lists as done.

        The intent integration answers a failure with speech only (``response_type`` error, or
        no success target), which becomes the ToolError.
        """
        try:
            answer = await self._client.rest_post(
                "/intent/handle", {"name": intent, "data": slots_json(slots)}
            )
        except HomeAssistantError as err:
            raise ToolError(f"{intent} could not be sent: {err}") from err
        response = as_object(answer)
        success = as_object(response.get("data")).get("success")
        done = tuple(
            str(target["id"])
            for target in (success if isinstance(success, list) else ())
            if isinstance(target, dict) and target.get("id")
        )
        if response.get("response_type") == "error" or not done:
            speech = as_object(as_object(response.get("speech")).get("plain")).get("speech")
            raise ToolError(f"{intent} failed: {speech or 'no answer'}")
        return done

    async def hand_over(self, sentence: HandedSentence) -> HandedAnswer:
        """Home Assistant's own agent (``conversation/process``) answers ``sentence``.

        With the device and satellite ids it came from, so a timer runs on the satellite that
        heard it. Home Assistant 2025.4's command takes neither id (``invalid_format``): there
        it is asked without them, and says for itself what it cannot do without a device.
        """
        message: JsonObject = {
            "type": "conversation/process",
            "text": sentence.text,
            "language": sentence.language,
            "agent_id": HOME_ASSISTANT_AGENT,
        }
        ids = {
            key: value
            for key, value in (
                ("device_id", sentence.device_id),
                ("satellite_id", sentence.satellite_id),
            )
            if value
        }
        try:
            try:
                answer = await self._client.command({**message, **ids})
            except HomeAssistantCommandError as err:
                if not ids or err.code != "invalid_format":
                    raise
                answer = await self._client.command(message)
        except HomeAssistantError as err:
            raise ToolError(f"Home Assistant's agent could not be asked: {err}") from err
        response = dict(as_object(as_object(answer).get("response")))
        plain = as_object(as_object(response.get("speech")).get("plain"))
        code = as_object(response.get("data")).get("code")
        return HandedAnswer(
            speech=str(plain.get("speech") or ""),
            response_type=str(response.get("response_type") or "error"),
            error_code=str(code) if code else None,
            response=response,
        )

    async def read(self, call: ServiceCall) -> Mapping[str, JsonValue]:
        """The service's ``return_response`` answer (``{"response": {entity_id: …}}``)."""
        answer = await self._call(
            call.domain,
            call.service,
            call.data,
            target={"entity_id": list(call.entity_ids)},
            wait=None,
            return_response=True,
        )
        if answer is _STILL_RUNNING:  # not waited for (wait=None): never here
            return {}
        return as_object(as_object(answer).get("response"))

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
        state = as_object(raw)
        if not isinstance(attributes := state.get("attributes"), dict):
            raise ToolError(f"Home Assistant sent {entity_id}'s state without its attributes")
        return ReadState(str(state["entity_id"]), str(state["state"]), dict(attributes))


def _tool_error(err: HomeAssistantError, domain: str, service: str) -> ToolError:
    """Home Assistant's refusal (or an unreachable Home Assistant) as the tool error to show."""
    if isinstance(err, HomeAssistantCommandError):
        message = str(err).partition(": ")[2] or str(err)
        return ToolError(f"{domain}.{service} failed: {message}")
    return ToolError(f"{domain}.{service} could not be sent: {err}")
