"""The confirmation policy's rows in a real migrated SQLite file."""

from __future__ import annotations

from addon.store.database import Store
from addon.store.policy import PolicyRecords
from tests.fixtures.policy import DEFAULT_ENTRIES


async def test_a_new_database_starts_with_the_default_policy(store: Store) -> None:
    """The rows the tests' default policy stands for, each on and confirmed by "yes"."""
    records = PolicyRecords(store.sessionmaker)
    await records.load()
    assert [
        (e.scope, e.target, tuple(e.actions), e.method, e.enabled) for e in records.entries
    ] == [(scope, target, actions, "yes", True) for scope, target, actions in DEFAULT_ENTRIES]
