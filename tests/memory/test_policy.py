"""Per-kind lifetimes: expiry and importance decay at explicit times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from addon.memory.candidates import MemoryKind
from addon.memory.policy import POLICIES, decayed_importance, expires_at

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def test_events_and_context_expire_facts_and_preferences_do_not() -> None:
    """Events live 30 days, context 7; facts and preferences never expire."""
    assert expires_at(MemoryKind.EVENT, NOW) == datetime(2026, 5, 31, 12, 0, tzinfo=UTC)
    assert expires_at(MemoryKind.CONTEXT, NOW) == datetime(2026, 5, 8, 12, 0, tzinfo=UTC)
    assert expires_at(MemoryKind.FACT, NOW) is None
    assert expires_at(MemoryKind.PREFERENCE, NOW) is None


def test_importance_halves_after_one_half_life() -> None:
    """After its kind's half-life a memory's importance is half what it was."""
    for kind, policy in POLICIES.items():
        assert policy.half_life is not None
        assert decayed_importance(0.8, policy.half_life, kind) == pytest.approx(0.4)


def test_decay_is_faster_for_context_than_for_facts() -> None:
    """A week-old context fades far more than a week-old fact."""
    week = timedelta(days=7)
    assert decayed_importance(0.8, week, MemoryKind.CONTEXT) < 0.8 / 4
    assert decayed_importance(0.8, week, MemoryKind.FACT) > 0.78


def test_no_age_and_negative_age_leave_importance_as_is() -> None:
    """A memory made now, or a clock that went back, does not change importance."""
    assert decayed_importance(0.7, timedelta(0), MemoryKind.EVENT) == 0.7
    assert decayed_importance(0.7, timedelta(days=-3), MemoryKind.EVENT) == 0.7
