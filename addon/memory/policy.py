"""How long each kind of memory lives and how fast its importance fades, as data.

Facts and preferences stay until the user or the per-home limit removes them; context and events
are about a time, so they expire. Importance decays exponentially with a half-life per kind, so
ranking and pruning favour what is recent unless it was important to begin with. Recalling a memory
(the store's ``last_recalled``) is the age's natural origin: what keeps being useful stays fresh.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from addon.memory.candidates import MemoryKind


@dataclass(frozen=True, slots=True)
class KindPolicy:
    """The lifetime of one kind: ``ttl`` None never expires, ``half_life`` None never decays."""

    ttl: timedelta | None
    half_life: timedelta | None


POLICIES: dict[MemoryKind, KindPolicy] = {
    MemoryKind.FACT: KindPolicy(ttl=None, half_life=timedelta(days=365)),
    MemoryKind.PREFERENCE: KindPolicy(ttl=None, half_life=timedelta(days=180)),
    MemoryKind.CONTEXT: KindPolicy(ttl=timedelta(days=7), half_life=timedelta(days=3)),
    MemoryKind.EVENT: KindPolicy(ttl=timedelta(days=30), half_life=timedelta(days=14)),
}


def expires_at(kind: MemoryKind, now: datetime) -> datetime | None:
    """When a memory of ``kind`` made (or refreshed) at ``now`` expires; None for never.

    A pinned memory never expires whatever its kind: the store passes None for it.
    """
    ttl = POLICIES[kind].ttl
    return None if ttl is None else now + ttl


def decayed_importance(importance: float, age: timedelta, kind: MemoryKind) -> float:
    """``importance`` after ``age`` of exponential decay at ``kind``'s half-life.

    A negative age (a clock that went back) counts as none, so importance never grows by decay.
    """
    half_life = POLICIES[kind].half_life
    if half_life is None or age <= timedelta(0):
        return importance
    factor: float = 0.5 ** (age / half_life)
    return importance * factor
