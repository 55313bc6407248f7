"""The memory service: what the agent, the memory tools and the panel ask of long-term memory.

Three moments use it. Before the model is asked, :meth:`MemoryService.recall` picks the memories
relevant to the utterance, the speaker's area and the conversation so far, within a token
budget; it only reads, so the reply's path pays one search. During a turn the memory tools call
:meth:`~MemoryService.remember`, :meth:`~MemoryService.search` and :meth:`~MemoryService.forget`
(what the user asks for is kept unless it is a secret). After the turn, off the reply's path,
:meth:`~MemoryService.extract` asks the model what was worth remembering and
:meth:`~MemoryService.after_turn` stores what the turn did once the turn itself is stored: the
recall links (which need the turn's row), the tools' memories credited to the turn, the
extracted candidates merged with what is known, the extraction's model calls traced under the
turn (handed to the store's writer, which writes them with its next batch: a turn's learning
costs no transaction of its own unless it keeps something), and a prune to the limit per home.

Every write keeps the retriever's vector index current; the panel, which writes through the
store itself, says what it changed through :meth:`~MemoryService.changed` and
:meth:`~MemoryService.cleared`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from addon.errors import LLMError, NotFoundError, StoreError
from addon.llm.messages import to_wire, wire_messages
from addon.memory.candidates import Candidate, MemoryKind, candidate
from addon.memory.extraction import Exchange, Extraction, ExtractionCall, Extractor
from addon.memory.merge import closest, merge, words
from addon.memory.policy import POLICIES, expires_at
from addon.memory.records import (
    AfterTurn,
    Learned,
    MemoryLimits,
    Outcome,
    RecalledMemory,
    RecallRequest,
    Remembered,
    TurnSource,
)
from addon.memory.retrieval import Recalled, RecallQuery, Retriever
from addon.memory.rules import MAX_CONTENT, RejectReason, check
from addon.store.memories import MemoryRecord, PrunePolicy, memories, memory_search, memory_upkeep
from addon.store.turns import LLMCallRecord

_LOGGER = logging.getLogger(__name__)

CHARS_PER_TOKEN = 4
"""The same cheap estimate the history budget uses; good enough to bound a few sentences."""
STEM_CHARS = 5
"""Words are compared by their first characters, as the store's recall search does."""
MERGE_CANDIDATES = 10
"""Memories a new one is compared with: the best lexical matches, which a near-duplicate tops."""
EXTRACTION_PURPOSE = "memory"


def _utc_now() -> datetime:
    return datetime.now(UTC)


def prune_policy(max_memories: int) -> PrunePolicy:
    """The store's pruning rules from the kinds' lifetimes (:mod:`addon.memory.policy`)."""
    return PrunePolicy(
        ttl={kind.value: policy.ttl for kind, policy in POLICIES.items()},
        half_life={kind.value: policy.half_life for kind, policy in POLICIES.items()},
        max_count=max_memories,
    )


def _stems(text: str) -> frozenset[str]:
    return frozenset(word[:STEM_CHARS] for word in words(text))


def _as_candidate(record: MemoryRecord) -> Candidate:
    """A stored memory as a candidate to merge with.

    A kind this release does not know is refused, not read as another kind.
    """
    try:
        kind = MemoryKind(record.kind)
    except ValueError as err:
        raise StoreError(f"memory {record.id} has an unknown kind {record.kind!r}") from err
    return Candidate(
        content=record.content,
        kind=kind,
        importance=record.importance,
        entities=record.entity_ids,
        areas=record.areas,
    )


def _call_record(call: ExtractionCall) -> LLMCallRecord:
    return LLMCallRecord(
        started_at=call.started_at,
        model=call.model,
        streamed=False,
        request_messages=wire_messages(call.request_messages),
        request_tools=[],
        response=to_wire(call.response) if call.response is not None else {},
        prompt_tokens=call.prompt_tokens,
        completion_tokens=call.completion_tokens,
        ttft_ms=None,
        duration_ms=call.duration_ms,
        finish_reason=call.finish_reason,
        error=call.error,
    )


class LaterCalls(Protocol):
    """Where model calls made after a turn are traced: the store's writer."""

    async def add_later_call(self, turn_id: int, call: LLMCallRecord, *, purpose: str) -> int:
        """Queue ``call`` under turn ``turn_id``; the id it is stored under."""


class MemoryService:
    """Long-term memory for the agent, its tools and the panel; one per app."""

    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        retriever: Retriever,
        *,
        calls: LaterCalls,
        extractor: Extractor | None = None,
        limits: MemoryLimits | None = None,
        clock: Callable[[], datetime] = _utc_now,
    ) -> None:
        self._sessionmaker = sessionmaker
        self._retriever = retriever
        self._calls = calls
        self._extractor = extractor
        self._limits = limits or MemoryLimits()
        self._policy = prune_policy(self._limits.max_memories)
        self._clock = clock

    @property
    def learns(self) -> bool:
        """Whether turns are read for memories afterwards (automatic extraction is on)."""
        return self._extractor is not None

    async def start(self) -> None:
        """Load the vector index and prune what expired while the add-on was stopped."""
        await self._retriever.load()
        await self.prune()

    # Recall

    async def recall(self, request: RecallRequest) -> tuple[RecalledMemory, ...]:
        """The memories worth putting into this turn's request, best first, within the budget.

        A memory found by words alone must share a content word with the utterance or the
        history (not just "the" or "is", which a small home's memories all hold), or concern
        the speaker's area or device.
        """
        text = "\n".join(part for part in (request.utterance, request.history) if part.strip())
        if not text:
            return ()
        query = RecallQuery(text=text, area=request.area, entity_ids=request.entity_ids)
        found = await self._retriever.recall(query, limit=self._limits.recall_limit * 2)
        stems = _stems(text)
        budget = self._limits.recall_tokens * CHARS_PER_TOKEN
        kept: list[RecalledMemory] = []
        for item in found:
            if not _theirs(item.memory, request.person_id):
                continue  # another person's memory is never recited to someone else
            if not self._relevant(item, stems, request):
                continue
            content = " ".join(item.memory.content.split())
            if len(content) > budget:
                continue
            budget -= len(content)
            kept.append(RecalledMemory(item.memory.id, content, tuple(item.memory.entity_ids)))
            if len(kept) == self._limits.recall_limit:
                break
        return tuple(kept)

    async def search(
        self, query: str, *, limit: int = 5, person_id: str | None = None
    ) -> tuple[MemoryRecord, ...]:
        """The live memories about ``query`` that ``person_id`` may hear, best first.

        The recall tool's search: theirs and the household's, never another person's.
        """
        found = await self._retriever.recall(RecallQuery(text=query), limit=limit * 2)
        stems = _stems(query)
        request = RecallRequest(query, person_id=person_id)
        return tuple(
            item.memory
            for item in found
            if _theirs(item.memory, person_id) and self._relevant(item, stems, request)
        )[:limit]

    @staticmethod
    def _relevant(item: Recalled, stems: frozenset[str], request: RecallRequest) -> bool:
        if item.vector_rank is not None or stems & _stems(item.memory.content):
            return True
        area = request.area.casefold() if request.area else None
        if area is not None and area in {name.casefold() for name in item.memory.areas}:
            return True
        return bool(set(request.entity_ids) & set(item.memory.entity_ids))

    # What the user asks for

    async def remember(
        self,
        content: str,
        *,
        kind: MemoryKind = MemoryKind.FACT,
        importance: float = 0.7,
        dry_run: bool = False,
        person_id: str | None = None,
    ) -> Remembered:
        """Keep what the user asked to keep, unless it is a secret; merge it with its like.

        Only the secrets rule applies: the user chose to keep this, so a passing state or a
        short phrase is theirs to keep. A dry run answers as if it kept it and changes nothing.
        """
        if len(content) > MAX_CONTENT:
            # Bounded like the panel, before any rule reads it: a model or MCP client may send
            # anything, and the rules' work should not grow with it.
            return Remembered(Outcome.REFUSED, "", reason=RejectReason.TOO_LONG)
        new = candidate(content, kind, importance)
        if not new.content:
            return Remembered(Outcome.REFUSED, "", reason=RejectReason.TRIVIA)
        rejection = check(new)
        if rejection is not None and rejection.reason is RejectReason.SECRET:
            _LOGGER.info("Refused to remember a secret (%s)", rejection.detail)
            return Remembered(Outcome.REFUSED, "", reason=RejectReason.SECRET)
        if dry_run:
            return Remembered(Outcome.ADDED, new.content)
        async with self._sessionmaker.begin() as session:
            record, merged = await self._keep(session, new, None, self._clock(), person_id)
        await self._embed([record])
        await self.prune()
        return Remembered(Outcome.MERGED if merged else Outcome.ADDED, record.content, record)

    async def forget(self, memory_id: int, *, dry_run: bool = False) -> MemoryRecord | None:
        """Delete a memory (the panel can restore it); None if there is no such live memory."""
        async with self._sessionmaker.begin() as session:
            try:
                record = await memories.get_memory(session, memory_id)
            except NotFoundError:
                return None
            if record.deleted_at is not None:
                return None
            if not dry_run:
                record = await memories.delete_memory(session, memory_id, now=self._clock())
        if not dry_run:
            self._retriever.forget([memory_id])
        return record

    # After a turn, off the reply's path

    async def extract(self, exchange: Exchange) -> Extraction | None:
        """Ask the model what ``exchange`` holds worth remembering; None when extraction is off.

        Never raises for the model's sake: a failed call or an unreadable answer comes back as
        an extraction with an error and no candidates.
        """
        if self._extractor is None:
            return None
        return await self._extractor.extract(exchange)

    async def after_turn(self, after: AfterTurn) -> Learned:
        """Store what a finished turn did once the turn is stored (see :class:`AfterTurn`).

        The links to the turn and the extraction's memories are written in transactions of
        their own, so a failure of one loses nothing of the other.
        """
        now = self._clock()
        if after.turn is not None and (after.recalled or after.told):
            await self._link(after.turn, after.recalled, after.told, now)
        extraction = after.extraction
        if extraction is None:
            return Learned()
        added: dict[int, None] = {}
        merged: dict[int, None] = {}
        rejected = list(extraction.rejected)
        kept: dict[int, MemoryRecord] = {}
        call_ids: list[int] = []
        if after.turn is not None:
            for call in extraction.calls:
                call_ids.append(
                    await self._calls.add_later_call(
                        after.turn.turn_id, _call_record(call), purpose=EXTRACTION_PURPOSE
                    )
                )
        if extraction.candidates:
            async with self._sessionmaker.begin() as session:
                for found in extraction.candidates:
                    # Screened by the extractor already; a secret must not slip past a change there.
                    rejection = check(found)
                    if rejection is not None:
                        rejected.append(rejection)
                        continue
                    person = after.turn.person_id if after.turn is not None else None
                    record, was_merged = await self._keep(session, found, after.turn, now, person)
                    if record.id not in added:
                        (merged if was_merged else added)[record.id] = None
                    kept[record.id] = record
        await self._embed(list(kept.values()))
        pruned = await self.prune() if kept else ()
        return Learned(
            added=tuple(added),
            merged=tuple(merged),
            rejected=tuple(rejected),
            error=extraction.error,
            call_ids=tuple(call_ids),
            pruned=pruned,
        )

    async def _link(
        self, turn: TurnSource, recalled: Sequence[int], told: Sequence[int], now: datetime
    ) -> None:
        async with self._sessionmaker.begin() as session:
            # Only memories still in the store: one forgotten for good meanwhile has no row.
            present = [record.id for record in await memories.get_memories(session, recalled)]
            await memory_upkeep.mark_recalled(session, present, turn_id=turn.turn_id, now=now)
            await memories.credit_source(
                session, told, conversation_id=turn.conversation_id, turn_id=turn.turn_id
            )

    async def _keep(
        self,
        session: AsyncSession,
        new: Candidate,
        source: TurnSource | None,
        now: datetime,
        person_id: str | None = None,
    ) -> tuple[MemoryRecord, bool]:
        """Store ``new`` as ``person_id``'s, or merge it into their live memory it repeats.

        True if it merged. Only a memory of the same person (or of the household, for a
        household memory) is merged into: one person's words never join another's memory.
        """
        found = await memory_search.search_memory_records(
            session, new.content, limit=MERGE_CANDIDATES
        )
        hits = [hit for hit in found if hit.record.person_id == person_id]
        existing = [_as_candidate(hit.record) for hit in hits]
        index = closest(new, existing)
        if index is not None:
            old = hits[index].record
            together = merge(existing[index], new)
            record = await memories.update_memory(
                session,
                old.id,
                content=together.content,
                kind=together.kind.value,
                importance=together.importance,
                # Hearing it again renews its lifetime; a pinned memory keeps none.
                expires_at=old.expires_at if old.pinned else expires_at(together.kind, now),
                now=now,
            )
            return record, True
        record = await memories.add_memory(
            session,
            new.content,
            kind=new.kind.value,
            importance=new.importance,
            source="conversation",
            conversation_id=source.conversation_id if source is not None else None,
            turn_id=source.turn_id if source is not None else None,
            person_id=person_id,
            entity_ids=new.entities,
            areas=new.areas,
            expires_at=expires_at(new.kind, now),
            now=now,
        )
        return record, False

    async def prune(self) -> tuple[int, ...]:
        """Forget what expired or decayed, and the least important past the limit per home."""
        async with self._sessionmaker.begin() as session:
            result = await memory_upkeep.prune(session, self._policy, now=self._clock())
        gone = (*result.expired, *result.decayed, *result.over_limit)
        if gone:
            self._retriever.forget(gone)
            _LOGGER.info(
                "Forgot %d memories (%d expired, %d faded, %d over the limit of %d)",
                len(gone),
                len(result.expired),
                len(result.decayed),
                len(result.over_limit),
                self._policy.max_count,
            )
        return gone

    async def _embed(self, records: Sequence[MemoryRecord]) -> None:
        """Put what changed in recall's copy and embed it; a failing source leaves it lexical.

        Called with or without an embedding source: the Retriever's word index is kept here too.
        """
        if not records:
            return
        try:
            await self._retriever.embed_memories(records)
        except (LLMError, ValueError) as err:
            _LOGGER.warning(
                "Could not embed memories %s; recall finds them by their words only: %s",
                ", ".join(str(record.id) for record in records),
                err,
            )

    # The panel's edits

    async def changed(self, memory_ids: Sequence[int]) -> None:
        """The panel changed these memories: re-read them, re-embed the live, drop the rest."""
        async with self._sessionmaker() as session:
            live = await memories.get_memories(session, memory_ids)
        alive = {record.id for record in live}
        self._retriever.forget([memory_id for memory_id in memory_ids if memory_id not in alive])
        await self._embed(live)

    async def cleared(self) -> None:
        """The panel forgot everything: so does the index."""
        self._retriever.forget_everything()


def _theirs(memory: MemoryRecord, person_id: str | None) -> bool:
    """Whether ``person_id`` may hear ``memory``: the household's, or their own."""
    return memory.person_id is None or memory.person_id == person_id
