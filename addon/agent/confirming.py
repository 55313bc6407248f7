"""The agent's side of confirmation: keeping what a turn held, and answering the next words.

:mod:`addon.agent.confirm` says what a held action is and what the user's words do to it;
here the held actions are kept per conversation, performed or cancelled on the answer, traced
and announced (``home_agent_confirmation_*``); wrong PINs are counted, and too many lock the
source out of PIN confirmation for a while.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from datetime import datetime

from addon.agent.answer import Answer
from addon.agent.confirm import (
    MAX_WRONG_PINS,
    PIN_MASK,
    Pending,
    PendingConfirmations,
    PinAttempts,
    answer_of,
    expired,
    from_voice_pipeline,
    reply_for,
    says_a_pin,
    sources_of,
)
from addon.agent.confirm import Answer as Said
from addon.agent.conversation import ConversationRequest
from addon.agent.events import (
    CONFIRMATION_CANCELLED,
    CONFIRMATION_CONFIRMED,
    CONFIRMATION_LOCKED,
    CONFIRMATION_REQUESTED,
    EventOutbox,
    confirmation_event,
)
from addon.agent.spoken import SpokenStream
from addon.agent.trace import ToolCallTrace, TurnTrace
from addon.agent.turn_setup import TurnSetup
from addon.errors import ErrorKind, HomeAgentError
from addon.home.actions.confirmation import ConfirmationPolicy, Method, perform
from addon.home.actions.executor import Executor
from addon.home.model.live import HomeModel
from addon.i18n.translations import messages_for
from addon.llm.messages import AssistantMessage, ChatMessage, UserMessage
from addon.text import JsonObject
from addon.tools.base import ActedTarget, ToolContext
from addon.tools.registry import ToolOutcome
from addon.tools.result import ToolResult

_LOGGER = logging.getLogger(__name__)


class Confirmations:
    """Held actions by conversation, and the answers that perform or cancel them."""

    def __init__(self, events: EventOutbox, timeout: float) -> None:
        self._events = events
        self._timeout = timeout
        self._pending = PendingConfirmations()
        self._attempts = PinAttempts()

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

    async def masked(
        self,
        request: ConversationRequest,
        pending: Pending | None,
        policy: Callable[[], ConfirmationPolicy] | None,
    ) -> ConversationRequest:
        """``request`` with its words masked if they answer a PIN question or are a PIN.

        Before anything is stored, traced, fired, logged or sent to a model. A PIN said when no
        PIN question waits (late, at another satellite) is found by hashing it against the
        policy's PINs, which only utterances that look like a PIN pay for.
        """
        if pending is not None and pending.pin:
            return dataclasses.replace(request, text=PIN_MASK)
        if policy is not None and await says_a_pin(request.text, policy()):
            return dataclasses.replace(request, text=PIN_MASK)
        return request

    def dry_run_of(self, pending: Pending | None, at: datetime) -> bool:
        """Whether the turn answering ``pending`` at ``at`` is a dry run as its question was."""
        return pending is not None and pending.dry_run and not expired(pending, at, self._timeout)

    def waits(self, pending: Pending) -> bool:
        """Whether ``pending`` waits again after its answer (a wrong PIN, still in time)."""
        return (
            self._pending.waiting(
                pending.conversation_id,
                pending.device_id,
                satellite_id=pending.satellite_id,
                anonymous=pending.anonymous,
            )
            is pending
        )

    def asked_in(self, conversation_id: str, now: datetime) -> Method | None:
        """How the question waiting in ``conversation_id`` is answered ("yes" or "pin"), if any.

        For a page showing the conversation again (the chat reloaded): it offers the answer's
        controls, and a masked field while a PIN is awaited. Only a question asked without a
        device (the chat's own) is seen from here; one a satellite heard is not the page's.
        """
        pending = self._pending.waiting(conversation_id, None)
        if pending is None or pending.device_id is not None or expired(pending, now, self._timeout):
            return None
        return "pin" if pending.pin else "yes"

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
            dry_run=context.dry_run,
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

    def supersede(
        self, pending: Pending, request: ConversationRequest, trace: TurnTrace, at: datetime
    ) -> None:
        """Cancel ``pending`` for a new request said instead of an answer (traced, announced).

        The request itself is then handled as any other: "lock the front door" said to "Unlock
        the Front Door?" locks it, and "is it locked?" is answered.
        """
        detail = pending.as_dict()
        trace.tool_calls.append(
            ToolCallTrace(at, "confirmation", _status("Cancelled by a new request", detail), None)
        )
        self._tell(CONFIRMATION_CANCELLED, pending, request, "superseded")

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
        never reaches this. It runs through the turn's plain executor, virtual when the question
        or the answer was asked in a dry run. A wrong PIN keeps the question waiting; the third
        within :data:`~addon.agent.confirm.PIN_LOCKOUT` locks the source out, and while it is
        locked out no PIN it says is checked.
        """
        detail = pending.as_dict()
        if expired(pending, at, self._timeout):
            trace.tool_calls.append(
                ToolCallTrace(at, "confirmation", _status("Expired", detail), None)
            )
            self._tell(CONFIRMATION_CANCELLED, pending, request, "expired")
            return None
        dry_run = pending.dry_run or context.dry_run
        answer = await self._answer_of(pending, said, request, context.language, at)
        reply = reply_for(
            answer, pending, context.language, dry_run=dry_run, state_of=_states(context.home)
        )
        executor = setup.executor(context.home, dry_run)
        acted: tuple[ActedTarget, ...] = ()
        error: str | None = None
        if answer == "confirmed":
            acted, error = await _carry_out(pending, executor, dry_run)
            if error is not None:
                words = messages_for(context.language)
                reply = (
                    words.for_error(ErrorKind.NOT_CONNECTED)
                    if error == NOT_CONNECTED
                    else words.could_not_do
                )
        done = _STATUS[answer] if error is None else "Cancelled"
        shown = {**detail, "dry_run": True} if dry_run else detail
        outcome = dataclasses.replace(
            _status(done, shown, executor.name if executor else "none"), acted=acted, error=error
        )
        trace.tool_calls.append(ToolCallTrace(at, "confirmation", outcome, None))
        if answer != "wrong_pin":
            self._tell(_EVENTS[done], pending, request, answer if error is None else "failed")
        if spoken is not None:
            await spoken.send(reply)
        messages: list[ChatMessage] = [UserMessage(request.text), AssistantMessage(reply)]
        return Answer(reply, messages, "local", error, (outcome,))

    def _tell(
        self, event_type: str, pending: Pending, request: ConversationRequest, how: str
    ) -> None:
        """Fire the event of an answered (or expired) question: what was held and how it ended."""
        self._events.emit(
            event_type,
            confirmation_event(pending.conversation_id, request.device_id, pending.as_dict(), how),
        )

    async def _answer_of(
        self,
        pending: Pending,
        said: str,
        request: ConversationRequest,
        language: str | None,
        at: datetime,
    ) -> Said:
        """What ``said`` does to ``pending``, with wrong PINs counted and lockouts kept.

        A wrong PIN puts the question back, so the person's natural retry (the PIN again) is
        answered, and masked, until the timeout. The lockout's warning and event name the
        conversation and device, never what was said.
        """
        if not pending.pin:
            return await answer_of(pending, said, language)
        sources = sources_of(pending, request)
        if self._attempts.locked_until(sources, at) is not None:
            return "locked"
        answer = await answer_of(pending, said, language)
        if answer == "confirmed":
            self._attempts.right(sources)
        elif answer == "wrong_pin":
            until = self._attempts.wrong(sources, at)
            if until is None:
                self._pending.restore(pending)
                return answer
            _LOGGER.warning(
                "PIN confirmation locked until %s after %d wrong PINs "
                "(conversation %s, device %s, satellite %s)",
                until.isoformat(timespec="seconds"),
                MAX_WRONG_PINS,
                pending.conversation_id,
                request.device_id,
                request.satellite_id,
            )
            event = confirmation_event(
                pending.conversation_id, request.device_id, pending.as_dict(), "locked"
            )
            self._events.emit(CONFIRMATION_LOCKED, {**event, "locked_until": until.isoformat()})
            return "locked"
        return answer


_STATUS: dict[Said, str] = {
    "confirmed": "Confirmed",
    "cancelled": "Cancelled",
    "wrong_pin": "Wrong PIN",
    "locked": "Locked out",
}
"""The trace's line for each answer (a failed confirmed action is "Cancelled")."""
_EVENTS = {
    "Confirmed": CONFIRMATION_CONFIRMED,
    "Cancelled": CONFIRMATION_CANCELLED,
    "Locked out": CONFIRMATION_CANCELLED,
}


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


NOT_CONNECTED = "not connected"


def _states(home: HomeModel | None) -> Callable[[str], str | None]:
    """An entity's state as the home has it now (None when unknown), for "still locked"."""

    def state_of(entity_id: str) -> str | None:
        state = home.state(entity_id) if home is not None else None
        return state.state if state is not None else None

    return state_of


async def _carry_out(
    pending: Pending, executor: Executor | None, dry_run: bool
) -> tuple[tuple[ActedTarget, ...], str | None]:
    """Perform every held action, in order: what was done, and why it stopped, if it did.

    Without an executor (Home Assistant away) an action that needs one is not tried at all.
    """
    if executor is None and any(held.replay is None for held in pending.held):
        return (), NOT_CONNECTED
    acted: tuple[ActedTarget, ...] = ()
    try:
        for held in pending.held:
            await perform(executor, held, dry_run=dry_run)
            acted += tuple(ActedTarget(held.action, e) for e in held.entity_ids)
    except HomeAgentError as err:
        return acted, str(err)
    return acted, None
