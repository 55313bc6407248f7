"""The agent's side of confirmation: keeping what a turn held, and answering the next words.

:mod:`addon.agent.confirm` says what a held action is and what the user's words do to it;
here the held actions are kept per conversation, performed or cancelled on the answer, traced
and announced (``home_agent_confirmation_*``).
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from addon.agent.answer import Answer
from addon.agent.confirm import (
    Pending,
    PendingConfirmations,
    answer_of,
    expired,
    from_voice_pipeline,
    reply_for,
)
from addon.agent.conversation import ConversationRequest
from addon.agent.events import (
    CONFIRMATION_CANCELLED,
    CONFIRMATION_CONFIRMED,
    CONFIRMATION_REQUESTED,
    EventOutbox,
    confirmation_event,
)
from addon.agent.spoken import SpokenStream
from addon.agent.trace import ToolCallTrace, TurnTrace
from addon.agent.turn_setup import TurnSetup
from addon.errors import ErrorKind, HomeAgentError
from addon.home.actions.confirmation import perform
from addon.i18n.translations import messages_for
from addon.llm.messages import AssistantMessage, ChatMessage, UserMessage
from addon.text import JsonObject
from addon.tools.base import ActedTarget, ToolContext
from addon.tools.registry import ToolOutcome
from addon.tools.result import ToolResult


class Confirmations:
    """Held actions by conversation, and the answers that perform or cancel them."""

    def __init__(self, events: EventOutbox, timeout: float) -> None:
        self._events = events
        self._timeout = timeout
        self._pending = PendingConfirmations()

    def claim(self, conversation_id: str, request: ConversationRequest) -> Pending | None:
        """What this utterance answers, if anything; taken, so it is answered only once.

        No await between looking and taking: of two requests at once, one answers.
        """
        pending = self._pending.waiting(
            conversation_id,
            request.device_id,
            satellite_id=request.satellite_id,
            anonymous=from_voice_pipeline(request),
        )
        if pending is not None:
            self._pending.take(pending)
        return pending

    def answering_conversation(self, request: ConversationRequest, now: datetime) -> str | None:
        """The conversation an anonymous voice request continues: the question it answers.

        Home Assistant 2025.4 names no conversation, so the "yes" would start a new one; it
        joins the question's instead, while the question waits (not after the timeout), so
        the panel shows the question and its answer together. None for any other request.
        """
        if not from_voice_pipeline(request):
            return None
        pending = self._pending.waiting("", None, anonymous=True)
        if pending is None or expired(pending, now, self._timeout):
            return None
        return pending.conversation_id

    def hold(
        self,
        conversation_id: str,
        request: ConversationRequest,
        context: ToolContext,
        trace: TurnTrace,
        created_at: datetime,
    ) -> JsonObject | None:
        """Keep what the turn held for the user's next words; its ``needs_confirmation``."""
        holds = context.holds
        if holds is None or not holds.held:
            return None
        pending = Pending(
            conversation_id,
            request.device_id,
            tuple(holds.held),
            created_at,
            anonymous=from_voice_pipeline(request),
            satellite_id=request.satellite_id,
        )
        self._pending.hold(pending, self._timeout)
        detail = pending.as_dict()
        trace.tool_calls.append(
            ToolCallTrace(
                created_at, "confirmation", _status("Held for confirmation", detail), None
            )
        )
        self._events.emit(
            CONFIRMATION_REQUESTED,
            confirmation_event(conversation_id, request.device_id, detail, "requested"),
        )
        return detail

    async def answer(
        self,
        pending: Pending,
        said: str,
        request: ConversationRequest,
        context: ToolContext,
        trace: TurnTrace,
        spoken: SpokenStream | None,
        at: datetime,
        setup: TurnSetup,
    ) -> Answer | None:
        """The user's answer to a held action: perform it, cancel it, or None when it expired.

        Only here is a held action performed, and only from the user's own words: a tool call
        never reaches this. It runs through the turn's plain executor (virtual in a dry run).
        """
        detail = pending.as_dict()
        conversation_id = pending.conversation_id
        if expired(pending, at, self._timeout):
            trace.tool_calls.append(
                ToolCallTrace(at, "confirmation", _status("Expired", detail), None)
            )
            self._events.emit(
                CONFIRMATION_CANCELLED,
                confirmation_event(conversation_id, request.device_id, detail, "expired"),
            )
            return None
        answer = answer_of(pending, said, context.language)
        reply = reply_for(answer, pending, context.language)
        executor = setup.executor(context.home, context.dry_run)
        acted: tuple[ActedTarget, ...] = ()
        error: str | None = None
        unreachable = executor is None and any(held.replay is None for held in pending.held)
        if answer == "confirmed" and not unreachable:
            try:
                for held in pending.held:
                    await perform(executor, held, dry_run=context.dry_run)
                    acted += tuple(ActedTarget(held.action, e) for e in held.entity_ids)
            except HomeAgentError as err:
                error = str(err)
                reply = messages_for(context.language).could_not_do
        elif answer == "confirmed":
            error = "not connected"
            reply = messages_for(context.language).for_error(ErrorKind.NOT_CONNECTED)
        done = "Confirmed" if answer == "confirmed" and error is None else "Cancelled"
        outcome = dataclasses.replace(
            _status(done, detail, executor.name if executor else "none"), acted=acted, error=error
        )
        trace.tool_calls.append(ToolCallTrace(at, "confirmation", outcome, None))
        event = CONFIRMATION_CONFIRMED if done == "Confirmed" else CONFIRMATION_CANCELLED
        self._events.emit(
            event,
            confirmation_event(
                conversation_id, request.device_id, detail, answer if error is None else "failed"
            ),
        )
        if spoken is not None:
            await spoken.send(reply)
        messages: list[ChatMessage] = [UserMessage(request.text), AssistantMessage(reply)]
        return Answer(reply, messages, "local", error, (outcome,))


def _status(status: str, detail: JsonObject, executor: str = "gate") -> ToolOutcome:
    """The trace's line for a held action: held, confirmed, cancelled or expired."""
    return ToolOutcome(
        name="confirmation",
        arguments=detail,
        raw_arguments="",
        result=ToolResult.of({"confirmation": status, **detail}),
        error=None,
        duration_ms=0.0,
        executor=executor,
    )
