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
from collections.abc import Iterator
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
from addon.home.model.live import HomeModel
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


@dataclass(frozen=True, slots=True)
class _LocalAsk:
    """One request on the local path, with the home and the executor it acts on (both present)."""

    matcher: LocalMatcher
    text: str
    context: ToolContext
    trace: TurnTrace
    model: HomeModel
    executor: Executor
    fall_through: bool
    questions: bool
    drafting: Tool | None
    own: Stage | None
    """The sentences the connected Home Assistant's own agent matches with: its failure is the
    one to say, as its agent would (None: no release known, the first failure is said)."""


@dataclass(frozen=True, slots=True)
class _Reading:
    """One stage's match of the sentence and what its intent's handler made of it."""

    match: LocalMatch
    result: IntentResult


@dataclass(frozen=True, slots=True)
class _Tried:
    """What the stages' readings came to when none of them ended the turn by itself.

    ``answered`` is the first that answered with something; ``empty`` the first question that
    a stage read as being about nothing in the home; ``failed`` the failure to say.
    """

    answered: _Reading | None
    empty: _Reading | None
    failed: _Reading | None


@dataclass(frozen=True, slots=True)
class _Mark:
    """Where the turn stood before any intent ran: when, and how many calls were held so far.

    A call held or refused after the mark is this turn's own.
    """

    started_at: datetime
    acted: float
    held_before: int
    refused_before: int


@dataclass(frozen=True, slots=True)
class _Said:
    """The reply, the tool result the model's history gets, and the gate's say on the call."""

    reply: str
    result: ToolResult
    decisions: tuple[Decision, ...]


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
    ask = _LocalAsk(
        matcher,
        text,
        context,
        trace,
        model,
        executor,
        fall_through,
        questions,
        drafting,
        release_stage(model.ha_version),
    )
    started = time.perf_counter()
    candidates = _candidates(ask)
    match = next(candidates, None)
    trace.timings["local_match"] = (time.perf_counter() - started) * 1000
    mark = _mark(context)
    tried = await _try_readings(ask, match, candidates)
    if not isinstance(tried, _Tried):
        return tried
    chosen = tried.answered or tried.empty
    if chosen is not None:
        return _acted_turn(ask, chosen, None, mark)
    return _unanswered(ask, tried.failed, mark)


def _candidates(ask: _LocalAsk) -> Iterator[LocalMatch]:
    """Each stage's reading of the request; tolerant of typos and shared names without a model.

    Worked out only as each is asked for (:meth:`LocalMatcher.candidates`).
    """
    context = ask.context
    return ask.matcher.candidates(
        ask.text,
        ask.model,
        preferred_area_id=context.area_id,
        language=context.language,
        tolerant=not ask.fall_through,
        ambiguous=not ask.fall_through,
    )


def _unanswered(ask: _LocalAsk, failed: _Reading | None, mark: _Mark) -> LocalTurn | None:
    """No reading answered: with a model the turn is the model's; without, a failure is said.

    None when there is nothing to say (no reading at all).
    """
    if ask.fall_through:
        if failed is not None:
            ask.trace.timings["local_miss"] = (time.perf_counter() - mark.acted) * 1000
        return None
    failed, said_instead = _failure_to_say(ask, failed)
    if failed is None:
        return None
    return _acted_turn(ask, failed, said_instead, mark)


def _mark(context: ToolContext) -> _Mark:
    """The turn's mark before its intents run (:class:`_Mark`)."""
    holds = context.holds
    return _Mark(
        started_at=datetime.now(UTC),
        acted=time.perf_counter(),
        held_before=len(holds.held) if holds is not None else 0,
        refused_before=len(holds.refused) if holds is not None else 0,
    )


async def _try_readings(
    ask: _LocalAsk, match: LocalMatch | None, candidates: Iterator[LocalMatch]
) -> LocalTurn | _Tried | None:
    """Run each stage's reading, ``match`` first, until one answers with something.

    A drafted automation, a handed-over or refused timer ends the turn at once (a turn); a
    question left to the model ends it with None. A failure or an empty answer tries the next
    stage's reading; what they came to is kept for the end of the turn.
    """
    failed: _Reading | None = None
    empty: _Reading | None = None
    while match is not None:
        if match.intent == DRAFT_AUTOMATION:
            drafted = await _drafted_turn(match, ask.context, ask.trace, ask.drafting)
            if drafted is not None:
                return drafted
            match = next(candidates, None)
            continue
        if match.intent in HANDED_TO_HOME_ASSISTANT:
            command = str(match.slots.get("conversation_command") or "")
            if command and not await _may_run_later(ask.matcher, command, ask.context):
                return _refused_turn(match, ask.context, ask.trace, ask.executor)
            return await _handed_turn(match, ask.text, ask.context, ask.trace, ask.executor)
        if ask.fall_through and not ask.questions and match.intent in QUESTIONS:
            return None
        context = ask.context
        result = await handle_intent(
            match.intent,
            match.slots,
            model=ask.model,
            executor=ask.executor,
            preferences=MatchTargetsPreferences(area_id=context.area_id, floor_id=context.floor_id),
            language=context.language,
            now=context.now,
        )
        reading = _Reading(match, result)
        if answered_locally(result) and not answered_nothing(result):
            return _Tried(reading, empty, failed)
        if answered_locally(result):
            empty = empty or reading
        elif failed is None or (match.stage is ask.own and failed.match.stage is not ask.own):
            failed = reading
        match = next(candidates, None)
    return _Tried(None, empty, failed)


def _failure_to_say(ask: _LocalAsk, failed: _Reading | None) -> tuple[_Reading | None, str | None]:
    """With no model to ask, the failure to record and, if it differs, the sentence to say.

    Nothing matched with the exposed names (or only a question we cannot answer for certain):
    Home Assistant's next stage tries the others, only to say which is not exposed; no handler
    runs for it, so nothing can act. A failure of sentences the connected release lacks is
    said as it would say it (:func:`_as_release_says`).
    """
    if failed is None or _uncertain(failed):
        context = ask.context
        hidden = ask.matcher.unexposed(
            ask.text, ask.model, preferred_area_id=context.area_id, language=context.language
        )
        said = (
            unexposed_failure(hidden.intent, hidden.slots, ask.model, hidden.language)
            if hidden is not None
            else None
        )
        if hidden is not None and said is not None:
            failed = _Reading(hidden, said)
    if failed is None or _uncertain(failed):
        return failed, None
    return _as_release_says(ask, failed)


def _acted_turn(
    ask: _LocalAsk, reading: _Reading, said_instead: str | None, mark: _Mark
) -> LocalTurn:
    """The turn of an intent that ran: its reply, its call as the model's would be, its trace.

    A question we could not answer is "I don't know that", unless the home says why for
    certain (no device of that name, several of it): then Home Assistant's sentence for it.
    """
    match, result, context = reading.match, reading.result, ask.context
    reply = (
        dont_know(context.language)
        if _uncertain(reading)
        else said_instead or render_speech(match, result)
    )
    call_id = _call_id()
    raw_arguments = json.dumps(match.slots, ensure_ascii=False, default=list)
    said = _gated(
        _Said(
            reply,
            ToolResult.of_intent(result),
            held_by_executor(match.intent, context.dry_run),
        ),
        context,
        mark,
    )
    outcome = ToolOutcome(
        name=match.intent,
        arguments=dict(match.slots),
        raw_arguments=raw_arguments,
        result=said.result,
        error=result.message if result.is_error else None,
        duration_ms=(time.perf_counter() - mark.acted) * 1000,
        executor=ask.executor.name,
        decisions=said.decisions,
        failure=result.failure,
    )
    ask.trace.tool_calls.append(ToolCallTrace(mark.started_at, call_id, outcome, None))
    ask.trace.timings["local_action"] = outcome.duration_ms
    if outcome.error is not None:
        ask.trace.error_kind = ErrorKind.INTENT_FAILED
    messages = _call_messages(call_id, match.intent, raw_arguments, said.result, said.reply)
    return LocalTurn(said.reply, messages, outcome, outcome.error)


def _gated(said: _Said, context: ToolContext, mark: _Mark) -> _Said:
    """What is said when the actor's rule refused the intent's call, or the policy held it."""
    holds = context.holds
    if holds is not None and len(holds.refused) > mark.refused_before:
        # The actor's rule refused the intent's call: nothing was done, and it says why.
        refused = holds.refused[mark.refused_before]
        return _Said(
            refused.spoken,
            said.result,
            (*said.decisions, Decision("refuse", refused.action, "actor", refused.reason)),
        )
    if holds is not None and len(holds.held) > mark.held_before:
        # The policy held the intent's call: nothing was done, the user is asked instead.
        held = tuple(holds.held[mark.held_before :])
        return _Said(
            question_for(held, context.language),
            HELD,
            (
                *said.decisions,
                Decision("confirm", held[0].action, "confirmation", "held until the user confirms"),
            ),
        )
    return said


def _call_id() -> str:
    """A fresh id for a locally made call, told apart from the model's by its prefix."""
    return "local_" + uuid.uuid4().hex[:12]


def _call_messages(
    call_id: str, name: str, raw_arguments: str, result: ToolResult, reply: str
) -> list[ChatMessage]:
    """A local turn in history as the model's would be: the call, its result, the reply."""
    return [
        AssistantMessage(None, (ToolCallRequest(call_id, name, raw_arguments),)),
        ToolMessage(call_id, as_data(result.text())),
        AssistantMessage(reply),
    ]


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
    call_id = _call_id()
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
    messages = _call_messages(call_id, match.intent, raw_arguments, outcome.result, reply)
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
    call_id = _call_id()
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
    messages = _call_messages(call_id, match.intent, raw_arguments, tool_result, reply)
    return LocalTurn(reply, messages, outcome, error)


def _as_release_says(ask: _LocalAsk, failed: _Reading) -> tuple[_Reading, str | None]:
    """What to say for a failure of sentences the connected Home Assistant does not have.

    Its agent never matched them (2026.11 dropped 2025.4's "lock all the doors"): it tries its
    own with the names not exposed, then with names the home lacks, and says what those find
    ("Sorry, I am not aware of any device called all the doors"). The first is a failure to
    record instead; the second only a sentence to say, and the failure that was found stays
    for the tool result, which explains more to a model. With nothing found there, or no
    release known, or the failure its own, the failure is said as it is: we say more than its
    catch-all "Sorry, I couldn't understand that".
    """
    own, model, context = ask.own, ask.model, ask.context
    if own is None or failed.match.stage is own:
        return failed, None
    hidden = ask.matcher.unexposed(
        ask.text, model, preferred_area_id=context.area_id, language=context.language, stage=own
    )
    said = (
        unexposed_failure(hidden.intent, hidden.slots, model, hidden.language)
        if hidden is not None
        else None
    )
    if hidden is not None and said is not None:
        return _Reading(hidden, said), None
    unknown = ask.matcher.unknown_names(
        ask.text, model, own, preferred_area_id=context.area_id, language=context.language
    )
    if unknown is None or not unknown.unmatched.keys() & {"name", "area", "floor"}:
        return failed, None  # its catch-all: ours says more
    speech = spoken_unknown(
        unknown.unmatched, unknown.matched, unknown.templates, unknown.intent, unknown.language
    )
    return failed, speech


def _uncertain(reading: _Reading) -> bool:
    """A question not answered, with no failure of matching that says why."""
    result = reading.result
    return (
        reading.match.intent in QUESTIONS
        and not answered_locally(result)
        and result.failure is None
    )


def _whole(value: object) -> int:
    """An hour or minute slot (its digits or a number) as a number; 0 when not given."""
    return int(value or 0) if isinstance(value, int | float | str) else 0


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
    draft = _draft(match, entity_id, name, context.language)
    started_at = datetime.now(UTC)
    holds = context.holds
    held_before = len(holds.held) if holds is not None else 0
    raw_arguments = json.dumps(draft.arguments, ensure_ascii=False)
    outcome = await ToolRegistry([drafting]).execute(drafting.name, raw_arguments, context)
    if holds is not None and len(holds.held) > held_before:
        reply = question_for(tuple(holds.held[held_before:]), context.language)
    elif outcome.ok and outcome.result.succeeded:
        reply = automation_words(context.language).on_the_page.format(summary=draft.summary)
    elif outcome.error and any(d.rule == "actor" for d in outcome.decisions):
        reply = outcome.error  # their rule forbids what it would do, said in their words
    else:
        reply = messages_for(context.language).could_not_do
        trace.error_kind = ErrorKind.INTENT_FAILED
    call_id = _call_id()
    trace.tool_calls.append(ToolCallTrace(started_at, call_id, outcome, None))
    messages = _call_messages(call_id, drafting.name, raw_arguments, outcome.result, reply)
    return LocalTurn(reply, messages, outcome, outcome.error)


@dataclass(frozen=True, slots=True)
class _Draft:
    """A time-of-day automation as ``draft_automation`` takes it, and how it is summed up."""

    arguments: dict[str, object]
    summary: str


def _draft(match: LocalMatch, entity_id: str, name: str, language: str) -> _Draft:
    """The automation the sentence's slots describe for its one device, ``entity_id``.

    It runs the service at the hour every day, or only on weekdays or at the weekend.
    """
    service = _one_of(match.slots.get("service")) or "turn_on"
    days = _one_of(match.slots.get("days")) or "daily"
    hour, minute = _whole(match.slots.get("hour")), _whole(match.slots.get("minute"))
    summary = time_automation_summary(language, days, hour, minute, service, name)
    conditions: list[dict[str, object]] = []
    if days in ("weekdays", "weekend"):
        chosen = WEEKDAYS if days == "weekdays" else ("sat", "sun")
        conditions.append({"condition": "time", "weekday": list(chosen)})
    action = f"{entity_id.partition('.')[0]}.{service}"
    arguments: dict[str, object] = {
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
    return _Draft(arguments, summary)
