"""The one seam between deciding what to do and doing it.

Intent handlers decide *which* service to call on *which* entities with *what* data, always
naming entities explicitly (never an area or a device target, so what we act on is exactly
what the resolver matched and was exposed). An :class:`Executor` carries the call out: the
live one over Home Assistant's WebSocket, the virtual one on an in-memory copy of the home
for dry runs, the demo and evaluation. Both take the same calls, so a dry run shows what a
live run would do. Scripts have a call of their own because, unlike entity services, they
answer with a response the model should read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

from addon.home.actions.slots import SlotValue
from addon.text import JsonObject, JsonValue

ExecutorName = Literal["live", "virtual"]


@dataclass(frozen=True, slots=True)
class ServiceCall:
    """One service call on explicitly named entities."""

    domain: str
    service: str
    entity_ids: tuple[str, ...]
    data: Mapping[str, JsonValue] = field(default_factory=dict)

    def as_dict(self) -> JsonObject:
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
    attributes: Mapping[str, JsonValue]


@dataclass(frozen=True, slots=True)
class ScriptRun:
    """What a script's own service gave back within the time the caller waited.

    ``response`` is what Home Assistant's ``return_response`` call answers: the script's
    ``stop`` ``response_variable``, or ``{}`` for a script that sets none. It is None when
    there is no answer to give: the script is still running (``still_running``), or a dry
    run only recorded the call.
    """

    response: JsonValue = None
    still_running: bool = False


@dataclass(frozen=True, slots=True)
class HandedSentence:
    """A sentence only Home Assistant's own agent can serve, and who heard it.

    Timers run on the satellite that heard them and broadcasts play on the others, so the
    request goes with the device (and satellite) id it came from.
    """

    text: str
    language: str
    device_id: str | None = None
    satellite_id: str | None = None


@dataclass(frozen=True, slots=True)
class HandedAnswer:
    """What Home Assistant's agent answered a handed sentence: its speech, as it said it.

    ``handed`` is False when nothing was sent (a dry run): nothing happened, and the speech is
    empty. ``response`` is its whole intent response, for the trace.
    """

    speech: str
    response_type: str
    error_code: str | None = None
    response: JsonObject = field(default_factory=dict)
    handed: bool = True

    @property
    def failed(self) -> bool:
        """Home Assistant answered with an error (no timer support, no timer of that name)."""
        return self.response_type == "error"


class Executor(Protocol):
    """Carries out service calls and reads states back."""

    @property
    def name(self) -> ExecutorName:
        """``"live"`` or ``"virtual"``: shown with every action so a user knows which ran."""
        ...

    async def call_service(self, call: ServiceCall, *, wait: float | None = None) -> None:
        """Make ``call`` on its entities; raise ToolError if it fails.

        ``wait`` is how long to wait for the call before treating it as done and letting it
        finish in the background: Home Assistant's service intents wait 0.2 s, enough to
        catch a validation error but not to sit through a lock's two-second motor. None
        waits for the call to finish.
        """
        ...

    async def run_script(
        self, service: str, variables: Mapping[str, JsonValue], *, wait: float
    ) -> ScriptRun:
        """Run ``script.<service>`` with ``variables``; raise ToolError if it fails.

        Waits up to ``wait`` seconds for the script's response; a script still running then
        goes on in the background, so a long script does not hold the reply.
        """
        ...

    async def has_service(self, domain: str, service: str) -> bool:
        """True when ``domain.service`` exists (HassTurnOn falls back on it)."""
        ...

    async def handle_intent(self, intent: str, slots: Mapping[str, SlotValue]) -> tuple[str, ...]:
        """Run Home Assistant's own handler of ``intent``; the ids of the entities it acted on.

        Only for an action no service allows although the intent does: Home Assistant's
        HassListAddItem adds to a to-do list directly, where ``todo.add_item`` refuses a list
        that does not declare it can add items. Raise ToolError if it fails.
        """
        ...

    async def hand_over(self, sentence: HandedSentence) -> HandedAnswer:
        """Hand ``sentence`` to Home Assistant's own agent and return what it said.

        For the intents only Home Assistant serves (timers on the satellite that heard them,
        broadcasts). Raise ToolError if it could not be asked.
        """
        ...

    async def state(self, entity_id: str) -> ReadState | None:
        """The entity's current state, or None if it does not exist."""
        ...

    async def read(self, call: ServiceCall) -> Mapping[str, JsonValue]:
        """A service that only reads (``todo.get_items``, ``calendar.get_events``): its response.

        Home Assistant's ``return_response`` answer, by entity id. Nothing is changed, so a dry
        run reads too. Raise ToolError if it fails.
        """
        ...


class ForwardingExecutor:
    """An :class:`Executor` in front of another, passing every call on as it is.

    The executors that wrap the turn's (the one noting states for "Save as test", the one
    holding what the confirmation policy covers) override only what they watch or hold.
    """

    __slots__ = ("_inner",)

    def __init__(self, inner: Executor) -> None:
        self._inner = inner

    @property
    def name(self) -> ExecutorName:
        """The inner executor's name: the trace shows which one acted."""
        return self._inner.name

    async def call_service(self, call: ServiceCall, *, wait: float | None = None) -> None:
        """Passed on."""
        await self._inner.call_service(call, wait=wait)

    async def run_script(
        self, service: str, variables: Mapping[str, JsonValue], *, wait: float
    ) -> ScriptRun:
        """Passed on."""
        return await self._inner.run_script(service, variables, wait=wait)

    async def has_service(self, domain: str, service: str) -> bool:
        """Passed on."""
        return await self._inner.has_service(domain, service)

    async def handle_intent(self, intent: str, slots: Mapping[str, SlotValue]) -> tuple[str, ...]:
        """Passed on."""
        return await self._inner.handle_intent(intent, slots)

    async def hand_over(self, sentence: HandedSentence) -> HandedAnswer:
        """Passed on."""
        return await self._inner.hand_over(sentence)

    async def state(self, entity_id: str) -> ReadState | None:
        """Passed on."""
        return await self._inner.state(entity_id)

    async def read(self, call: ServiceCall) -> Mapping[str, JsonValue]:
        """Passed on: a read changes nothing."""
        return await self._inner.read(call)
