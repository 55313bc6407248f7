"""Home Assistant events about turns, fired in order and off the reply's path.

The names follow the product's architecture: a turn fires ``home_agent_conversation_started``,
``home_agent_tool_progress`` (started, then completed or failed) around each tool call the model
asks for, ``home_agent_tool_executed`` for each tool call, ``home_agent_error`` when it failed,
and ``home_agent_conversation_finished``; after it, off the reply's path, the memory extraction
fires ``home_agent_memory_extracted``. DOCS.md lists every payload.

Events go through one queue drained by one task, so automations see them in the order they
happened, and a turn only ever appends to that queue: a slow Home Assistant never holds up a reply,
and an absent one never fails a turn (events are skipped while it is away, and a failed fire is
logged and the next event tried).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from typing import Protocol

from addon.agent.conversation import ConversationRequest, ConversationResult
from addon.agent.trace import ToolCallTrace, TurnTrace
from addon.memory.records import Learned
from addon.text import JsonObject
from addon.tools.registry import ToolOutcome

_LOGGER = logging.getLogger(__name__)

CONVERSATION_STARTED = "home_agent_conversation_started"
CONVERSATION_FINISHED = "home_agent_conversation_finished"
TOOL_EXECUTED = "home_agent_tool_executed"
TOOL_PROGRESS = "home_agent_tool_progress"
ERROR = "home_agent_error"
MEMORY_EXTRACTED = "home_agent_memory_extracted"
CONFIRMATION_REQUESTED = "home_agent_confirmation_requested"
CONFIRMATION_CONFIRMED = "home_agent_confirmation_confirmed"
CONFIRMATION_CANCELLED = "home_agent_confirmation_cancelled"
CONFIRMATION_LOCKED = "home_agent_confirmation_locked"
AUTOMATION_DRAFTED = "home_agent_automation_drafted"
AUTOMATION_APPROVED = "home_agent_automation_approved"
AUTOMATION_DISCARDED = "home_agent_automation_discarded"
AUTOMATION_DISABLED = "home_agent_automation_disabled"
AUTOMATION_DELETED = "home_agent_automation_deleted"
# Events waiting for Home Assistant; beyond this (it answers far slower than turns come) new ones
# are dropped with a warning rather than held in memory without bound.
MAX_PENDING = 1000


class EventSink(Protocol):
    """Where Home Assistant events go (the WebSocket client)."""

    @property
    def connected(self) -> bool:
        """Whether events can be delivered now; while Home Assistant is away they are skipped."""

    async def fire_event(self, event_type: str, event_data: JsonObject) -> None:
        """Fire an event on Home Assistant's bus."""


class EventOutbox:
    """The agent's events, queued by turns and fired one at a time by a task of their own."""

    def __init__(self, sink: EventSink | None, max_pending: int = MAX_PENDING) -> None:
        self._sink = sink
        self._max_pending = max_pending
        self._pending: deque[tuple[str, JsonObject]] = deque()
        self._task: asyncio.Task[None] | None = None
        self._dropped = 0

    def emit(self, event_type: str, data: JsonObject) -> None:
        """Queue one event; never blocks and never raises."""
        if self._sink is None:
            return
        if len(self._pending) >= self._max_pending:
            self._dropped += 1
            if self._dropped == 1:
                _LOGGER.warning(
                    "Home Assistant is not taking events fast enough; dropping %s and later ones",
                    event_type,
                )
            return
        self._pending.append((event_type, data))
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._fire_pending())

    async def drain(self, *, cancel: bool = False) -> None:
        """Wait until every queued event was fired (or skipped), or drop them all."""
        task = self._task
        if task is None:
            return
        if cancel:
            self._pending.clear()
            task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    async def _fire_pending(self) -> None:
        assert self._sink is not None
        # No await between the last emptiness check and the return, so an event queued after it
        # always finds this task done and starts a new one.
        while self._pending:
            event_type, data = self._pending.popleft()
            if not self._sink.connected:
                _LOGGER.debug("Not firing %s: Home Assistant is not connected", event_type)
                continue
            try:
                await self._sink.fire_event(event_type, data)
            except Exception:  # events are a courtesy; Home Assistant may have gone meanwhile
                _LOGGER.warning("Could not fire %s on Home Assistant", event_type, exc_info=True)
        if self._dropped:
            _LOGGER.warning(
                "Dropped %d Home Agent events while Home Assistant lagged", self._dropped
            )
            self._dropped = 0


def started_event(
    request: ConversationRequest,
    conversation_id: str,
    language: str,
    dry_run: bool,
    actor: JsonObject | None = None,
) -> JsonObject:
    """``home_agent_conversation_started``: a turn began in this conversation, by ``actor``.

    ``actor`` is the turn's :meth:`~addon.home.actions.actor.Actor.as_dict`, as the finished
    event carries it, so an automation can react to who asks before the answer.
    """
    return {
        "conversation_id": conversation_id,
        "text": request.text,
        "source": request.source,
        "language": language,
        "device_id": request.device_id,
        "satellite_id": request.satellite_id,
        "dry_run": dry_run,
        "actor": actor,
    }


def finished_events(
    request: ConversationRequest, result: ConversationResult, trace: TurnTrace
) -> list[tuple[str, JsonObject]]:
    """What a finished turn fires: its tool calls, its error if it had one, then the turn."""
    events = [(TOOL_EXECUTED, _tool_executed(result, call)) for call in trace.tool_calls]
    if result.error is not None:
        events.append((ERROR, _turn_error(request, result)))
    events.append((CONVERSATION_FINISHED, _turn_finished(request, result, trace)))
    return events


def _tool_executed(result: ConversationResult, call: ToolCallTrace) -> JsonObject:
    """``home_agent_tool_executed``: one tool call of the turn, and how it went."""
    return {
        "conversation_id": result.conversation_id,
        "turn_id": result.turn_id,
        "tool": call.outcome.name,
        "arguments": call.outcome.arguments,
        # Ran and did what was asked: not an error answer ("not exposed"), not refused.
        "success": not call.outcome.failed,
        "error": call.outcome.error,
        "executor": call.outcome.executor,
        "duration_ms": round(call.outcome.duration_ms, 1),
        # A custom tool's rendered request and response, secrets masked; else None.
        "detail": call.outcome.detail,
    }


def _turn_error(request: ConversationRequest, result: ConversationResult) -> JsonObject:
    """``home_agent_error``: the turn failed, with what was said to the user instead."""
    return {
        "conversation_id": result.conversation_id,
        "turn_id": result.turn_id,
        "error": result.error,
        "error_kind": result.error_kind.value if result.error_kind else None,
        "handled_by": result.handled_by,
        "reply": result.reply,
        "source": request.source,
        "device_id": request.device_id,
    }


def _turn_finished(
    request: ConversationRequest, result: ConversationResult, trace: TurnTrace
) -> JsonObject:
    """``home_agent_conversation_finished``: the turn as asked and answered, last of its events."""
    return {
        "conversation_id": result.conversation_id,
        "turn_id": result.turn_id,
        "text": request.text,
        "reply": result.reply,
        "handled_by": result.handled_by,
        # What failed, if anything: a reply corrected because its actions failed too.
        "error": result.error,
        # Nothing the turn tried to do happened (its outcome is "failed").
        "actions_failed": result.actions_failed,
        "latency_ms": round(trace.timings.get("total", 0.0), 1),
        "prompt_tokens": trace.prompt_tokens,
        "completion_tokens": trace.completion_tokens,
        "device_id": request.device_id,
        "source": request.source,
        # Who asked: person, satellite and endpoint, "unknown" where a path cannot tell.
        "actor": trace.actor,
    }


def confirmation_event(
    conversation_id: str, device_id: str | None, detail: JsonObject, reason: str
) -> JsonObject:
    """``home_agent_confirmation_*``: an action held, confirmed, or cancelled (and why).

    ``reason`` is ``requested``, ``confirmed``, ``cancelled``, ``superseded`` (a new request
    said instead of an answer), ``expired``, ``failed`` or ``locked`` (too many wrong PINs).
    Never the user's words: a PIN is not in any event.
    """
    return {
        "conversation_id": conversation_id,
        "device_id": device_id,
        "actions": detail["actions"],
        "method": detail["method"],
        "reason": reason,
    }


def crashed_event(request: ConversationRequest, err: BaseException) -> JsonObject:
    """``home_agent_error`` for a turn that raised (a bug): no reply, no stored turn."""
    return {
        "conversation_id": request.conversation_id,
        "turn_id": None,
        "error": f"internal error ({type(err).__name__}); the add-on log has the details",
        "error_kind": "internal",
        "handled_by": None,
        "reply": None,
        "source": request.source,
        "device_id": request.device_id,
    }


class ToolProgressEvents:
    """``home_agent_tool_progress`` for the tool calls of one conversation's turn."""

    def __init__(self, outbox: EventOutbox, conversation_id: str) -> None:
        self._outbox = outbox
        self._conversation_id = conversation_id

    def started(self, call_id: str, name: str) -> None:
        """A tool call the model asked for is about to run."""
        self._outbox.emit(
            TOOL_PROGRESS,
            {
                "conversation_id": self._conversation_id,
                "call_id": call_id,
                "tool": name,
                "status": "started",
            },
        )

    def finished(self, call_id: str, outcome: ToolOutcome) -> None:
        """It ran: ``completed``, or ``failed`` (with the error the model was given, if any)."""
        self._outbox.emit(
            TOOL_PROGRESS,
            {
                "conversation_id": self._conversation_id,
                "call_id": call_id,
                "tool": outcome.name,
                "status": "failed" if outcome.failed else "completed",
                "error": outcome.error,
                "executor": outcome.executor,
                "duration_ms": round(outcome.duration_ms, 1),
            },
        )


def memory_extracted_event(conversation_id: str, turn_id: int, learned: Learned) -> JsonObject:
    """``home_agent_memory_extracted``: what the extraction after a turn kept and rejected.

    Rejections carry their reasons only, never their text: a rejected secret stays unsaid.
    """
    return {
        "conversation_id": conversation_id,
        "turn_id": turn_id,
        "added": len(learned.added),
        "merged": len(learned.merged),
        "rejected": len(learned.rejected),
        "added_ids": list(learned.added),
        "merged_ids": list(learned.merged),
        "rejected_reasons": [str(rejection.reason) for rejection in learned.rejected],
        "error": learned.error,
    }
