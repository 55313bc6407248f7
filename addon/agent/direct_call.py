"""One tool called directly by an endpoint (the MCP server), recorded as a turn of its own.

The same registry, exposure rules, executor and dry run as a turn's tool loop; the turn is
stored under a new conversation with ``handled_by`` ``tool``, its one tool call in the trace,
so the panel shows who called what and what it did.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from datetime import datetime

from addon.agent.after_turn import AfterTurnWork
from addon.agent.answer import action_summary
from addon.agent.conversation import ConversationRequest, ToolCall, ToolCallResult
from addon.agent.outcome import acting_targets
from addon.agent.recording import committed, turn_record
from addon.agent.toolbox import Toolbox
from addon.agent.trace import ToolCallTrace, TurnTrace
from addon.agent.turn_setup import TurnSetup
from addon.home.actions.actor import resolve_actor
from addon.home.model.live import HomeModel
from addon.store.turns import ConversationRecords
from addon.tools.registry import ToolRegistry


@dataclass(frozen=True, slots=True)
class DirectCall:
    """What a direct call needs of the agent: the call, when, and how it is set up and kept."""

    call: ToolCall
    language: str
    dry_run: bool
    created_at: datetime
    model: HomeModel | None
    exclude_kinds: frozenset[str]


async def call_directly(
    direct: DirectCall,
    *,
    setup: TurnSetup,
    toolbox: Toolbox,
    records: ConversationRecords,
    after: AfterTurnWork,
    outcome_delay: float,
) -> ToolCallResult:
    """Run the call as the model would, store it, and check its outcome like a turn's.

    A tool of ``exclude_kinds`` is unknown here, as if it were not offered.
    """
    call, language, dry_run = direct.call, direct.language, direct.dry_run
    with records.answering():
        started = time.perf_counter()
        context = setup.context(direct.model, language, direct.created_at, None, dry_run)
        trace = TurnTrace()
        # An MCP client names no person or satellite: recorded as unknown, never guessed.
        trace.actor = resolve_actor(direct.model, endpoint=call.source).as_dict()
        registry = await toolbox.registry(direct.model, trace)
        if call.name in registry and registry.get(call.name).kind in direct.exclude_kinds:
            registry = ToolRegistry(
                tool for tool in registry.tools() if tool.kind not in direct.exclude_kinds
            )
        arguments = json.dumps(call.arguments, ensure_ascii=False)
        outcome = await registry.execute(call.name, arguments, context)
        summary = action_summary(outcome)
        error = None if summary.success else (summary.error or "failed")
        trace.tool_calls.append(ToolCallTrace(direct.created_at, "direct", outcome, None))
        trace.timings["total"] = (time.perf_counter() - started) * 1000
        conversation_id = uuid.uuid4().hex
        reply = outcome.result.text()
        record = turn_record(
            request=ConversationRequest(
                text=f"{call.name} {arguments}", source=call.source, language=language
            ),
            conversation_id=conversation_id,
            language=language,
            created_at=direct.created_at,
            reply=reply,
            handled_by="tool",
            dry_run=dry_run,
            error=error,
            messages=[],
            trace=trace,
        )
        added = await records.add_turn(record)
        turn_id = added.turn_id
    await committed(added.committed, turn_id)
    if not dry_run and acting_targets([outcome]):
        after.check_later(turn_id, reply, [outcome], language, outcome_delay)
    return ToolCallResult(
        result=outcome.result,
        error=error,
        conversation_id=conversation_id,
        turn_id=turn_id,
        dry_run=dry_run,
    )
