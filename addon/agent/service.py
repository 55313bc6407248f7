"""The agent: one conversation turn from text to reply, recorded and observable.

Order of work for a turn: find the conversation (given id, the device's recent one, or a new one),
try Home Assistant's sentence matcher locally, otherwise recall the relevant memories and run the
model's tool loop, store the turn with its trace (committed before the reply goes out: an
answered turn is a stored turn), then — off the reply's path — fire Home
Assistant events, run the outcome check and let memory learn from the turn. Events are queued as
the turn goes (:mod:`addon.agent.events`) and fired in order by their own task.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from addon.agent.confirm import (
    PIN_MASK,
    Pending,
    PendingConfirmations,
    answer_of,
    expired,
    question_for,
    reply_for,
)
from addon.agent.context import HomeContext, HomePrefix, TurnContext
from addon.agent.continuation import DeviceConversations
from addon.agent.conversation import (
    ActionSummary,
    ConversationRequest,
    ConversationResult,
    HandledBy,
    OfferedTool,
    ToolCall,
    ToolCallResult,
)
from addon.agent.events import (
    CONFIRMATION_CANCELLED,
    CONFIRMATION_CONFIRMED,
    CONFIRMATION_REQUESTED,
    CONVERSATION_STARTED,
    ERROR,
    MEMORY_EXTRACTED,
    EventOutbox,
    EventSink,
    ToolProgressEvents,
    confirmation_event,
    crashed_event,
    finished_events,
    memory_extracted_event,
    started_event,
)
from addon.agent.expert import ExpertTool
from addon.agent.history import ConversationHistory
from addon.agent.learning import exchange_for
from addon.agent.local_turn import run_local_turn
from addon.agent.loop import run_tool_loop
from addon.agent.outcome import acting_targets, check_outcome
from addon.agent.prompt import (
    PromptInputs,
    PromptPreview,
    build_system_prompt,
    timed_user_content,
    turn_context_block,
    turn_user_content,
    user_words,
)
from addon.agent.recording import turn_record
from addon.agent.spoken import SpokenStream, spoken_reply
from addon.agent.state_record import RecordingExecutor
from addon.agent.tool_budget import budgeted
from addon.agent.trace import ToolCallTrace, TurnTrace
from addon.config.settings import Options
from addon.embeddings.source import EmbeddingSource
from addon.errors import ErrorKind, HomeAgentError
from addon.home.actions.executor import Executor
from addon.home.actions.virtual import VirtualExecutor
from addon.home.confirmation import (
    ConfirmationPolicy,
    ConfirmingExecutor,
    Holds,
    perform,
)
from addon.home.gate import executor_for
from addon.home.model import HomeModel
from addon.i18n.translations import messages_for
from addon.llm.client import LLMClient, TextSink
from addon.llm.fallback import Fallback
from addon.local.matcher import LocalMatcher
from addon.memory.extraction import Exchange
from addon.memory.records import AfterTurn, RecalledMemory, RecallRequest, TurnSource
from addon.memory.service import MemoryService
from addon.store.conversations import OutcomeUpdate
from addon.store.records import ConversationRecords
from addon.tools.base import ActedTarget, Tool, ToolContext
from addon.tools.home_tools import build_registry
from addon.tools.memory import MEMORY_TOOL_NAMES, memory_tools, told_memory_ids
from addon.tools.registry import ToolOutcome, ToolRegistry
from addon.tools.search_tool import SEARCH_TOOL, SearchEntitiesTool

_LOGGER = logging.getLogger(__name__)

OUTCOME_DELAY_S = 2.0


def _utc_now() -> datetime:
    return datetime.now(UTC)


class HomeSource(Protocol):
    """Where the current home model comes from (the live sync, or a fixed model in tests)."""

    @property
    def model(self) -> HomeModel | None:
        """The current model, or None before the first snapshot."""

    async def fresh(self) -> HomeModel | None:
        """The model once the changes Home Assistant reported are in it (a bounded wait)."""


@dataclass(slots=True)
class Agent:
    """Runs turns; every collaborator is passed in so tests build it from real parts."""

    options: Options
    records: ConversationRecords
    home: HomeSource
    live_executor: Executor | None
    llm: LLMClient | None = None
    fallback: Fallback | None = None
    """The backup endpoint, asked when ``llm`` fails (:mod:`addon.llm.fallback`)."""
    expert: LLMClient | None = None
    """The expert model, offered to ``llm`` as the ``ask_expert`` tool when set."""
    local: LocalMatcher | None = None
    events: EventSink | None = None
    extra_tools: Callable[[], list[Tool]] = list
    custom_tools: Callable[[], Awaitable[list[Tool]]] | None = None
    """The user's enabled custom tools, asked for on every turn (they change without restarts)."""
    memory: MemoryService | None = None
    """Long-term memory: recall into requests, the memory tools, learning after turns; None off."""
    tool_providers: tuple[Callable[[], Awaitable[list[Tool]]], ...] = ()
    """More tools asked for on every turn, after the custom ones (MCP servers' tools, memory).

    Whatever a provider gives joins the model's registry and, through :meth:`offered_tools`
    and :meth:`call_tool`, every endpoint that offers the agent's tools (the MCP server).
    """
    outcome_delay: float = OUTCOME_DELAY_S
    # The time turns are stamped with and session_timeout is measured by; tests pass their own.
    clock: Callable[[], datetime] = _utc_now
    embedder: EmbeddingSource | None = None
    """Embeds requests and entities for a large home's context selection; lexical without."""
    confirmation: Callable[[], ConfirmationPolicy] | None = None
    """The user's confirmation policy as it stands (kept in memory by the store); None: none."""
    history: ConversationHistory = field(init=False)
    _home_context: HomeContext = field(init=False)
    _background: set[asyncio.Task[None]] = field(init=False, default_factory=set)
    _events: EventOutbox = field(init=False)
    _devices: DeviceConversations = field(init=False, default_factory=DeviceConversations)
    _memory_tools: list[Tool] = field(init=False, default_factory=list)
    _pending: PendingConfirmations = field(init=False, default_factory=PendingConfirmations)

    def __post_init__(self) -> None:
        self.history = ConversationHistory(self.records, max_turns=self.options.history_turns)
        self._events = EventOutbox(self.events)
        if self.memory is not None:
            self._memory_tools = memory_tools(self.memory)
        self._home_context = HomeContext(self.options.overview_token_budget, self.embedder)

    async def process(
        self, request: ConversationRequest, *, on_text: TextSink | None = None
    ) -> ConversationResult:
        """Handle one utterance; never raises for anything the user or the model did."""
        with self.records.answering():
            try:
                return await self._process(request, on_text)
            except Exception as err:  # reported to Home Assistant too, then the endpoint's
                self._events.emit(ERROR, crashed_event(request, err))
                raise

    async def _process(
        self, request: ConversationRequest, on_text: TextSink | None
    ) -> ConversationResult:
        started = time.perf_counter()
        created_at = self.clock()
        language = request.language or self.options.language
        # The option wins: with it on nothing acts for real, whatever a request asks; a request
        # may still ask for a dry run with the option off.
        dry_run = self.options.dry_run or request.dry_run is True
        conversation_id, is_new = await self._conversation_id(request, created_at)
        async with self.history.lock(conversation_id):
            said = request.text
            pending = self._pending.waiting(conversation_id, request.device_id)
            if pending is not None:
                self._pending.take(conversation_id)
                if pending.pin:
                    # A PIN is never stored, traced, fired or logged: masked before anything.
                    request = dataclasses.replace(request, text=PIN_MASK)
            # Inside the lock, and the end's events are queued before the next holder runs (no
            # await after the lock): events of one conversation's turns never interleave.
            self._events.emit(
                CONVERSATION_STARTED, started_event(request, conversation_id, language, dry_run)
            )
            history = [] if is_new else await self.history.messages(conversation_id)
            model = await self.home.fresh()
            trace = TurnTrace()
            context = self._context(model, language, created_at, request.device_id, dry_run)
            spoken = SpokenStream(on_text) if on_text is not None else None
            answered = (
                await self._answer_pending(pending, said, request, context, trace, spoken)
                if pending is not None
                else None
            )
            if answered is None:
                answered = await self._answer(
                    request,
                    context,
                    history,
                    trace,
                    spoken,
                    ToolProgressEvents(self._events, conversation_id),
                )
            reply, messages, handled_by, error, outcomes = answered
            needs_confirmation = self._held(conversation_id, request, context, trace, created_at)
            if spoken is not None:
                # What was streamed is what was answered (an apology after streamed text, too).
                await spoken.complete(reply)
            if isinstance(context.executor, RecordingExecutor):
                trace.states = context.executor.states()
            trace.timings["total"] = (time.perf_counter() - started) * 1000
            record = turn_record(
                request=request,
                conversation_id=conversation_id,
                language=language,
                created_at=created_at,
                reply=reply,
                handled_by=handled_by,
                dry_run=dry_run,
                error=error,
                messages=messages,
                trace=trace,
            )
            if not dry_run and handled_by != "failed" and not acting_targets(outcomes):
                # Nothing to wait for: a turn that did not act is judged by its words alone,
                # and the verdict is stored with the turn instead of in a second write.
                verdict = check_outcome(outcomes, reply, lambda _entity_id: None, language=language)
                record.outcome, record.outcome_detail = verdict.outcome, verdict.detail
                record.flagged = verdict.flagged
            # The id is ours now; the row is written with every turn finishing meanwhile, in
            # one transaction (addon.store.writer), awaited below, outside the lock.
            added = await self.records.add_turn(record)
            turn_id = added.turn_id
            self.history.append(conversation_id, record.messages)
            self._devices.note(request.device_id, request.satellite_id, conversation_id, created_at)
        await _committed(added.committed, turn_id)
        result = ConversationResult(
            reply=reply,
            conversation_id=conversation_id,
            turn_id=turn_id,
            handled_by=handled_by,
            actions=[_summary(outcome) for outcome in outcomes],
            # A held action waits for the answer: the satellite listens again.
            continue_conversation=reply.rstrip().endswith("?") or needs_confirmation is not None,
            error=error,
            prompt_tokens=trace.prompt_tokens,
            completion_tokens=trace.completion_tokens,
            error_kind=trace.error_kind,
            needs_confirmation=needs_confirmation,
        )
        self._after_turn(result, request, trace, outcomes, dry_run, history)
        return result

    def _held(
        self,
        conversation_id: str,
        request: ConversationRequest,
        context: ToolContext,
        trace: TurnTrace,
        created_at: datetime,
    ) -> dict[str, Any] | None:
        """Keep what the turn held for the user's next words; its ``needs_confirmation``."""
        holds = context.holds
        if holds is None or not holds.held:
            return None
        pending = Pending(conversation_id, request.device_id, tuple(holds.held), created_at)
        self._pending.hold(pending, self.options.confirmation_timeout)
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

    async def _answer_pending(
        self,
        pending: Pending,
        said: str,
        request: ConversationRequest,
        context: ToolContext,
        trace: TurnTrace,
        spoken: SpokenStream | None,
    ) -> tuple[str, list[dict[str, Any]], HandledBy, str | None, list[ToolOutcome]] | None:
        """The user's answer to a held action: perform it, cancel it, or None when it expired.

        Only here is a held action performed, and only from the user's own words: a tool call
        never reaches this. It runs through the turn's plain executor (virtual in a dry run).
        """
        detail = pending.as_dict()
        at = self.clock()
        conversation_id = pending.conversation_id
        if expired(pending, at, self.options.confirmation_timeout):
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
        executor = self._executor(context.home, context.dry_run)
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
        status = "Confirmed" if answer == "confirmed" and error is None else "Cancelled"
        outcome = dataclasses.replace(
            _status(status, detail, executor.name if executor else "none"), acted=acted, error=error
        )
        trace.tool_calls.append(ToolCallTrace(at, "confirmation", outcome, None))
        event = CONFIRMATION_CONFIRMED if status == "Confirmed" else CONFIRMATION_CANCELLED
        self._events.emit(
            event,
            confirmation_event(
                conversation_id, request.device_id, detail, answer if error is None else "failed"
            ),
        )
        if spoken is not None:
            await spoken.send(reply)
        messages = [
            {"role": "user", "content": request.text},
            {"role": "assistant", "content": reply},
        ]
        return reply, messages, "local", error, [outcome]

    async def _answer(
        self,
        request: ConversationRequest,
        context: ToolContext,
        history: list[dict[str, Any]],
        trace: TurnTrace,
        spoken: SpokenStream | None,
        progress: ToolProgressEvents,
    ) -> tuple[str, list[dict[str, Any]], HandledBy, str | None, list[ToolOutcome]]:
        """Answer locally or through the model; the messages returned start with the user's."""
        model = context.home
        user_message = {"role": "user", "content": request.text}
        if self.options.local_first and self.local is not None and model is not None:
            local = await run_local_turn(
                self.local,
                request.text,
                context,
                trace,
                fall_through=self.llm is not None,
                questions=self.options.local_questions,
            )
            if local is not None:
                if spoken is not None:
                    await spoken.send(local.reply)
                messages = [user_message, *local.messages]
                return local.reply, messages, "local", local.error, [local.outcome]
        if self.llm is None:
            trace.error_kind = ErrorKind.NO_MODEL if model is not None else ErrorKind.NOT_CONNECTED
            reply = messages_for(context.language).for_error(trace.error_kind)
            if spoken is not None:
                await spoken.send(reply)
            messages = [user_message, {"role": "assistant", "content": reply}]
            return reply, messages, "failed", "no model", []
        prompt_started = time.perf_counter()
        prefix = self._home_context.prefix(model) if model is not None else None
        registry = await self._registry(model, trace, search=prefix is not None and prefix.large)
        system = self._system_prompt(
            prefix, model.areas[context.area_id].name if model and context.area_id else None
        )
        trace.timings["prompt"] = (time.perf_counter() - prompt_started) * 1000
        recalled = await self._recall(request.text, context, history, trace)
        # The time, the memories and a large home's devices change every turn, so they ride on
        # the user's message, after the system prompt and the tools: both stay byte-identical and
        # a prefix cache holds. History keeps the message with its time and memories (the next
        # turn starts with the same bytes) but without the devices, as each turn selects its own.
        user_message = {
            "role": "user",
            "content": timed_user_content(request.text, context.now, recalled),
        }
        selected = await self._turn_context(
            request,
            context,
            history,
            prefix,
            memory_entity_ids=[entity for memory in recalled for entity in memory.entity_ids],
        )
        blocks = [turn_context_block(selected.text)] if selected is not None else []
        if self.options.tool_budget and model is not None:
            # A small home lists everything in the prompt; the selection here picks tools only.
            chosen = selected or await self._home_context.select(
                model, request.text, speaker_area_id=context.area_id, history=history
            )
            registry = budgeted(registry, chosen.selection)
        sent_message = {
            "role": "user",
            "content": turn_user_content(request.text, context.now, blocks, recalled),
        }
        loop_started = time.perf_counter()
        result = await run_tool_loop(
            llm=self.llm,
            messages=[{"role": "system", "content": system}, *history, sent_message],
            registry=registry,
            context=context,
            trace=trace,
            max_iterations=self.options.max_tool_iterations,
            stream=spoken is not None,
            spoken=spoken,
            progress=progress,
            fallback=self.fallback,
        )
        trace.timings["loop"] = (time.perf_counter() - loop_started) * 1000
        if selected is not None and model is not None:
            trace.context = selected.trace(
                self._home_context.index(model), _searched(result.outcomes)
            )
        handled_by: HandledBy = "failed" if result.error and not result.outcomes else "llm"
        final = result.reply
        if context.holds is not None and context.holds.held:
            # The loop stopped at the held call: the question is the agent's, not the model's.
            final = question_for(tuple(context.holds.held), context.language)
            if spoken is not None:
                await spoken.message_sink()(final)
        # Text the model wrote beside its tool calls was streamed out: the reply holds it too.
        reply = spoken_reply(result.messages, final)
        messages = [user_message, *result.messages]
        if messages[-1].get("role") != "assistant" or messages[-1].get("tool_calls"):
            # Failed or cut-off turns still end, in history, with what the user was told.
            messages = [*messages, {"role": "assistant", "content": final}]
        return reply, messages, handled_by, result.error, result.outcomes

    async def _recall(
        self,
        text: str,
        context: ToolContext,
        history: list[dict[str, Any]],
        trace: TurnTrace,
    ) -> tuple[RecalledMemory, ...]:
        """The memories for this turn's request; a failing store costs the turn its memories."""
        if self.memory is None:
            return ()
        started = time.perf_counter()
        model = context.home
        earlier = next(
            (
                user_words(message["content"])
                for message in reversed(history)
                if message.get("role") == "user" and isinstance(message.get("content"), str)
            ),
            "",
        )
        try:
            recalled = await self.memory.recall(
                RecallRequest(
                    utterance=text,
                    area=model.areas[context.area_id].name if model and context.area_id else None,
                    history=earlier,
                )
            )
        except Exception:  # the turn goes on without memories
            _LOGGER.exception("Could not recall memories; this turn goes without them")
            recalled = ()
        trace.recalled_memories = tuple(memory.id for memory in recalled)
        trace.timings["memory"] = (time.perf_counter() - started) * 1000
        return recalled

    async def offered_tools(
        self, *, exclude_kinds: frozenset[str] = frozenset()
    ) -> list[OfferedTool]:
        """The tools a turn would offer the model now, less those of ``exclude_kinds``."""
        registry = await self._registry(await self.home.fresh(), TurnTrace())
        return [
            OfferedTool(tool.name, tool.description, tool.parameters, tool.kind)
            for tool in registry.tools()
            if tool.kind not in exclude_kinds
        ]

    async def call_tool(
        self, call: ToolCall, *, exclude_kinds: frozenset[str] = frozenset()
    ) -> ToolCallResult:
        """Run one tool as the model would call it, and record the call as a turn of its own.

        The same registry, exposure rules, executor and dry run as a turn's tool loop; the turn
        is stored under a new conversation with ``handled_by`` ``tool``, its one tool call in
        the trace, so the panel shows who called what and what it did. A tool of
        ``exclude_kinds`` is unknown here, as if it were not offered.
        """
        with self.records.answering():
            started = time.perf_counter()
            created_at = self.clock()
            language = call.language or self.options.language
            dry_run = self.options.dry_run or call.dry_run is True
            model = await self.home.fresh()
            context = self._context(model, language, created_at, None, dry_run)
            trace = TurnTrace()
            registry = await self._registry(model, trace)
            if call.name in registry and registry.get(call.name).kind in exclude_kinds:
                registry = ToolRegistry(
                    tool for tool in registry.tools() if tool.kind not in exclude_kinds
                )
            arguments = json.dumps(call.arguments, ensure_ascii=False)
            outcome = await registry.execute(call.name, arguments, context)
            summary = _summary(outcome)
            trace.tool_calls.append(ToolCallTrace(created_at, "direct", outcome, None))
            trace.timings["total"] = (time.perf_counter() - started) * 1000
            conversation_id = uuid.uuid4().hex
            reply = json.dumps(outcome.result, ensure_ascii=False, default=str)
            record = turn_record(
                request=ConversationRequest(
                    text=f"{call.name} {arguments}", source=call.source, language=language
                ),
                conversation_id=conversation_id,
                language=language,
                created_at=created_at,
                reply=reply,
                handled_by="tool",
                dry_run=dry_run,
                error=None if summary.success else (summary.error or "failed"),
                messages=[],
                trace=trace,
            )
            added = await self.records.add_turn(record)
            turn_id = added.turn_id
        await _committed(added.committed, turn_id)
        if not dry_run and acting_targets([outcome]):
            self._spawn(self._check(turn_id, reply, [outcome], language))
        return ToolCallResult(
            result=outcome.result,
            error=None if summary.success else (summary.error or "failed"),
            conversation_id=conversation_id,
            turn_id=turn_id,
            dry_run=dry_run,
        )

    async def _registry(
        self, model: HomeModel | None, trace: TurnTrace, *, search: bool = False
    ) -> ToolRegistry:
        """The turn's tools: the home's, GetDateTime, memory, the expert, custom, the providers'.

        The memory tools never change, so they go before the user's custom tools, which do;
        the expert's calls are traced into ``trace``. ``search`` adds ``SearchEntities`` for a
        home too large for the prompt's overview.
        """
        extra = [*self.extra_tools(), *self._memory_tools]
        if search:
            extra = [SearchEntitiesTool(self._home_context.index), *extra]
        if self.expert is not None:
            extra = [*extra, ExpertTool(self.expert, trace)]
        if self.custom_tools is not None:
            extra = [*extra, *await self.custom_tools()]
        for provider in self.tool_providers:
            try:
                extra = [*extra, *await provider()]
            except Exception:  # a provider that fails costs the turn its tools, not the turn
                _LOGGER.exception("A tool provider failed; this turn goes without its tools")
        return build_registry(model, extra)

    def _context(
        self,
        model: HomeModel | None,
        language: str,
        created_at: datetime,
        device_id: str | None,
        dry_run: bool,
    ) -> ToolContext:
        area_id = self._device_area(model, device_id)
        executor = self._executor(model, dry_run)
        holds = self._holds(model)
        if holds is not None and executor is not None:
            executor = ConfirmingExecutor(executor, holds)
        if executor is not None and model is not None:
            # Outermost, so the states a turn touches are noted whoever holds the call.
            executor = RecordingExecutor(executor, model)
        return ToolContext(
            home=model,
            executor=executor,
            holds=holds,
            language=language,
            now=self._now(model, created_at),
            device_id=device_id,
            area_id=area_id,
            floor_id=model.areas[area_id].floor_id if model and area_id else None,
            dry_run=dry_run,
        )

    def _holds(self, model: HomeModel | None) -> Holds | None:
        """The turn's confirmation policy, naming entities from the home model."""
        if self.confirmation is None:
            return None

        def describe(entity_id: str) -> tuple[str | None, str]:
            entity = model.entity(entity_id) if model is not None else None
            return (entity.device_class, entity.name) if entity is not None else (None, entity_id)

        return Holds(self.confirmation(), describe)

    def prompt_preview(self) -> PromptPreview:
        """The system prompt as a turn from no particular area would send it now.

        What the settings page shows: asked of the agent, so it is the prompt turns really send.
        """
        model = self.home.model
        prefix = self._home_context.prefix(model) if model is not None else None
        overview = prefix.overview if prefix is not None else None
        return PromptPreview(self._system_prompt(prefix, None), overview)

    def _system_prompt(self, prefix: HomePrefix | None, area_name: str | None) -> str:
        return build_system_prompt(
            PromptInputs(
                static_overview=prefix.overview if prefix is not None else None,
                extra_instructions=self.options.extra_instructions,
                area_name=area_name,
                large_home=prefix is not None and prefix.large,
            )
        )

    async def _turn_context(
        self,
        request: ConversationRequest,
        context: ToolContext,
        history: list[dict[str, Any]],
        prefix: HomePrefix | None,
        memory_entity_ids: Sequence[str] = (),
    ) -> TurnContext | None:
        """A large home's devices for this request, listed after the cached prefix.

        None while the whole overview fits the budget (it is in the prompt already).
        ``memory_entity_ids`` are the entities named by the memories recalled for the turn.
        """
        if prefix is None or not prefix.large or context.home is None:
            return None
        return await self._home_context.select(
            context.home,
            request.text,
            speaker_area_id=context.area_id,
            history=history,
            memory_entity_ids=memory_entity_ids,
        )

    async def _conversation_id(
        self, request: ConversationRequest, now: datetime
    ) -> tuple[str, bool]:
        """The conversation to continue, and whether it is one this call just made up."""
        if request.conversation_id:
            # An id the store has never seen starts a conversation: no history to read.
            return request.conversation_id, not self.records.known(request.conversation_id)
        timeout = self.options.session_timeout
        if request.device_id or request.satellite_id:
            since = (
                now - timedelta(seconds=timeout) if timeout else datetime.min.replace(tzinfo=UTC)
            )
            latest = self._devices.lookup(request.device_id, request.satellite_id)
            if latest is not None:
                conversation_id, at = latest
                return (conversation_id, False) if at >= since else (uuid.uuid4().hex, True)
            recent = await self.records.recent_conversation(
                device_id=request.device_id, satellite_id=request.satellite_id, since=since
            )
            if recent is not None:
                return recent, False
        return uuid.uuid4().hex, True

    def _executor(self, model: HomeModel | None, dry_run: bool) -> Executor | None:
        """The turn's executor: the gate's choice of live or virtual."""
        if model is None:
            return None
        return executor_for(dry_run, self.live_executor, lambda: VirtualExecutor(model.copy()))

    @staticmethod
    def _device_area(model: HomeModel | None, device_id: str | None) -> str | None:
        if model is None or device_id is None:
            return None
        device = model.devices.get(device_id)
        return device.area_id if device is not None else None

    @staticmethod
    def _now(model: HomeModel | None, at: datetime) -> datetime:
        zone_name = model.config.get("time_zone") if model is not None else None
        try:
            zone = ZoneInfo(zone_name) if isinstance(zone_name, str) else UTC
        except ZoneInfoNotFoundError:
            zone = UTC
        return at.astimezone(zone)

    def _after_turn(
        self,
        result: ConversationResult,
        request: ConversationRequest,
        trace: TurnTrace,
        outcomes: list[ToolOutcome],
        dry_run: bool,
        history: list[dict[str, Any]],
    ) -> None:
        for event_type, data in finished_events(request, result, trace):
            self._events.emit(event_type, data)
        # A dry run changed nothing in Home Assistant, so there is nothing to compare; a turn
        # that acted on nothing was judged when it was stored.
        if not dry_run and result.handled_by != "failed" and acting_targets(outcomes):
            self._spawn(
                self._check(
                    result.turn_id,
                    result.reply,
                    outcomes,
                    request.language or self.options.language,
                )
            )
        if self.memory is None:
            return
        # Learned from: the model's turns that acted for real, unless the user already said what
        # to remember or forget (the tools did it; extraction would only repeat it).
        extract = (
            self.memory.learns
            and not dry_run
            and result.handled_by == "llm"
            and not any(outcome.name in MEMORY_TOOL_NAMES for outcome in outcomes)
        )
        told = told_memory_ids(outcomes)
        if extract or told or trace.recalled_memories:
            exchange = (
                exchange_for(request.text, result.reply, outcomes, history) if extract else None
            )
            self._spawn(self._learn(result, trace.recalled_memories, told, exchange))

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _check(
        self, turn_id: int, reply: str, outcomes: list[ToolOutcome], language: str
    ) -> None:
        try:
            await asyncio.sleep(self.outcome_delay)

            def read_state(entity_id: str) -> str | None:
                model = self.home.model
                state = model.state(entity_id) if model is not None else None
                return state.state if state is not None else None

            verdict = check_outcome(outcomes, reply, read_state, language=language)
            await self.records.add_outcome(
                OutcomeUpdate(turn_id, verdict.outcome, verdict.detail, verdict.flagged)
            )
            if verdict.flagged:
                _LOGGER.warning("Turn %s flagged by the outcome check: %s", turn_id, verdict.detail)
        except Exception:
            _LOGGER.exception("Outcome check of turn %s failed", turn_id)

    async def _learn(
        self,
        result: ConversationResult,
        recalled: tuple[int, ...],
        told: tuple[int, ...],
        exchange: Exchange | None,
    ) -> None:
        """Off the reply's path: extract, then link and keep once the turn itself is stored.

        Nothing here can fail the turn: it is answered and handed to the store already.
        """
        assert self.memory is not None
        try:
            extraction = await self.memory.extract(exchange) if exchange is not None else None
            # The links and the extraction's trace name the turn's row: it must be written.
            stored = await self.records.settle()
            if not stored:
                _LOGGER.warning(
                    "Turn %s is not stored yet; memory keeps what it learned without linking it",
                    result.turn_id,
                )
            source = TurnSource(result.conversation_id, result.turn_id) if stored else None
            learned = await self.memory.after_turn(AfterTurn(source, recalled, told, extraction))
        except Exception:
            _LOGGER.exception("Memory could not learn from turn %s", result.turn_id)
            return
        if extraction is None:
            return
        if learned.error is not None:
            _LOGGER.warning(
                "Memory extraction after turn %s failed: %s", result.turn_id, learned.error
            )
        self._events.emit(
            MEMORY_EXTRACTED,
            memory_extracted_event(result.conversation_id, result.turn_id, learned),
        )

    async def drain(self, *, cancel: bool = False) -> None:
        """Wait for background work (events, outcome checks) and its writes, or cancel it.

        Shutdown cancels: an outcome check still waiting for Home Assistant's report is not worth
        holding a restart for, and the turn itself was stored before it was answered.
        """
        while self._background:
            tasks = list(self._background)
            if cancel:
                for task in tasks:
                    task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            # Their done-callbacks may not have run yet (awaiting finished tasks need not yield
            # to the loop), so forget them here; tasks they spawned meanwhile are still seen.
            self._background.difference_update(tasks)
        await self._events.drain(cancel=cancel)
        if not cancel:
            await self.records.settle()


async def _committed(committed: asyncio.Future[bool], turn_id: int) -> None:
    """Wait until the turn's transaction committed: an answered turn is a stored turn.

    Shielded, so a caller that goes away (a closed connection) does not take the commit's
    future with it. A turn the store can never hold is answered all the same, with an error in
    the log: the user is owed the answer to what was done.
    """
    if not await asyncio.shield(committed):
        _LOGGER.error("Turn %s was answered but could not be stored", turn_id)


def _searched(outcomes: list[ToolOutcome]) -> list[str]:
    """Entity ids the model's ``SearchEntities`` calls found, for the trace's selection."""
    found: list[str] = []
    for outcome in outcomes:
        if outcome.name == SEARCH_TOOL and outcome.detail is not None:
            found.extend(str(e) for e in outcome.detail.get("entity_ids", ()))
    return found


def _status(status: str, detail: dict[str, Any], executor: str = "gate") -> ToolOutcome:
    """The trace's line for a held action: held, confirmed, cancelled or expired."""
    return ToolOutcome(
        name="confirmation",
        arguments=detail,
        raw_arguments="",
        result={"confirmation": status, **detail},
        error=None,
        duration_ms=0.0,
        executor=executor,
    )


def _summary(outcome: ToolOutcome) -> ActionSummary:
    data = outcome.result.get("data", {}) if isinstance(outcome.result.get("data"), dict) else {}
    targets = [t.get("id", "") for t in data.get("success", []) if isinstance(t, dict)]
    success = (
        outcome.ok
        and outcome.result.get("response_type") != "error"
        and (outcome.result.get("success", True) is not False)
    )
    return ActionSummary(
        tool=outcome.name,
        arguments=outcome.arguments,
        success=success,
        targets=targets,
        error=outcome.error or outcome.result.get("error_text"),
    )
