"""A memory the extraction proposes, before rules, merging and storage decide its fate."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class MemoryKind(StrEnum):
    """What sort of thing a memory records; each kind has its own lifetime (``policy``)."""

    FACT = "fact"
    """Stable knowledge about the home or its people: "the cat is called Miso"."""
    PREFERENCE = "preference"
    """How someone likes things: "Anna wants the bedroom at 19 degrees at night"."""
    CONTEXT = "context"
    """A situation that matters for a while: "guests are staying this week"."""
    EVENT = "event"
    """Something that happened or will happen: "the boiler was serviced on 3 May"."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One thing worth remembering, as extracted (or added by hand) but not yet stored.

    ``importance`` is clamped to 0..1 by :func:`candidate`; entities and areas are the Home
    Assistant entity ids and area names it concerns, lower-cased and without duplicates.
    """

    content: str
    kind: MemoryKind
    importance: float
    entities: tuple[str, ...] = ()
    areas: tuple[str, ...] = ()


def candidate(
    content: str,
    kind: MemoryKind | str,
    importance: float,
    entities: tuple[str, ...] | list[str] = (),
    areas: tuple[str, ...] | list[str] = (),
) -> Candidate:
    """A candidate with its fields normalised: trimmed text, known kind, bounded importance.

    Raises ``ValueError`` for an unknown kind, so a model's invented kind is rejected, not kept.
    """
    return Candidate(
        content=" ".join(content.split()),
        kind=MemoryKind(kind),
        importance=min(1.0, max(0.0, float(importance))),
        entities=_unique(entities),
        areas=_unique(areas),
    )


def _unique(values: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for value in values:
        cleaned = " ".join(str(value).split()).lower()
        if cleaned:
            seen.setdefault(cleaned, None)
    return tuple(seen)
