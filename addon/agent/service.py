"""The agent: one conversation turn from text to reply, recorded and observable.

:class:`Agent` keeps the turn's order of work and the state that outlives a turn; each step is
a module of its own:

1. find the conversation (:mod:`addon.agent.continuation`) and set the turn up
   (:mod:`addon.agent.turn_setup`);
2. answer: a held action's confirmation (:mod:`addon.agent.confirming`), Home Assistant's
   sentence matcher locally (:mod:`addon.agent.local_turn`), or the model with recalled
   memories and its tool loop (:mod:`addon.agent.model_path`, :mod:`addon.agent.loop`);
3. record the turn with its trace, committed before the reply goes out: an answered turn is a
   stored turn (:mod:`addon.agent.recording`);
4. off the reply's path, fire Home Assistant events, run the outcome check and let memory
   learn from the turn (:mod:`addon.agent.after_turn`).

Events are queued as the turn goes (:mod:`addon.agent.events`) and fired in order by their own
task. A tool an endpoint calls directly is :mod:`addon.agent.direct_call`.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from addon.agent.after_turn import AfterTurnWork, FinishedTurn, verdict_without_acting
from addon.agent.answer import Answer, action_summary, missed_on_exposure
from addon.agent.confirm import Pending, supersedes
from addon.agent.confirming import Confirmations
from addon.agent.context import HomeContext
from addon.agent.continuation import ConversationFinder, FoundConversation
from addon.agent.conversation import (
    ConversationRequest,
    ConversationResult,
    OfferedTool,
    ToolCall,
    ToolCallResult,
)
from addon.agent.direct_call import DirectCall, call_directly
from addon.agent.events import (
    CONVERSATION_STARTED,
    ERROR,
    EventOutbox,
    EventSink,
    ToolProgressEvents,
    crashed_event,
    started_event,
)
from addon.agent.history import ConversationHistory
from addon.agent.local_turn import run_local_turn
from addon.agent.model_path import ModelPath
from addon.agent.prompt import PromptPreview
from addon.agent.recording import committed, turn_record
from addon.agent.spoken import SpokenStream
from addon.agent.state_record import RecordingExecutor
from addon.agent.toolbox import Toolbox, ToolProvider
from addon.agent.trace import TurnTrace
from addon.agent.truth import FailureSpeech
from addon.agent.turn_setup import TurnSetup
from addon.config.settings import Options
from addon.embeddings.source import EmbeddingSource
from addon.errors import ErrorKind
from addon.home.actions.actor import Actor, resolve_actor
from addon.home.actions.confirmation import ConfirmationPolicy, Holds, Method
from addon.home.actions.executor import Executor
from addon.home.actions.impact import ImpactCache
from addon.home.actions.permissions import ActorRules
from addon.home.model.live import HomeModel
from addon.i18n.translations import messages_for
from addon.llm.client import LLMClient, TextSink
from addon.llm.fallback import Fallback
from addon.llm.messages import AssistantMessage, ChatMessage, UserMessage
from addon.local.failure_speech import spoken_match_failure
from addon.local.matcher import LocalMatcher
from addon.memory.service import MemoryService
from addon.store.turns import ConversationRecords, TurnRecord
from addon.text import JsonObject, JsonValue
from addon.tools.automation import DRAFT_TOOL
from addon.tools.base import Tool, ToolContext
from addon.tools.memory import memory_tools
from addon.tools.registry import ToolOutcome

OUTCOME_DELAY_S = 2.0


def _utc_now() -> datetime:
    return datetime.now(UTC)


def actor_of(request: ConversationRequest, model: HomeModel | None) -> Actor:
    """The turn's actor: what the endpoint told of the user and device, read against the home."""
    return resolve_actor(
        model,
        endpoint=request.source,
        user_id=request.user_id,
        user_name=request.user_name,
        device_id=request.device_id,
        satellite_id=request.satellite_id,
    )


class HomeSource(Protocol):
    """Where the current home model comes from (the live sync, or a fixed model in tests)."""

    @property
    def model(self) -> HomeModel | None:
        """The current model, or None before the first snapshot."""

    async def fresh(self) -> HomeModel | None:
        """The model once the changes Home Assistant reported are in it (a bounded wait)."""

    async def recheck_exposure(self) -> HomeModel | None:
        """A newer model when exposure changed unannounced since it was read, else None."""


@dataclass(frozen=True, slots=True)
class _Turn:
    """A turn as begun inside its conversation's lock: what each later step of it reads."""

    request: ConversationRequest
    """The request as stored and fired: a PIN in it masked."""
    said: str
    """The words as said, before masking: a PIN answers the waiting question."""
    conversation_id: str
    language: str
    created_at: datetime
    dry_run: bool
    pending: Pending | None
    """The question this turn answers, if it answers one."""
    superseded: Pending | None
    """The question this turn cancels by asking something else."""
    history: list[ChatMessage]
    trace: TurnTrace
    actor: Actor
    context: ToolContext
    spoken: SpokenStream | None


@dataclass(frozen=True, slots=True)
class _Answered:
    """The turn's answer and the context it was answered in (newer if exposure changed)."""

    answer: Answer
    context: ToolContext


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
    custom_tools: ToolProvider | None = None
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
    actor_rules: Callable[[], ActorRules] | None = None
    """The persons' and satellites' rules as they stand (kept in memory by the store)."""
    history: ConversationHistory = field(init=False)
    _home_context: HomeContext = field(init=False)
    _events: EventOutbox = field(init=False)
    _conversations: ConversationFinder = field(init=False)
    _memory_tools: list[Tool] = field(init=False, default_factory=list)
    _confirmations: Confirmations = field(init=False)
    _after: AfterTurnWork = field(init=False)
    _impacts: ImpactCache = field(init=False, default_factory=ImpactCache)
    """What calls do in the current home (scenes, scripts, groups expanded once per revision)."""

    def __post_init__(self) -> None:
        self.history = ConversationHistory(self.records, max_turns=self.options.history_turns)
        self._events = EventOutbox(self.events)
        self._conversations = ConversationFinder(self.records, self.options.session_timeout)
        if self.memory is not None:
            self._memory_tools = memory_tools(self.memory)
        self._home_context = HomeContext(self.options.overview_token_budget, self.embedder)
        self._confirmations = Confirmations(self._events, self.options.confirmation_timeout)
        self._after = AfterTurnWork(
            self._events, self.records, lambda: self.home.model, self.memory
        )

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
        """The turn's order of work: begin, answer, record (committed first), then the rest.

        Everything between finding the conversation and adding the turn's row runs under the
        conversation's lock, so its turns are answered, stored and fired one at a time.
        """
        started = time.perf_counter()
        created_at = self.clock()
        language = request.language or self.options.language
        # The option wins: with it on nothing acts for real, whatever a request asks; a request
        # may still ask for a dry run with the option off.
        dry_run = self.options.dry_run or request.dry_run is True
        answering = self._confirmations.answering_conversation(request, created_at)
        found = (
            FoundConversation(answering, is_new=False)
            if answering is not None
            else await self._conversations.find(request, created_at)
        )
        conversation_id = found.id
        async with self.history.lock(conversation_id):
            turn = await self._begin(request, found, language, created_at, dry_run, on_text)
            answered = await self._answered(turn)
            answer, context = answered.answer, answered.context
            needs_confirmation = self._waiting_question(turn, context)
            if turn.spoken is not None:
                # What was streamed is what was answered (an apology after streamed text, too).
                await turn.spoken.complete(answer.reply)
            if isinstance(context.executor, RecordingExecutor):
                turn.trace.states = context.executor.states()
            turn.trace.timings["total"] = (time.perf_counter() - started) * 1000
            # The id is ours now; the row is written with every turn finishing meanwhile, in
            # one transaction (addon.store.turns.writer), awaited below, outside the lock.
            added = await self.records.add_turn(_turn_record(turn, answer))
            self.history.append(conversation_id, answer.messages)
            self._conversations.note(turn.request, conversation_id, created_at)
        # Made while the turn's commit is synced to the disk (addon.store.file.wal_sync).
        result = _result(turn, answer, added.turn_id, needs_confirmation)
        await committed(added.committed, added.turn_id)
        self._after.start(
            FinishedTurn(
                turn.request,
                result,
                turn.trace,
                answer.outcomes,
                turn.dry_run,
                language,
                turn.history,
                turn.actor.person_key,
            ),
            self.outcome_delay,
        )
        return result

    async def _begin(
        self,
        request: ConversationRequest,
        found: FoundConversation,
        language: str,
        created_at: datetime,
        dry_run: bool,
        on_text: TextSink | None,
    ) -> _Turn:
        """Start the turn inside its conversation's lock: the question it answers, who asks.

        Fires ``home_agent_conversation_started``: inside the lock, and the end's events are
        queued before the next holder runs (no await after the lock), so events of one
        conversation's turns never interleave.
        """
        conversation_id = found.id
        said = request.text
        pending = self._confirmations.claim(conversation_id, request)
        # Neither a yes nor a no (nor a PIN): a new request, which cancels the question.
        superseded = pending if pending and supersedes(pending, said, language) else None
        if superseded is not None:
            pending = None
        # A question asked in a dry run is answered in one, whatever this request says.
        dry_run = dry_run or self._confirmations.dry_run_of(pending, created_at)
        # A PIN is never stored, traced, fired, logged or sent: masked before anything.
        request = await self._confirmations.masked(request, pending, self.confirmation)
        model = await self.home.fresh()
        trace = TurnTrace()
        # Who is asking, once per turn: the gate judges every call by their rules.
        actor = actor_of(request, model)
        trace.actor = actor.as_dict()
        self._events.emit(
            CONVERSATION_STARTED,
            started_event(request, conversation_id, language, dry_run, actor.as_dict()),
        )
        history = [] if found.is_new else await self.history.messages(conversation_id)
        context = self._setup().context(
            model, language, created_at, request.device_id, dry_run, actor, conversation_id
        )
        if context.holds is not None and context.holds.hidden:  # the gate hid from the actor
            unreadable: list[JsonValue] = [*sorted(context.holds.hidden)]
            trace.actor = {**actor.as_dict(), "unreadable": unreadable}
        spoken = SpokenStream(on_text) if on_text is not None else None
        return _Turn(
            request=request,
            said=said,
            conversation_id=conversation_id,
            language=language,
            created_at=created_at,
            dry_run=dry_run,
            pending=pending,
            superseded=superseded,
            history=history,
            trace=trace,
            actor=actor,
            context=context,
            spoken=spoken,
        )

    async def _answered(self, turn: _Turn) -> _Answered:
        """The turn's answer, and the context it was answered in (newer if exposure changed).

        A waiting question is answered first; anything else is answered locally or by the
        model (:meth:`_answer`).
        """
        trace, spoken, context = turn.trace, turn.spoken, turn.context
        if turn.superseded is not None:
            self._confirmations.supersede(turn.superseded, turn.request, trace, turn.created_at)
        if turn.pending is not None:
            answer = await self._confirmations.answer(
                turn.pending,
                turn.said,
                turn.request,
                context,
                trace,
                spoken,
                self.clock(),
                self._setup(),
            )
            if answer is not None:
                return _Answered(answer, context)
        progress = ToolProgressEvents(self._events, turn.conversation_id)
        answer = await self._answer(turn.request, context, turn.history, trace, spoken, progress)
        if not missed_on_exposure(answer, spoken):
            return _Answered(answer, context)
        # Told "not exposed", the person may just have exposed it: Home Assistant announces
        # no change for an entity without a unique ID. Nothing was done or heard, so the turn
        # is answered again on the home as it is now.
        rechecked = time.perf_counter()
        newer = await self.home.recheck_exposure()
        trace.timings["exposure_recheck"] = (time.perf_counter() - rechecked) * 1000
        if newer is None:
            return _Answered(answer, context)
        context = self._setup().context(
            newer,
            turn.language,
            turn.created_at,
            turn.request.device_id,
            turn.dry_run,
            turn.actor,
            turn.conversation_id,
        )
        answer = await self._answer(turn.request, context, turn.history, trace, spoken, progress)
        return _Answered(answer, context)

    async def _answer(
        self,
        request: ConversationRequest,
        context: ToolContext,
        history: list[ChatMessage],
        trace: TurnTrace,
        spoken: SpokenStream | None,
        progress: ToolProgressEvents,
    ) -> Answer:
        """Answer locally, else through the model, else with an apology for there being none."""
        model = context.home
        user_message = UserMessage(request.text)
        if self.options.local_first and self.local is not None and model is not None:
            local = await run_local_turn(
                self.local,
                request.text,
                context,
                trace,
                fall_through=self.llm is not None,
                questions=self.options.local_questions,
                drafting=next((t for t in self.extra_tools() if t.name == DRAFT_TOOL), None),
            )
            if local is not None:
                if spoken is not None:
                    await spoken.send(local.reply)
                said = [user_message, *local.messages]
                return Answer(local.reply, said, "local", local.error, (local.outcome,))
        model_path = self._model_path()
        if model_path is None:
            trace.error_kind = ErrorKind.NO_MODEL if model is not None else ErrorKind.NOT_CONNECTED
            reply = messages_for(context.language).for_error(trace.error_kind)
            if spoken is not None:
                await spoken.send(reply)
            messages: list[ChatMessage] = [user_message, AssistantMessage(reply)]
            return Answer(reply, messages, "failed", "no model", ())
        return await model_path.answer(request, context, history, trace, spoken, progress)

    def _waiting_question(self, turn: _Turn, context: ToolContext) -> JsonObject | None:
        """The question the turn leaves waiting (its ``needs_confirmation``), if any.

        One the turn held now, or the one a wrong PIN left open: the question still waits.
        """
        asked = self._confirmations.hold(
            turn.conversation_id, turn.request, context, turn.trace, turn.created_at
        )
        if asked is None and turn.pending and self._confirmations.waits(turn.pending):
            return turn.pending.as_dict()
        return asked

    def prompt_preview(self) -> PromptPreview:
        """The system prompt as a turn from no particular area would send it now.

        What the settings page shows: asked of the agent, so it is the prompt turns really send.
        """
        model = self.home.model
        prefix = self._home_context.prefix(model) if model is not None else None
        overview = prefix.overview if prefix is not None else None
        return PromptPreview(ModelPath.prompt_for(self.options, prefix, None), overview)

    async def offered_tools(
        self, *, exclude_kinds: frozenset[str] = frozenset()
    ) -> list[OfferedTool]:
        """The tools a turn would offer the model now, less those of ``exclude_kinds``."""
        registry = await self._toolbox().registry(await self.home.fresh(), TurnTrace())
        return [
            OfferedTool(tool.name, tool.description, tool.parameters, tool.kind)
            for tool in registry.tools()
            if tool.kind not in exclude_kinds
        ]

    async def call_tool(
        self, call: ToolCall, *, exclude_kinds: frozenset[str] = frozenset()
    ) -> ToolCallResult:
        """Run one tool as the model would call it, and record the call as a turn of its own.

        A tool of ``exclude_kinds`` is unknown here, as if it were not offered
        (:mod:`addon.agent.direct_call`).
        """
        direct = DirectCall(
            call=call,
            language=call.language or self.options.language,
            dry_run=self.options.dry_run or call.dry_run is True,
            created_at=self.clock(),
            model=await self.home.fresh(),
            exclude_kinds=exclude_kinds,
        )
        return await call_directly(
            direct,
            setup=self._setup(),
            toolbox=self._toolbox(),
            records=self.records,
            after=self._after,
            outcome_delay=self.outcome_delay,
        )

    def question_waiting(self, conversation_id: str) -> Method | None:
        """How the question this conversation's last turn asked is answered, while it waits.

        "yes" or "pin", else None: what the chat offers when the conversation is shown again.
        """
        return self._confirmations.asked_in(conversation_id, self.clock())

    async def holds(self) -> Holds | None:
        """The confirmation policy a turn starting now would check its calls against, none held.

        The panel's "Try it" of a custom tool runs with it, so what a turn would hold for
        confirmation a try reports as held and never performs.
        """
        return self._setup().holds(await self.home.fresh())

    async def drain(self, *, cancel: bool = False) -> None:
        """Wait for background work (events, outcome checks) and its writes, or cancel it.

        Shutdown cancels: an outcome check still waiting for Home Assistant's report is not worth
        holding a restart for, and the turn itself was stored before it was answered.
        """
        await self._after.drain(cancel=cancel)

    # The parts below are built from the agent's fields when used, so a field set after the
    # agent was made (as tests do) counts from the next turn on.

    def _setup(self) -> TurnSetup:
        return TurnSetup(self.live_executor, self.confirmation, self._impacts, self.actor_rules)

    def _failure_speech(self, context: ToolContext) -> FailureSpeech:
        """A failed call as the connected Home Assistant's agent says it, in the turn's language.

        A failure Home Assistant has no sentence for is said in our own words.
        """
        language = context.language or self.options.language
        version = context.home.ha_version if context.home is not None else None
        local = self.local

        def speak(outcome: ToolOutcome) -> str:
            if outcome.failure is None:
                return messages_for(language).could_not_do
            # Only for a failure: with local-first off, the language's sentences load now.
            templates = local.error_templates(language, version) if local else None
            return spoken_match_failure(outcome.failure, templates, outcome.name, language)

        return speak

    def _toolbox(self) -> Toolbox:
        return Toolbox(
            extra_tools=self.extra_tools,
            memory_tools=self._memory_tools,
            expert=self.expert,
            custom_tools=self.custom_tools,
            providers=self.tool_providers,
            home_context=self._home_context,
        )

    def _model_path(self) -> ModelPath | None:
        if self.llm is None:
            return None
        return ModelPath(
            llm=self.llm,
            fallback=self.fallback,
            options=self.options,
            toolbox=self._toolbox(),
            home_context=self._home_context,
            memory=self.memory,
            failure_speech=self._failure_speech,
        )


def _turn_record(turn: _Turn, answer: Answer) -> TurnRecord:
    """The turn as stored, with its outcome when it is known before the outcome check.

    A turn whose every action failed is "failed" (its reply says so, :mod:`addon.agent.truth`);
    one whose reply claims an action no tool took is flagged at once.
    """
    record = turn_record(
        request=turn.request,
        conversation_id=turn.conversation_id,
        language=turn.language,
        created_at=turn.created_at,
        reply=answer.reply,
        handled_by=answer.handled_by,
        dry_run=turn.dry_run,
        error=answer.error,
        messages=answer.messages,
        trace=turn.trace,
    )
    if answer.actions_failed:
        # Nothing the turn tried happened; the reply says so (addon.agent.truth).
        record.outcome, record.flagged = "failed", True
        record.outcome_detail = {"reason": answer.error}
    elif not turn.dry_run and answer.handled_by != "failed":
        verdict = verdict_without_acting(answer.outcomes, answer.reply, turn.language)
        if verdict is not None:
            record.outcome, record.outcome_detail = verdict.outcome, verdict.detail
            record.flagged = verdict.flagged
    return record


def _result(
    turn: _Turn, answer: Answer, turn_id: int, needs_confirmation: JsonObject | None
) -> ConversationResult:
    """What the endpoint gets back for the stored turn."""
    return ConversationResult(
        reply=answer.reply,
        conversation_id=turn.conversation_id,
        turn_id=turn_id,
        handled_by=answer.handled_by,
        actions=[action_summary(outcome) for outcome in answer.outcomes],
        # A held action waits for the answer: the satellite listens again.
        continue_conversation=answer.reply.rstrip().endswith("?") or needs_confirmation is not None,
        error=answer.error,
        prompt_tokens=turn.trace.prompt_tokens,
        completion_tokens=turn.trace.completion_tokens,
        error_kind=turn.trace.error_kind,
        needs_confirmation=needs_confirmation,
        said=turn.request.text,
        dry_run=turn.dry_run,
        actions_failed=answer.actions_failed,
    )
