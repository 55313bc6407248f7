"""An answered turn is on the disk itself before its answer goes out, a power cut included."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from addon.store.database import Store
from addon.store.file import WalSync
from tests.store.turns.build import turn

Synced = list[str]


@pytest.fixture
def synced(monkeypatch: pytest.MonkeyPatch) -> Synced:
    """The files ``os.fsync`` syncs from now on, in order (each still synced for real)."""
    seen: Synced = []
    real: Callable[[int], None] = os.fsync

    def fsync(fd: int) -> None:
        real(fd)
        seen.append(os.readlink(f"/proc/self/fd/{fd}"))

    monkeypatch.setattr(os, "fsync", fsync)
    return seen


async def test_a_turns_commit_is_awaited_until_its_wal_is_synced(
    store: Store, synced: Synced
) -> None:
    """The answer waits for the commit and then for the WAL file's fsync, done in a thread."""
    added = await store.writer.add(turn("c1"))
    assert await added.committed
    assert f"{store.path}-wal" in synced


async def test_turns_committed_before_a_sync_share_it(store: Store, synced: Synced) -> None:
    """Turns whose commits wait together are synced together: one sync, not one each."""
    sync = WalSync(store.path)
    try:
        await asyncio.gather(*(sync.synced() for _ in range(5)))
    finally:
        sync.close()
    assert 1 <= synced.count(f"{store.path}-wal") <= 2


async def test_a_sync_that_fails_is_reported_not_raised(tmp_path: Path) -> None:
    """A database whose file is gone cannot be synced: the caller hears False, nothing raises."""
    sync = WalSync(tmp_path / "missing.db")
    try:
        assert await sync.synced() is False
    finally:
        sync.close()
