"""Recording a turn: its trace turned into the store's records, and waiting for the commit."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import datetime

from addon.agent.conversation import ConversationRequest, HandledBy
from addon.agent.trace import LLMCallTrace, ToolCallTrace, TurnTrace
from addon.llm.messages import ChatMessage, wire_messages
from addon.store.turns import LLMCallRecord, ToolCallRecord, TurnRecord
from addon.text import JsonObject
from addon.tools.registry import ToolOutcome

_LOGGER = logging.getLogger(__name__)


def turn_record(
    *,
    request: ConversationRequest,
    conversation_id: str,
    language: str,
    created_at: datetime,
    reply: str,
    handled_by: HandledBy,
    dry_run: bool,
    error: str | None,
    messages: Sequence[ChatMessage],
    trace: TurnTrace,
) -> TurnRecord:
    """Everything the store keeps about one turn."""
    return TurnRecord(
        conversation_id=conversation_id,
        source=request.source,
        device_id=request.device_id,
        satellite_id=request.satellite_id,
        language=language,
        created_at=created_at,
        user_text=request.text,
        reply_text=reply,
        handled_by=handled_by,
        dry_run=dry_run,
        error=error,
        error_kind=trace.error_kind,
        duration_ms=trace.timings.get("total", 0.0),
        messages=wire_messages(messages),
        timings={key: round(value, 3) for key, value in trace.timings.items()},
        context=trace.context,
        states=trace.states,
        actor=trace.actor,
        llm_calls=[_llm_call_record(call) for call in trace.llm_calls],
        tool_calls=[_tool_call_record(call) for call in trace.tool_calls],
    )


def _llm_call_record(call: LLMCallTrace) -> LLMCallRecord:
    """One model call as stored, its messages in their wire form."""
    return LLMCallRecord(
        started_at=call.started_at,
        model=call.model,
        streamed=call.streamed,
        request_messages=wire_messages(call.request_messages),
        request_tools=call.request_tools,
        response=call.response,
        prompt_tokens=call.prompt_tokens,
        completion_tokens=call.completion_tokens,
        ttft_ms=call.ttft_ms,
        duration_ms=call.duration_ms,
        finish_reason=call.finish_reason,
        error=call.error,
        endpoint=call.endpoint,
        tool_call_id=call.tool_call_id,
        note=call.note,
    )


def _tool_call_record(call: ToolCallTrace) -> ToolCallRecord:
    """One tool call as stored, with what the model got back (:func:`_stored_result`)."""
    return ToolCallRecord(
        started_at=call.started_at,
        call_id=call.call_id,
        name=call.outcome.name,
        arguments=call.outcome.arguments,
        result=_stored_result(call.outcome),
        duration_ms=call.outcome.duration_ms,
        executor=call.outcome.executor,
        error=call.outcome.error,
        llm_call=call.llm_call,
    )


def _stored_result(outcome: ToolOutcome) -> JsonObject:
    """The result the model got, a custom tool's request and response (masked), the gate's say."""
    stored = outcome.result.for_model()
    if outcome.detail is not None:
        stored = {**stored, "custom_tool": outcome.detail}
    if outcome.decisions:
        stored = {**stored, "gate": [decision.as_dict() for decision in outcome.decisions]}
    return stored


async def committed(future: asyncio.Future[bool], turn_id: int) -> None:
    """Wait until the turn's transaction committed: an answered turn is a stored turn.

    Shielded, so a caller that goes away (a closed connection) does not take the commit's
    future with it. A turn the store can never hold is answered all the same, with an error in
    the log: the user is owed the answer to what was done.
    """
    if not await asyncio.shield(future):
        _LOGGER.error("Turn %s was answered but could not be stored", turn_id)
