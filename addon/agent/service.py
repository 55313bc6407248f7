"""The agent: one conversation turn from text to reply, recorded and observable.

Order of work for a turn: find the conversation (given id, the device's recent one, or a new one),
try Home Assistant's sentence matcher locally, otherwise run the model's tool loop, store the turn
with its trace, then — off the reply's path — fire Home Assistant events and run the outcome check.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from addon.agent.continuation import DeviceConversations
from addon.agent.conversation import (
    ActionSummary,
    ConversationRequest,
    ConversationResult,
    HandledBy,
)
from addon.agent.history import ConversationHistory
from addon.agent.local_turn import run_local_turn
from addon.agent.loop import run_tool_loop
from addon.agent.outcome import acting_targets, check_outcome
from addon.agent.overview import OverviewCache
from addon.agent.prompt import PromptInputs, build_system_prompt, timed_user_content
from addon.agent.recording import turn_record
from addon.agent.trace import TurnTrace
from addon.config.settings import Options
from addon.home.actions.executor import Executor
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model import HomeModel
from addon.llm.client import LLMClient, TextSink
from addon.local.matcher import LocalMatcher
from addon.store.conversations import OutcomeUpdate, recent_conversation
from addon.store.database import Store
from addon.tools.base import Tool, ToolContext
from addon.tools.home_tools import build_registry
from addon.tools.registry import ToolOutcome

_LOGGER = logging.getLogger(__name__)

NO_MODEL_REPLY = (
    "I can only handle simple home commands right now, and I didn't understand that one. "
    "No language model is configured for anything else."
)
NOT_CONNECTED_REPLY = "Sorry, I'm not connected to Home Assistant right now."
OUTCOME_DELAY_S = 2.0


def _utc_now() -> datetime:
    return datetime.now(UTC)


class HomeSource(Protocol):
    """Where the current home model comes from (the live sync, or a fixed model in tests)."""

    @property
    def model(self) -> HomeModel | None:
        """The current model, or None before the first snapshot."""


class EventSink(Protocol):
    """Where Home Assistant events go (the WebSocket client)."""

    @property
    def connected(self) -> bool:
        """Whether events can be delivered now; while Home Assistant is away they are skipped."""

    async def fire_event(self, event_type: str, event_data: dict[str, Any]) -> None:
        """Fire an event on Home Assistant's bus."""


@dataclass(slots=True)
class Agent:
    """Runs turns; every collaborator is passed in so tests build it from real parts."""

    options: Options
    store: Store
    home: HomeSource
    live_executor: Executor | None
    llm: LLMClient | None = None
    local: LocalMatcher | None = None
    events: EventSink | None = None
    extra_tools: Callable[[], list[Tool]] = list
    outcome_delay: float = OUTCOME_DELAY_S
    # The time turns are stamped with and session_timeout is measured by; tests pass their own.
    clock: Callable[[], datetime] = _utc_now
    history: ConversationHistory = field(init=False)
    _overview: OverviewCache = field(init=False, default_factory=OverviewCache)
    _background: set[asyncio.Task[None]] = field(init=False, default_factory=set)
    _devices: DeviceConversations = field(init=False, default_factory=DeviceConversations)

    def __post_init__(self) -> None:
        self.history = ConversationHistory(self.store, max_turns=self.options.history_turns)

    async def process(
        self, request: ConversationRequest, *, on_text: TextSink | None = None
    ) -> ConversationResult:
        """Handle one utterance; never raises for anything the user or the model did."""
        with self.store.writer.turn_in_progress():
            return await self._process(request, on_text)

    async def _process(
        self, request: ConversationRequest, on_text: TextSink | None
    ) -> ConversationResult:
        started = time.perf_counter()
        created_at = self.clock()
        language = request.language or self.options.language
        dry_run = self.options.dry_run if request.dry_run is None else request.dry_run
        conversation_id, is_new = await self._conversation_id(request, created_at)
        async with self.history.lock(conversation_id):
            history = [] if is_new else await self.history.messages(conversation_id)
            model = self.home.model
            trace = TurnTrace()
            executor = self._executor(model, dry_run)
            area_id = self._device_area(model, request.device_id)
            context = ToolContext(
                home=model,
                executor=executor,
                language=language,
                now=self._now(model, created_at),
                device_id=request.device_id,
                area_id=area_id,
                floor_id=model.areas[area_id].floor_id if model and area_id else None,
                dry_run=dry_run,
            )
            reply, messages, handled_by, error, outcomes = await self._answer(
                request, context, history, trace, on_text
            )
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
                verdict = check_outcome(outcomes, reply, lambda _entity_id: None)
                record.outcome, record.outcome_detail = verdict.outcome, verdict.detail
                record.flagged = verdict.flagged
            # Written off the reply's path, in a batch (addon.store.writer); the id is ours now.
            turn_id = self.store.writer.submit(record)
            self.history.append(conversation_id, record.messages)
            self._devices.note(request.device_id, request.satellite_id, conversation_id, created_at)
        result = ConversationResult(
            reply=reply,
            conversation_id=conversation_id,
            turn_id=turn_id,
            handled_by=handled_by,
            actions=[_summary(outcome) for outcome in outcomes],
            continue_conversation=reply.rstrip().endswith("?"),
            error=error,
            prompt_tokens=trace.prompt_tokens,
            completion_tokens=trace.completion_tokens,
        )
        self._after_turn(result, request, trace, outcomes, dry_run)
        return result

    async def _answer(
        self,
        request: ConversationRequest,
        context: ToolContext,
        history: list[dict[str, Any]],
        trace: TurnTrace,
        on_text: TextSink | None,
    ) -> tuple[str, list[dict[str, Any]], HandledBy, str | None, list[ToolOutcome]]:
        """Answer locally or through the model; the messages returned start with the user's."""
        model = context.home
        user_message = {"role": "user", "content": request.text}
        if self.options.local_first and self.local is not None and model is not None:
            local = await run_local_turn(
                self.local, request.text, context, trace, fall_through=self.llm is not None
            )
            if local is not None:
                if on_text is not None:
                    await on_text(local.reply)
                messages = [user_message, *local.messages]
                return local.reply, messages, "local", local.error, [local.outcome]
        if self.llm is None:
            reply = NO_MODEL_REPLY if model is not None else NOT_CONNECTED_REPLY
            if on_text is not None:
                await on_text(reply)
            messages = [user_message, {"role": "assistant", "content": reply}]
            return reply, messages, "failed", "no model", []
        prompt_started = time.perf_counter()
        registry = build_registry(model, self.extra_tools())
        system = build_system_prompt(
            PromptInputs(
                static_overview=self._overview.get(model) if model is not None else None,
                extra_instructions=self.options.extra_instructions,
                area_name=model.areas[context.area_id].name if model and context.area_id else None,
            )
        )
        # The time changes every turn, so it rides on the user's message, after the system
        # prompt and the tools: both stay byte-identical and a server's prefix cache holds.
        user_message = {"role": "user", "content": timed_user_content(request.text, context.now)}
        trace.timings["prompt"] = (time.perf_counter() - prompt_started) * 1000
        loop_started = time.perf_counter()
        result = await run_tool_loop(
            llm=self.llm,
            messages=[{"role": "system", "content": system}, *history, user_message],
            registry=registry,
            context=context,
            trace=trace,
            max_iterations=self.options.max_tool_iterations,
            stream=on_text is not None,
            on_text=on_text,
        )
        trace.timings["loop"] = (time.perf_counter() - loop_started) * 1000
        handled_by: HandledBy = "failed" if result.error and not result.outcomes else "llm"
        messages = [user_message, *result.messages]
        if messages[-1].get("role") != "assistant" or messages[-1].get("tool_calls"):
            # Failed or cut-off turns still end, in history, with what the user was told.
            messages = [*messages, {"role": "assistant", "content": result.reply}]
        return result.reply, messages, handled_by, result.error, result.outcomes

    async def _conversation_id(
        self, request: ConversationRequest, now: datetime
    ) -> tuple[str, bool]:
        """The conversation to continue, and whether it is one this call just made up."""
        if request.conversation_id:
            # An id the store has never seen starts a conversation: no history to read.
            return request.conversation_id, not self.store.writer.knows(request.conversation_id)
        timeout = self.options.session_timeout
        if request.device_id or request.satellite_id:
            since = (
                now - timedelta(seconds=timeout) if timeout else datetime.min.replace(tzinfo=UTC)
            )
            latest = self._devices.lookup(request.device_id, request.satellite_id)
            if latest is not None:
                conversation_id, at = latest
                return (conversation_id, False) if at >= since else (uuid.uuid4().hex, True)
            async with self.store.sessionmaker() as session:
                recent = await recent_conversation(
                    session,
                    device_id=request.device_id,
                    satellite_id=request.satellite_id,
                    since=since,
                )
            if recent is not None:
                return recent, False
        return uuid.uuid4().hex, True

    def _executor(self, model: HomeModel | None, dry_run: bool) -> Executor | None:
        if model is None:
            return None
        if dry_run or self.live_executor is None:
            return VirtualExecutor(model.copy())
        return self.live_executor

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
    ) -> None:
        if self.events is not None and self.events.connected:
            self._spawn(self._fire_events(result, request, trace))
        # A dry run changed nothing in Home Assistant, so there is nothing to compare; a turn
        # that acted on nothing was judged when it was stored.
        if not dry_run and result.handled_by != "failed" and acting_targets(outcomes):
            self._spawn(self._check(result, outcomes))

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _fire_events(
        self, result: ConversationResult, request: ConversationRequest, trace: TurnTrace
    ) -> None:
        assert self.events is not None
        try:
            for call in trace.tool_calls:
                await self.events.fire_event(
                    "home_agent_tool_executed",
                    {
                        "conversation_id": result.conversation_id,
                        "turn_id": result.turn_id,
                        "tool": call.outcome.name,
                        "arguments": call.outcome.arguments,
                        "success": call.outcome.ok,
                        "error": call.outcome.error,
                        "executor": call.outcome.executor,
                        "duration_ms": round(call.outcome.duration_ms, 1),
                    },
                )
            await self.events.fire_event(
                "home_agent_conversation_finished",
                {
                    "conversation_id": result.conversation_id,
                    "turn_id": result.turn_id,
                    "text": request.text,
                    "reply": result.reply,
                    "handled_by": result.handled_by,
                    "latency_ms": round(trace.timings.get("total", 0.0), 1),
                    "prompt_tokens": trace.prompt_tokens,
                    "completion_tokens": trace.completion_tokens,
                    "device_id": request.device_id,
                    "source": request.source,
                },
            )
        except Exception:  # events are a courtesy; Home Assistant may be away
            _LOGGER.warning(
                "Could not fire Home Agent events for turn %s", result.turn_id, exc_info=True
            )

    async def _check(self, result: ConversationResult, outcomes: list[ToolOutcome]) -> None:
        try:
            await asyncio.sleep(self.outcome_delay)

            def read_state(entity_id: str) -> str | None:
                model = self.home.model
                state = model.state(entity_id) if model is not None else None
                return state.state if state is not None else None

            verdict = check_outcome(outcomes, result.reply, read_state)
            self.store.writer.submit_outcome(
                OutcomeUpdate(result.turn_id, verdict.outcome, verdict.detail, verdict.flagged)
            )
            if verdict.flagged:
                _LOGGER.warning(
                    "Turn %s flagged by the outcome check: %s", result.turn_id, verdict.detail
                )
        except Exception:
            _LOGGER.exception("Outcome check of turn %s failed", result.turn_id)

    async def drain(self, *, cancel: bool = False) -> None:
        """Wait for background work (events, outcome checks) and its writes, or cancel it.

        Shutdown cancels: an outcome check still waiting for Home Assistant's report is not worth
        holding a restart for, and the turn itself is written when the store closes.
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
        if not cancel:
            await self.store.writer.flush()


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
