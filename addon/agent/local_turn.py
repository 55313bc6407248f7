"""The local path: Home Assistant's sentence matcher, our resolver and executor, no model.

The request's language picks the sentences (:class:`~addon.local.matcher.LocalMatcher` keeps
one set per language used).

A locally handled turn enters history in the same shape as a model's tool call (an assistant
message calling the intent, the tool result, the spoken reply), so a later model turn can resolve
"turn it off again" from it.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

from addon.agent.confirm import question_for
from addon.agent.trace import ToolCallTrace, TurnTrace
from addon.errors import ErrorKind, ToolError
from addon.home.actions.confirmation import ConfirmingExecutor, Holds
from addon.home.actions.executor import Executor, HandedAnswer, HandedSentence
from addon.home.actions.gate import Decision
from addon.home.actions.handlers import handle_intent
from addon.home.actions.intents import DRAFT_AUTOMATION, HANDED_TO_HOME_ASSISTANT, INTENTS
from addon.home.actions.response import IntentResult
from addon.home.actions.virtual import VirtualExecutor
from addon.home.targeting.matching import match_targets
from addon.home.targeting.targets import MatchTargetsConstraints, MatchTargetsPreferences
from addon.i18n.automations import automation_words, time_automation_summary
from addon.i18n.questions import dont_know
from addon.i18n.translations import messages_for
from addon.llm.messages import AssistantMessage, ChatMessage, ToolCallRequest, ToolMessage
from addon.llm.outside_text import as_data
from addon.local.failure_speech import spoken_unknown, unexposed_failure
from addon.local.library import Stage, release_stage
from addon.local.matcher import (
    QUESTIONS,
    LocalMatch,
    LocalMatcher,
    answered_locally,
    answered_nothing,
)
from addon.local.responses import render_speech
from addon.tools.automation import WEEKDAYS
from addon.tools.base import Tool, ToolContext
from addon.tools.registry import ToolOutcome, ToolRegistry, held_by_executor
from addon.tools.result import HELD, ToolResult


@dataclass(frozen=True, slots=True)
class LocalTurn:
    """What the local path answered."""

    reply: str
    messages: list[ChatMessage]
    outcome: ToolOutcome
    error: str | None


async def run_local_turn(
    matcher: LocalMatcher,
    text: str,
    context: ToolContext,
    trace: TurnTrace,
    *,
    fall_through: bool = True,
    questions: bool = True,
    drafting: Tool | None = None,
) -> LocalTurn | None:
    """Answer ``text`` locally, or None to hand it to the model.

    With ``fall_through`` (a model is configured) a matching failure such as an unknown device
    name goes to the model, which may know what was meant, as Home Assistant's own LLM agents
    do; without a model the failure is spoken as it is. A matching failure first tries the
    matcher's next stage (:meth:`LocalMatcher.candidates`): nothing was done, so nothing can be
    done twice. Only an exact match answers when a model is configured (the model reads typos
    better than a guess); without one, typos are corrected when that is certain, and a name
    several devices share is matched so that the listener hears so.
    ``questions=False`` leaves questions (:data:`QUESTIONS`) to a configured model. A
    question that one stage's sentences read as being about nothing in the home (an empty
    answer) tries the next stage's reading before it is answered; one that cannot be answered
    for certain, with no model to ask, is answered "I don't know that".
    """
    model, executor = context.home, context.executor
    if model is None or executor is None:
        return None
    if not matcher.loaded(context.language):
        # A language's first request: its templates load and compile (a few hundred ms) in a
        # worker thread, not on the loop that serves every other conversation.
        await asyncio.to_thread(matcher.prepare, context.language)
    started = time.perf_counter()
    candidates = matcher.candidates(
        text,
        model,
        preferred_area_id=context.area_id,
        language=context.language,
        tolerant=not fall_through,
        ambiguous=not fall_through,
    )
    match = next(candidates, None)
    trace.timings["local_match"] = (time.perf_counter() - started) * 1000
    failed: tuple[LocalMatch, IntentResult] | None = None
    started_at = datetime.now(UTC)
    acted = time.perf_counter()
    holds = context.holds
    held_before = len(holds.held) if holds is not None else 0
    refused_before = len(holds.refused) if holds is not None else 0
    empty: tuple[LocalMatch, IntentResult] | None = None
    # The sentences the connected Home Assistant's own agent matches with: its failure is
    # the one to say, as its agent would (None: no release known, the first failure is said).
    own = release_stage(model.ha_version)
    while match is not None:
        if match.intent == DRAFT_AUTOMATION:
            drafted = await _drafted_turn(match, context, trace, drafting)
            if drafted is not None:
                return drafted
            match = next(candidates, None)
            continue
        if match.intent in HANDED_TO_HOME_ASSISTANT:
            command = str(match.slots.get("conversation_command") or "")
            if command and not await _may_run_later(matcher, command, context):
                return _refused_turn(match, context, trace, executor)
            return await _handed_turn(match, text, context, trace, executor)
        if fall_through and not questions and match.intent in QUESTIONS:
            return None
        result = await handle_intent(
            match.intent,
            match.slots,
            model=model,
            executor=executor,
            preferences=MatchTargetsPreferences(area_id=context.area_id, floor_id=context.floor_id),
            language=context.language,
            now=context.now,
        )
        if answered_locally(result) and not answered_nothing(result):
            break
        if answered_locally(result):
            empty = empty or (match, result)
        elif failed is None or (match.stage is own and failed[0].stage is not own):
            failed = (match, result)
        match = next(candidates, None)
    if match is None and empty is not None:
        match, result = empty
    if match is None and not fall_through and (failed is None or _uncertain(*failed)):
        # Nothing matched with the exposed names (or only a question we cannot answer for
        # certain): Home Assistant's next stage tries the others, only to say which is not
        # exposed; no handler runs for it, so nothing can act.
        hidden = matcher.unexposed(
            text, model, preferred_area_id=context.area_id, language=context.language
        )
        said = (
            unexposed_failure(hidden.intent, hidden.slots, model, hidden.language)
            if hidden is not None
            else None
        )
        if hidden is not None and said is not None:
            failed = (hidden, said)
    said_instead: str | None = None
    if match is None and not fall_through and failed is not None and not _uncertain(*failed):
        said_instead, failed = _as_release_says(matcher, text, context, own, failed)
    if match is None:
        if failed is None:
            return None
        if fall_through:
            trace.timings["local_miss"] = (time.perf_counter() - acted) * 1000
            return None
        match, result = failed
    # A question we could not answer is "I don't know that", unless the home says why for
    # certain (no device of that name, several of it): then Home Assistant's sentence for it.
    reply = (
        dont_know(context.language)
        if _uncertain(match, result)
        else said_instead or render_speech(match, result)
    )
    call_id = "local_" + uuid.uuid4().hex[:12]
    raw_arguments = json.dumps(match.slots, ensure_ascii=False, default=list)
    tool_result = ToolResult.of(result.for_model())
    decisions = held_by_executor(match.intent, context.dry_run)
    if holds is not None and len(holds.refused) > refused_before:
        # The actor's rule refused the intent's call: nothing was done, and it says why.
        refused = holds.refused[refused_before]
        reply = refused.spoken
        decisions = (*decisions, Decision("refuse", refused.action, "actor", refused.reason))
    elif holds is not None and len(holds.held) > held_before:
        # The policy held the intent's call: nothing was done, the user is asked instead.
        held = tuple(holds.held[held_before:])
        tool_result = HELD
        reply = question_for(held, context.language)
        decisions = (
            *decisions,
            Decision("confirm", held[0].action, "confirmation", "held until the user confirms"),
        )
    outcome = ToolOutcome(
        name=match.intent,
        arguments=dict(match.slots),
        raw_arguments=raw_arguments,
        result=tool_result,
        error=result.message if result.is_error else None,
        duration_ms=(time.perf_counter() - acted) * 1000,
        executor=executor.name,
        decisions=decisions,
        failure=result.failure,
    )
    trace.tool_calls.append(ToolCallTrace(started_at, call_id, outcome, None))
    trace.timings["local_action"] = outcome.duration_ms
    if outcome.error is not None:
        trace.error_kind = ErrorKind.INTENT_FAILED
    messages: list[ChatMessage] = [
        AssistantMessage(None, (ToolCallRequest(call_id, match.intent, raw_arguments),)),
        ToolMessage(call_id, as_data(tool_result.text())),
        AssistantMessage(reply),
    ]
    return LocalTurn(reply, messages, outcome, outcome.error)


async def _may_run_later(matcher: LocalMatcher, command: str, context: ToolContext) -> bool:
    """Whether a timer's command ("in 10 minutes turn off the lights") may be handed over.

    Home Assistant runs the command itself when the timer ends, past our gate, so it is judged
    now, on a copy of the home: it must read as one of our sentences, not as another timer, and
    act without the confirmation policy holding it ("in 10 minutes unlock the front door" is
    not scheduled). What cannot be judged is not handed over.
    """
    model = context.home
    if model is None:
        return False
    match = next(
        matcher.candidates(
            command,
            model,
            preferred_area_id=context.area_id,
            language=context.language,
            tolerant=False,
            ambiguous=False,
        ),
        None,
    )
    if match is None or match.intent in HANDED_TO_HOME_ASSISTANT or match.intent in QUESTIONS:
        return False
    probe = (
        Holds(
            context.holds.policy,
            context.holds.describe,
            context.holds.describe_group,
            impacts=context.holds.impacts,
        )
        if context.holds is not None
        else None
    )
    virtual: Executor = VirtualExecutor(model.copy())
    executor = ConfirmingExecutor(virtual, probe) if probe is not None else virtual
    result = await handle_intent(
        match.intent,
        match.slots,
        model=model,
        executor=executor,
        preferences=MatchTargetsPreferences(area_id=context.area_id, floor_id=context.floor_id),
        language=context.language,
        now=context.now,
    )
    return answered_locally(result) and not result.is_error and not (probe and probe.held)


def _refused_turn(
    match: LocalMatch, context: ToolContext, trace: TurnTrace, executor: Executor
) -> LocalTurn:
    """A timer whose command may not run later unasked: nothing is handed over, and it says so."""
    reply = messages_for(context.language).delayed_command_refused
    call_id = "local_" + uuid.uuid4().hex[:12]
    raw_arguments = json.dumps(match.slots, ensure_ascii=False, default=list)
    reason = "a delayed command runs in Home Assistant past the gate; it must be allowed now"
    outcome = ToolOutcome(
        name=match.intent,
        arguments=dict(match.slots),
        raw_arguments=raw_arguments,
        result=ToolResult.of({"error": "ToolError", "error_text": reason}),
        error=reason,
        duration_ms=0.0,
        executor=executor.name,
        decisions=(Decision("refuse", match.intent, "confirmation", reason),),
    )
    trace.tool_calls.append(ToolCallTrace(datetime.now(UTC), call_id, outcome, None))
    trace.error_kind = ErrorKind.INTENT_FAILED
    messages: list[ChatMessage] = [
        AssistantMessage(None, (ToolCallRequest(call_id, match.intent, raw_arguments),)),
        ToolMessage(call_id, as_data(outcome.result.text())),
        AssistantMessage(reply),
    ]
    return LocalTurn(reply, messages, outcome, reason)


async def _handed_turn(
    match: LocalMatch, text: str, context: ToolContext, trace: TurnTrace, executor: Executor
) -> LocalTurn:
    """Hand a timer or broadcast to Home Assistant's own agent; what it says is the reply.

    The device that heard the sentence goes with it, so the timer runs on that satellite; Home
    Assistant says for itself what it did or why it cannot (a device without timers). In a dry
    run the virtual executor sends nothing, and the reply says so.
    """
    started_at = datetime.now(UTC)
    acted = time.perf_counter()
    words = messages_for(context.language)
    sentence = HandedSentence(text, context.language, context.device_id)
    answer: HandedAnswer | None = None
    error: str | None = None
    try:
        answer = await executor.hand_over(sentence)
    except ToolError as err:
        error = str(err)
    if answer is None:
        reply = words.could_not_do
    elif not answer.handed:
        reply = words.handed_in_dry_run
    else:
        reply = answer.speech or words.done
        error = (answer.speech or answer.error_code or "failed") if answer.failed else None
    sent = answer.response if answer is not None and answer.handed else {"sent": False}
    tool_result = ToolResult.of(sent)
    call_id = "local_" + uuid.uuid4().hex[:12]
    raw_arguments = json.dumps(match.slots, ensure_ascii=False, default=list)
    outcome = ToolOutcome(
        name=match.intent,
        arguments=dict(match.slots),
        raw_arguments=raw_arguments,
        result=tool_result,
        error=error,
        duration_ms=(time.perf_counter() - acted) * 1000,
        executor=executor.name,
        decisions=(
            *held_by_executor(match.intent, context.dry_run),
            Decision(
                "allow",
                match.intent,
                None,
                "handed to Home Assistant's own agent, with the device that heard it",
            ),
        ),
    )
    trace.tool_calls.append(ToolCallTrace(started_at, call_id, outcome, None))
    trace.timings["local_action"] = outcome.duration_ms
    if error is not None:
        trace.error_kind = ErrorKind.INTENT_FAILED
    messages: list[ChatMessage] = [
        AssistantMessage(None, (ToolCallRequest(call_id, match.intent, raw_arguments),)),
        ToolMessage(call_id, as_data(tool_result.text())),
        AssistantMessage(reply),
    ]
    return LocalTurn(reply, messages, outcome, error)


def _as_release_says(
    matcher: LocalMatcher,
    text: str,
    context: ToolContext,
    own: Stage | None,
    failed: tuple[LocalMatch, IntentResult],
) -> tuple[str | None, tuple[LocalMatch, IntentResult]]:
    """What to say for a failure of sentences the connected Home Assistant does not have.

    Its agent never matched them (2026.11 dropped 2025.4's "lock all the doors"): it tries its
    own with the names not exposed, then with names the home lacks, and says what those find
    ("Sorry, I am not aware of any device called all the doors"). The first is a failure to
    record instead; the second only a sentence to say, and the failure that was found stays
    for the tool result, which explains more to a model. With nothing found there, or no
    release known, or the failure its own, the failure is said as it is: we say more than its
    catch-all "Sorry, I couldn't understand that".
    """
    model = context.home
    if own is None or failed[0].stage is own or model is None:
        return None, failed
    hidden = matcher.unexposed(
        text, model, preferred_area_id=context.area_id, language=context.language, stage=own
    )
    said = (
        unexposed_failure(hidden.intent, hidden.slots, model, hidden.language)
        if hidden is not None
        else None
    )
    if hidden is not None and said is not None:
        return None, (hidden, said)
    unknown = matcher.unknown_names(
        text, model, own, preferred_area_id=context.area_id, language=context.language
    )
    if unknown is None or not unknown.unmatched.keys() & {"name", "area", "floor"}:
        return None, failed  # its catch-all: ours says more
    speech = spoken_unknown(
        unknown.unmatched, unknown.matched, unknown.templates, unknown.intent, unknown.language
    )
    return speech, failed


def _uncertain(match: LocalMatch, result: IntentResult) -> bool:
    """A question not answered, with no failure of matching that says why."""
    return match.intent in QUESTIONS and not answered_locally(result) and result.failure is None


def _one_of(value: object) -> str:
    """A list slot's one value ("weekdays" of ``["weekdays"]``), or the text itself."""
    if isinstance(value, list | tuple):
        return str(value[0]) if value else ""
    return str(value or "")


async def _drafted_turn(
    match: LocalMatch, context: ToolContext, trace: TurnTrace, drafting: Tool | None
) -> LocalTurn | None:
    """A time-of-day automation sentence ("every weekday at seven..."): drafted, not acted on.

    The sentence's one device is found among the exposed ones, and the automation goes through
    the model's own ``draft_automation`` tool (the gate's verdict, Home Assistant's validation,
    the kept draft, the held spoken approval), so both paths draft alike. None (the sentence
    goes on) without the tool, or when the words name no single exposed device.
    """
    model = context.home
    if drafting is None or model is None:
        return None
    spec = INTENTS[DRAFT_AUTOMATION]
    found = match_targets(
        model,
        MatchTargetsConstraints(
            name=str(match.slots.get("name") or ""),
            domains=sorted(spec.platforms or ()),
        ),
    )
    if not found.is_match or len(found.entity_ids) != 1:
        return None
    entity_id = found.entity_ids[0]
    entity = model.entity(entity_id)
    name = entity.name if entity is not None else entity_id
    service = _one_of(match.slots.get("service")) or "turn_on"
    days = _one_of(match.slots.get("days")) or "daily"
    hour, minute = int(match.slots.get("hour") or 0), int(match.slots.get("minute") or 0)
    summary = time_automation_summary(context.language, days, hour, minute, service, name)
    conditions: list[dict[str, object]] = []
    if days in ("weekdays", "weekend"):
        chosen = WEEKDAYS if days == "weekdays" else ("sat", "sun")
        conditions.append({"condition": "time", "weekday": list(chosen)})
    action = f"{entity_id.partition('.')[0]}.{service}"
    arguments = {
        "alias": f"{name} {service.replace('_', ' ')} {hour:02d}:{minute:02d}",
        "summary": summary,
        "triggers": [{"trigger": "time", "at": f"{hour:02d}:{minute:02d}:00"}],
        "conditions": conditions,
        "actions": [
            {
                "action": action,
                "target": {"entity_id": entity_id},
            }
        ],
    }
    started_at = datetime.now(UTC)
    holds = context.holds
    held_before = len(holds.held) if holds is not None else 0
    raw_arguments = json.dumps(arguments, ensure_ascii=False)
    outcome = await ToolRegistry([drafting]).execute(drafting.name, raw_arguments, context)
    if holds is not None and len(holds.held) > held_before:
        reply = question_for(tuple(holds.held[held_before:]), context.language)
    elif outcome.ok and outcome.result.succeeded:
        reply = automation_words(context.language).on_the_page.format(summary=summary)
    elif outcome.error and any(d.rule == "actor" for d in outcome.decisions):
        reply = outcome.error  # their rule forbids what it would do, said in their words
    else:
        reply = messages_for(context.language).could_not_do
        trace.error_kind = ErrorKind.INTENT_FAILED
    call_id = "local_" + uuid.uuid4().hex[:12]
    trace.tool_calls.append(ToolCallTrace(started_at, call_id, outcome, None))
    messages: list[ChatMessage] = [
        AssistantMessage(None, (ToolCallRequest(call_id, drafting.name, raw_arguments),)),
        ToolMessage(call_id, as_data(outcome.result.text())),
        AssistantMessage(reply),
    ]
    return LocalTurn(reply, messages, outcome, outcome.error)
