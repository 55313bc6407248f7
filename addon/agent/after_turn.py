"""After-turn work, off the reply's path: the end's events, the outcome check, learning.

Nothing here can fail a turn: it is answered and handed to the store already. The work runs as
background tasks of its own, which :meth:`AfterTurnWork.drain` waits for (or cancels at
shutdown).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass

from addon.agent.conversation import ConversationRequest, ConversationResult
from addon.agent.events import (
    MEMORY_EXTRACTED,
    EventOutbox,
    finished_events,
    memory_extracted_event,
)
from addon.agent.learning import exchange_for
from addon.agent.outcome import OutcomeVerdict, acting_targets, check_outcome
from addon.agent.trace import TurnTrace
from addon.home.model.live import HomeModel
from addon.llm.messages import ChatMessage
from addon.memory.extraction import Exchange
from addon.memory.records import AfterTurn, TurnSource
from addon.memory.service import MemoryService
from addon.store.turns import ConversationRecords, OutcomeUpdate
from addon.tools.memory import MEMORY_TOOL_NAMES, told_memory_ids
from addon.tools.registry import ToolOutcome

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class FinishedTurn:
    """A stored and answered turn, as the work after it reads it."""

    request: ConversationRequest
    result: ConversationResult
    trace: TurnTrace
    outcomes: tuple[ToolOutcome, ...]
    dry_run: bool
    language: str
    history: list[ChatMessage]
    """The conversation's messages before the turn (what extraction reads for "she", "there")."""
    person: str | None = None
    """Who asked (their person, else their user): what is learned is theirs; None: household."""


def verdict_without_acting(
    outcomes: Sequence[ToolOutcome], reply: str, language: str
) -> OutcomeVerdict | None:
    """The outcome check of a turn that acted on nothing, judged by its words alone; else None.

    Nothing to wait for: the verdict is stored with the turn instead of in a second write.
    """
    if acting_targets(outcomes):
        return None
    return check_outcome(outcomes, reply, lambda _entity_id: None, language=language)


class AfterTurnWork:
    """Starts and tracks the work after each turn; ``home`` gives the states reported now."""

    def __init__(
        self,
        events: EventOutbox,
        records: ConversationRecords,
        home: Callable[[], HomeModel | None],
        memory: MemoryService | None,
    ) -> None:
        self._events = events
        self._records = records
        self._home = home
        self._memory = memory
        self._background: set[asyncio.Task[None]] = set()

    def start(self, turn: FinishedTurn, outcome_delay: float) -> None:
        """Queue the end's events, then check the outcome and learn in the background."""
        result = turn.result
        for event_type, data in finished_events(turn.request, result, turn.trace):
            self._events.emit(event_type, data)
        # A dry run changed nothing in Home Assistant, so there is nothing to compare; a turn
        # that acted on nothing was judged when it was stored.
        if not turn.dry_run and result.handled_by != "failed" and acting_targets(turn.outcomes):
            self.check_later(
                result.turn_id, result.reply, turn.outcomes, turn.language, outcome_delay
            )
        if self._memory is None:
            return
        # Learned from: the model's turns that acted for real, unless the user already said what
        # to remember or forget (the tools did it; extraction would only repeat it).
        extract = (
            self._memory.learns
            and not turn.dry_run
            and result.handled_by == "llm"
            and not any(outcome.name in MEMORY_TOOL_NAMES for outcome in turn.outcomes)
        )
        told = told_memory_ids(turn.outcomes)
        if extract or told or turn.trace.recalled_memories:
            exchange = (
                exchange_for(turn.request.text, result.reply, turn.outcomes, turn.history)
                if extract
                else None
            )
            person = turn.person
            self._spawn(self._learn(result, turn.trace.recalled_memories, told, exchange, person))

    def check_later(
        self,
        turn_id: int,
        reply: str,
        outcomes: Sequence[ToolOutcome],
        language: str,
        delay: float,
    ) -> None:
        """Compare, ``delay`` seconds from now, the states reported with what the tools claimed."""

        async def check() -> None:
            try:
                await asyncio.sleep(delay)

                def read_state(entity_id: str) -> str | None:
                    model = self._home()
                    state = model.state(entity_id) if model is not None else None
                    return state.state if state is not None else None

                verdict = check_outcome(outcomes, reply, read_state, language=language)
                await self._records.add_outcome(
                    OutcomeUpdate(turn_id, verdict.outcome, verdict.detail, verdict.flagged)
                )
                if verdict.flagged:
                    _LOGGER.warning(
                        "Turn %s flagged by the outcome check: %s", turn_id, verdict.detail
                    )
            except Exception:
                _LOGGER.exception("Outcome check of turn %s failed", turn_id)

        self._spawn(check())

    async def drain(self, *, cancel: bool = False) -> None:
        """Wait for the background work and its writes, or cancel it."""
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
            await self._records.settle()

    def _spawn(self, coroutine: Coroutine[object, None, None]) -> None:
        task = asyncio.create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _learn(
        self,
        result: ConversationResult,
        recalled: tuple[int, ...],
        told: tuple[int, ...],
        exchange: Exchange | None,
        person: str | None = None,
    ) -> None:
        """Extract, then link and keep once the turn itself is stored (``person``'s, if known)."""
        assert self._memory is not None
        try:
            extraction = await self._memory.extract(exchange) if exchange is not None else None
            # The links and the extraction's trace name the turn's row: it must be written.
            stored = await self._records.settle()
            if not stored:
                _LOGGER.warning(
                    "Turn %s is not stored yet; memory keeps what it learned without linking it",
                    result.turn_id,
                )
            source = TurnSource(result.conversation_id, result.turn_id, person) if stored else None
            learned = await self._memory.after_turn(AfterTurn(source, recalled, told, extraction))
        except Exception:
            _LOGGER.exception("Memory could not learn from turn %s", result.turn_id)
            return
        if extraction is None:
            return
        if learned.error is not None:
            # The extractor logged the failure as a warning already; this names the turn.
            _LOGGER.debug(
                "Memory extraction after turn %s failed: %s", result.turn_id, learned.error
            )
        self._events.emit(
            MEMORY_EXTRACTED,
            memory_extracted_event(result.conversation_id, result.turn_id, learned),
        )
