"""The vocabulary every tool shares: what a tool is, what it is given, and what it returns.

Shaped after Home Assistant's ``helpers/llm.py`` (``Tool``, ``ToolInput``, ``LLMContext``): a tool
has a name, a description, a JSON-schema for its parameters and one async call. Intent tools, the
built-in ones, exposed scripts and (later) the user's custom tools and memory all plug into the
same :class:`~addon.tools.registry.ToolRegistry`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from addon.text import JsonObject

if TYPE_CHECKING:
    from addon.home.actions.actor import Actor
    from addon.home.actions.confirmation import Holds
    from addon.home.actions.executor import Executor
    from addon.home.actions.gate import Gate
    from addon.home.actions.response import IntentResult
    from addon.home.model.live import HomeModel
    from addon.home.targeting.targets import MatchFailure


@dataclass(frozen=True, slots=True)
class ToolContext:
    """What a tool may use for one call; built fresh for every turn."""

    home: HomeModel | None
    executor: Executor | None
    language: str
    now: datetime
    device_id: str | None = None
    area_id: str | None = None
    floor_id: str | None = None
    dry_run: bool = False
    call_id: str | None = None
    """The model's id for the call being run (set per call by the loop), for nested traces."""
    gate: Gate | None = None
    """The call's gate (:mod:`addon.home.actions.gate`), set per call by the registry: every tool
    that acts on or reads the home asks it, and its decisions go to the trace."""
    conversation_id: str | None = None
    """The conversation the turn belongs to (None for a call outside one): what a tool keeps
    for later, a drafted automation, names it, so the panel links back to the turn."""
    actor: Actor | None = None
    """Who asked (:mod:`addon.home.actions.actor`): the memory tools keep and recall theirs."""
    holds: Holds | None = None
    """The turn's confirmation policy and the actions it held
    (:mod:`addon.home.actions.confirmation`); ``executor`` holds covered calls into it, and so
    does the gate of every call."""


@dataclass(frozen=True, slots=True)
class ActedTarget:
    """An entity a tool acted on through a Home Assistant action, for the outcome check."""

    action: str
    """``domain.service``, e.g. ``light.turn_on``."""
    entity_id: str


@dataclass(frozen=True, slots=True)
class ToolReply:
    """A tool's answer with more for the trace than the model reads (custom tools).

    ``result`` goes to the model: a JSON object, or an intent's typed record, which becomes
    JSON only where the model's message is made (:class:`~addon.tools.result.ToolResult`);
    ``error`` marks a failed call whose ``result`` explains it;
    ``detail`` (the rendered request and the response, secrets masked) goes to the trace and
    the ``home_agent_tool_executed`` event; ``acted`` feeds the outcome check.
    """

    result: JsonObject | IntentResult
    error: str | None = None
    detail: JsonObject | None = None
    acted: tuple[ActedTarget, ...] = ()
    failure: MatchFailure | None = None
    """Why an intent found no target, for saying it to a person in Home Assistant's words."""


class Tool(Protocol):
    """One function the model may call."""

    @property
    def name(self) -> str:
        """The function name the model sees."""

    @property
    def description(self) -> str:
        """What the model reads to decide when to call it."""

    @property
    def parameters(self) -> JsonObject:
        """JSON schema of the arguments (an ``object`` schema)."""

    @property
    def kind(self) -> str:
        """Where it runs, for traces: ``intent``, ``builtin``, ``script``, ``custom``..."""

    async def call(self, arguments: JsonObject, context: ToolContext) -> JsonObject | ToolReply:
        """Run with validated arguments; raise ToolError for failures the model should see.

        A :class:`ToolReply` carries what the trace should record beside the result.
        """


def tool_spec(tool: Tool) -> JsonObject:
    """The OpenAI ``tools`` entry for ``tool`` (the format Home Assistant's agents send)."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }
