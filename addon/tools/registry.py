"""The tools a turn offers the model, and the one place a tool call is executed.

Every failure, from unparseable arguments to an exception inside a tool, comes back as
``{"error": ..., "error_text": ...}`` for the model to read (as Home Assistant's ``chat_log`` does),
never as an exception out of the loop. Whatever a tool answers is read once into a
:class:`~addon.tools.result.ToolResult` here.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass

from addon.errors import HomeAgentError, ToolError
from addon.home.actions.gate import Decision, Gate
from addon.home.actions.response import IntentResult
from addon.home.targeting.targets import MatchFailure
from addon.text import JsonObject, ToolSpecs
from addon.tools.arguments import coerce, parse_arguments, validate
from addon.tools.base import ActedTarget, Tool, ToolContext, ToolReply, tool_spec
from addon.tools.result import HELD, ToolResult

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What one tool call did, as the trace records it."""

    name: str
    arguments: JsonObject
    raw_arguments: str
    result: ToolResult
    error: str | None
    duration_ms: float
    executor: str
    repaired: bool = False
    detail: JsonObject | None = None
    """What a custom tool sent and received (secrets masked), for the trace and events."""
    acted: tuple[ActedTarget, ...] = ()
    """Entities a custom tool's action addressed, for the outcome check."""
    decisions: tuple[Decision, ...] = ()
    """What the gate held or refused during the call (:mod:`addon.home.actions.gate`)."""
    failure: MatchFailure | None = None
    """Why an intent tool found no target (Home Assistant's words for it: the truth check)."""

    @property
    def ok(self) -> bool:
        """Whether the call ran without an error."""
        return self.error is None

    @property
    def refused(self) -> bool:
        """Whether the gate refused the call (exposure, a forbidden action)."""
        return any(decision.verdict == "refuse" for decision in self.decisions)

    @property
    def failed(self) -> bool:
        """Whether the call did not do what was asked: an error, an error answer, a refusal.

        A call can run without an error and still have done nothing ("Front Door is not
        exposed"): events and the truth check (:mod:`addon.agent.truth`) say so.
        """
        return self.error is not None or not self.result.succeeded or self.refused


class ToolRegistry:
    """Tools by name, in a stable order so the tool list is a cacheable prefix."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._specs: dict[str, JsonObject] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool, spec: JsonObject | None = None) -> None:
        """Register ``tool``; a second tool with the same name is a programming error.

        ``spec`` is the tool's entry of the ``tools`` list when it was made already (the
        home's tools are made once per home model: :class:`~addon.tools.home_tools.HomeToolSet`).
        """
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} registered twice")
        self._tools[tool.name] = tool
        if spec is not None:
            self._specs[tool.name] = spec

    def keeping(self, tools: Iterable[Tool]) -> ToolRegistry:
        """A registry of ``tools`` (some of this one's), their specs kept."""
        kept = ToolRegistry()
        for tool in tools:
            kept.add(tool, self._specs.get(tool.name))
        return kept

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def get(self, name: str) -> Tool:
        """The tool called ``name``; KeyError when there is none."""
        return self._tools[name]

    def tools(self) -> list[Tool]:
        """The tools in offering order."""
        return list(self._tools.values())

    def names(self) -> list[str]:
        """Tool names in offering order."""
        return list(self._tools)

    def specs(self) -> ToolSpecs:
        """The OpenAI ``tools`` list, in registration order; its JSON text is made once."""
        specs = self._specs
        return ToolSpecs(specs.get(name) or tool_spec(tool) for name, tool in self._tools.items())

    async def execute(self, name: str, raw_arguments: str, context: ToolContext) -> ToolOutcome:
        """Parse, repair, validate and run one call; never raises."""
        started = time.perf_counter()
        arguments: JsonObject = {}
        repaired = False
        detail: JsonObject | None = None
        acted: tuple[ActedTarget, ...] = ()
        failure: MatchFailure | None = None
        tool = self._tools.get(name)
        executor = _executor_label(tool, context)
        gate = gate_for(context)
        context = dataclasses.replace(context, gate=gate)
        if tool is not None and tool.kind in ("intent", "script"):
            gate.decisions.extend(held_by_executor(name, context.dry_run))
        holds = context.holds
        held_before = len(holds.held) if holds is not None else 0
        refused_before = len(holds.refused) if holds is not None else 0
        try:
            if tool is None:
                known = ", ".join(self._tools) or "none"
                raise ToolError(f"unknown tool {name!r}; available tools: {known}")
            parsed, repaired = parse_arguments(raw_arguments)
            arguments = coerce(parsed, tool.parameters)
            validate(arguments, tool.parameters)
            answer = await tool.call(arguments, context)
            error = None
            if isinstance(answer, ToolReply):
                reply = answer.result
                result = (
                    ToolResult.of_intent(reply)
                    if isinstance(reply, IntentResult)
                    else ToolResult.of(reply)
                )
                error, detail, acted = answer.error, answer.detail, answer.acted
                failure = answer.failure
            else:
                result = ToolResult.of(answer)
        except HomeAgentError as err:
            result = ToolResult.failure(type(err).__name__, str(err))
            error = str(err)
            _LOGGER.info("Tool %s failed: %s", name, err)
        except Exception as err:  # a tool bug must not end the conversation
            _LOGGER.exception("Tool %s raised with arguments %s", name, raw_arguments[:500])
            error = str(err) or repr(err)
            result = ToolResult.failure(type(err).__name__, error)
        refused_now = holds.refused[refused_before:] if holds is not None else []
        if refused_now and not any(d.rule == "actor" for d in gate.decisions):
            # The actor's rule refused it through the turn's executor (an intent, a script).
            for refused in refused_now:
                gate.decisions.append(Decision("refuse", refused.action, "actor", refused.reason))
        if holds is not None and len(holds.held) > held_before:
            # Whatever the tool answered, nothing covered was done: the model reads that.
            for held in holds.held[held_before:]:
                if not any(d.verdict == "confirm" for d in gate.decisions):
                    gate.decisions.append(
                        Decision(
                            "confirm", held.action, "confirmation", "held until the user confirms"
                        )
                    )
            result, error = HELD, None
        return ToolOutcome(
            name=name,
            arguments=arguments,
            raw_arguments=raw_arguments,
            result=result,
            error=error,
            duration_ms=(time.perf_counter() - started) * 1000,
            executor=executor,
            repaired=repaired,
            detail=detail,
            acted=acted,
            decisions=tuple(gate.decisions),
            failure=failure,
        )


def gate_for(context: ToolContext) -> Gate:
    """A fresh gate for one call: the turn's dry run, the home model's exposure.

    Intent tools and exposed scripts act through the turn's executor, which is the virtual one
    in a dry run (the agent asks :func:`addon.home.actions.gate.executor_for`), on entities matching
    found among the exposed ones.
    """
    home = context.home
    return Gate(context.dry_run, home.is_exposed if home is not None else None, holds=context.holds)


def held_by_executor(subject: str, dry_run: bool) -> tuple[Decision, ...]:
    """The gate's say on a call that acts through the turn's executor (virtual in a dry run)."""
    if not dry_run:
        return ()
    return (Decision("hold", subject, "dry_run", "acted on a virtual copy of the home"),)


def _executor_label(tool: Tool | None, context: ToolContext) -> str:
    """What the trace says ran the call: the executor's own name, never a guess from options.

    Intents and scripts act through the turn's executor, which names itself (``live`` or
    ``virtual``); a turn can act virtually without ``dry_run`` (the demo, evaluation, no live
    link), so the flag cannot tell. Other tools run in-process and are labelled by their kind.
    """
    if tool is None:
        return "none"
    if tool.kind in ("intent", "script"):
        return context.executor.name if context.executor is not None else "none"
    return tool.kind
