"""What memory takes from and hands to the agent, the memory tools and the panel: typed records.

Frozen dataclasses, so what crosses from memory to its callers says what each field is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from addon.memory.extraction import Extraction
from addon.memory.rules import Rejection, RejectReason
from addon.store.memories import MemoryRecord


@dataclass(frozen=True, slots=True)
class MemoryLimits:
    """How much memory a home keeps and how much of it a request carries."""

    max_memories: int = 1000
    recall_limit: int = 5
    """At most this many memories go into one request."""
    recall_tokens: int = 250
    """And at most about this many tokens of them (a few short sentences)."""


@dataclass(frozen=True, slots=True)
class RecallRequest:
    """What a turn's recall is about: the words, and who says them where."""

    utterance: str
    area: str | None = None
    """The name of the speaking device's area."""
    entity_ids: tuple[str, ...] = ()
    """The speaking device's entities."""
    history: str = ""
    """The user's earlier words in this conversation, for follow-ups ("and what about her?")."""
    person_id: str | None = None
    """Who asks (their person, else their user): their memories and the household's are
    recalled, never another person's. None: the household's only."""


@dataclass(frozen=True, slots=True)
class RecalledMemory:
    """A memory as a request carries it."""

    id: int
    content: str
    entity_ids: tuple[str, ...] = ()
    """The entities the memory concerns: a large home lists them with the turn's devices."""


@dataclass(frozen=True, slots=True)
class TurnSource:
    """The stored turn something came from."""

    conversation_id: str
    turn_id: int
    person_id: str | None = None
    """Who said it: what is learned from the turn is theirs (None: the household's)."""


class Outcome(StrEnum):
    """What became of something the user asked to remember."""

    ADDED = "added"
    MERGED = "merged"
    """It said what a memory already said; that one now has the better wording."""
    REFUSED = "refused"


@dataclass(frozen=True, slots=True)
class Remembered:
    """The answer to :meth:`MemoryService.remember`; ``memory`` is None when nothing was kept."""

    outcome: Outcome
    content: str
    memory: MemoryRecord | None = None
    reason: RejectReason | None = None


@dataclass(frozen=True, slots=True)
class AfterTurn:
    """What a finished turn leaves for memory to store once the turn is stored.

    ``turn`` is None when the turn could not be stored (the store is failing): extracted
    memories are still kept, without their source, and nothing is linked to the turn.
    """

    turn: TurnSource | None
    recalled: tuple[int, ...] = ()
    """The memories recalled into the turn's request."""
    told: tuple[int, ...] = ()
    """The memories the turn's tools added or merged, to credit to the turn."""
    extraction: Extraction | None = None


@dataclass(frozen=True, slots=True)
class Learned:
    """What :meth:`MemoryService.after_turn` did with a turn's extraction."""

    added: tuple[int, ...] = ()
    merged: tuple[int, ...] = ()
    rejected: tuple[Rejection, ...] = ()
    error: str | None = None
    """Why the extraction produced nothing, when it failed (the model, its JSON)."""
    call_ids: tuple[int, ...] = ()
    """The extraction's model calls as stored under the turn."""
    pruned: tuple[int, ...] = ()


class MemoryChanges(Protocol):
    """Told when the panel changes memories, so recall sees the change at once."""

    async def changed(self, memory_ids: Sequence[int]) -> None:
        """These memories were edited, added, restored or forgotten."""
        ...

    async def cleared(self) -> None:
        """Every memory was forgotten."""
        ...
