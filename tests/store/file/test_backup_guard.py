"""The store's own checkpoints: on a timer and on WAL size, paused while the backup flag is up."""

from __future__ import annotations

import asyncio
import fcntl
import logging
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import text

from addon.store import database
from addon.store.database import Checkpointer, CheckpointRound, Store
from addon.store.file.backup_guard import STALE_AFTER_S, flag_path, lower_flag, raise_flag
from tests.store.data import add_conversation

# Short enough that a test sees many checkpoint rounds in a fraction of a second.
FAST_INTERVAL_S = 0.02
WAIT_TIMEOUT_S = 10.0
DIGEST_SCRIPT = (
    "import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest())"
)


def _wal(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def _digest(path: Path) -> str:
    """The SHA-256 of a live database file, read by another process.

    Closing a descriptor drops every POSIX lock its process holds on that file, SQLite's
    included: reading the live database in the test's own process would drop the store's locks.
    """
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", DIGEST_SCRIPT, str(path)],
        capture_output=True,
        text=True,
        timeout=WAIT_TIMEOUT_S,
        check=True,
    )
    return result.stdout.strip()


async def _look_begun_now(checkpointer: Checkpointer) -> CheckpointRound:
    """What the store's first periodic look begun after this call did."""
    async with asyncio.timeout(WAIT_TIMEOUT_S):
        await checkpointer.next_round()  # one may be under way, begun before the call
        return await checkpointer.next_round()


async def _due_look_begun_now(checkpointer: Checkpointer) -> CheckpointRound:
    """What the first look begun after this call that found a checkpoint due did with it.

    A look can wake a hair before the interval is up and find nothing due yet; such looks say
    nothing about a backup, so they are passed over.
    """
    outcome = await _look_begun_now(checkpointer)
    async with asyncio.timeout(WAIT_TIMEOUT_S):
        while outcome == "not due":
            outcome = await checkpointer.next_round()
    return outcome


@pytest.fixture
async def fast_store(migrated_database: Path, tmp_path: Path) -> AsyncIterator[Store]:
    """A store over a private migrated database that checkpoints every few milliseconds."""
    path = tmp_path / "home_agent.db"
    shutil.copyfile(migrated_database, path)
    opened = await Store.open(path, checkpoint_interval_s=FAST_INTERVAL_S)
    try:
        yield opened
    finally:
        await opened.close()


async def test_connections_never_checkpoint_automatically(store: Store) -> None:
    """SQLite's automatic checkpoint is off: only the store decides when the file is written."""
    async with store.engine.connect() as connection:
        assert await connection.scalar(text("PRAGMA wal_autocheckpoint")) == 0


async def test_store_checkpoints_in_the_background(fast_store: Store) -> None:
    """Commits reach the database file on the store's timer, with no one asking."""
    before = await asyncio.to_thread(_digest, fast_store.path)
    await add_conversation(fast_store, "c1")
    assert await _due_look_begun_now(fast_store.checkpointer) == "done"
    assert await asyncio.to_thread(_digest, fast_store.path) != before


async def test_wal_past_the_limit_is_checkpointed_before_the_interval(
    migrated_database: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A WAL grown past the size limit is folded in without waiting for the timer."""
    monkeypatch.setattr(database, "WAL_CHECK_S", FAST_INTERVAL_S)
    # One small conversation is about 80 KiB of WAL (its pages and every index it touches).
    monkeypatch.setattr(database, "WAL_LIMIT_BYTES", 256 * 1024)
    path = tmp_path / "home_agent.db"
    shutil.copyfile(migrated_database, path)
    store = await Store.open(path, checkpoint_interval_s=3600.0)
    try:
        before = await asyncio.to_thread(_digest, path)
        await add_conversation(store, "small")
        small_look = await _look_begun_now(store.checkpointer)
        unchanged_while_small = await asyncio.to_thread(_digest, path) == before
        big = tuple((f"turn {n} " + "x" * 4000, "Done.") for n in range(100))
        await add_conversation(store, "big", turns=big)
        big_look = await _look_begun_now(store.checkpointer)
        changed_when_big = await asyncio.to_thread(_digest, path) != before
    finally:
        await store.close()
    assert (small_look, unchanged_while_small) == ("not due", True)
    assert (big_look, changed_when_big) == ("done", True)


async def test_background_checkpoints_pause_while_the_flag_is_up(fast_store: Store) -> None:
    """With the backup flag up, the database file does not change however much is written."""
    await asyncio.to_thread(raise_flag, fast_store.path, WAIT_TIMEOUT_S)
    before = await asyncio.to_thread(_digest, fast_store.path)
    for n in range(20):
        await add_conversation(fast_store, f"c{n}")
    assert await _due_look_begun_now(fast_store.checkpointer) == "paused"
    assert await asyncio.to_thread(_digest, fast_store.path) == before


async def test_background_checkpoints_resume_when_the_flag_is_lowered(fast_store: Store) -> None:
    """Once backup_post lowers the flag, what was written during the backup is folded in."""
    await asyncio.to_thread(raise_flag, fast_store.path, WAIT_TIMEOUT_S)
    before = await asyncio.to_thread(_digest, fast_store.path)
    await add_conversation(fast_store, "c1")
    assert await _due_look_begun_now(fast_store.checkpointer) == "paused"
    await asyncio.to_thread(lower_flag, fast_store.path)
    assert await _due_look_begun_now(fast_store.checkpointer) == "done"
    assert await asyncio.to_thread(_digest, fast_store.path) != before


async def test_a_stale_flag_does_not_pause_checkpoints(fast_store: Store) -> None:
    """A flag older than any backup takes, left by a backup that died, is ignored."""
    await asyncio.to_thread(raise_flag, fast_store.path, WAIT_TIMEOUT_S)
    old = time.time() - STALE_AFTER_S - 60
    os.utime(flag_path(fast_store.path), (old, old))
    before = await asyncio.to_thread(_digest, fast_store.path)
    await add_conversation(fast_store, "c1")
    assert await _due_look_begun_now(fast_store.checkpointer) == "done"
    assert await asyncio.to_thread(_digest, fast_store.path) != before


async def test_a_stale_flag_is_reported_once(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """Ignoring a stale flag logs one warning naming it, not one per checkpoint."""
    await asyncio.to_thread(raise_flag, store.path, WAIT_TIMEOUT_S)
    old = time.time() - STALE_AFTER_S - 60
    os.utime(flag_path(store.path), (old, old))
    with caplog.at_level(logging.WARNING, logger="addon.store.file.backup_guard"):
        ran = [await store.checkpointer.passive() for _ in range(3)]
    messages = [record.getMessage() for record in caplog.records]
    assert ran == [True, True, True]
    assert len(messages) == 1
    assert str(flag_path(store.path)) in messages[0]


async def test_checkpoint_is_skipped_while_the_flag_is_up(store: Store) -> None:
    """Store.checkpoint answers False and leaves the WAL and the file alone during a backup."""
    await add_conversation(store, "c1")
    await asyncio.to_thread(raise_flag, store.path, WAIT_TIMEOUT_S)
    before = await asyncio.to_thread(_digest, store.path)
    assert await store.checkpoint() is False
    assert await asyncio.to_thread(_digest, store.path) == before
    assert _wal(store.path).stat().st_size > 0


async def test_checkpoint_is_skipped_while_a_backup_is_beginning(store: Store) -> None:
    """A backup holding the lock to raise its flag also keeps the store's checkpoints off."""
    directory = os.open(store.path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(directory, fcntl.LOCK_EX)
        ran = await store.checkpointer.passive()
    finally:
        os.close(directory)
    assert ran is False


async def test_a_checkpoint_in_progress_holds_a_backup_back(store: Store) -> None:
    """Raising the flag waits for a running checkpoint, and gives up after its timeout."""
    permit = await store.checkpointer.permit()
    assert permit is not None
    with permit, pytest.raises(TimeoutError, match="still running"):
        await asyncio.to_thread(raise_flag, store.path, 0.1)
    assert not flag_path(store.path).exists()


async def test_a_cancelled_wait_for_a_permit_leaves_no_lock(store: Store) -> None:
    """A caller cancelled while the lock is being taken does not keep backups out for ever."""
    directory = os.open(store.path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(directory, fcntl.LOCK_EX)
        waiting = asyncio.create_task(store.checkpointer.permit(wait_s=0.3))
        await asyncio.sleep(0.05)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
    finally:
        os.close(directory)
    await asyncio.sleep(0.5)
    await asyncio.to_thread(raise_flag, store.path, 0.1)
    assert flag_path(store.path).is_file()


async def _close_after_writing(
    migrated_database: Path, tmp_path: Path, before_close: Callable[[Path], Awaitable[None]]
) -> Path:
    """Open a store, write a conversation, run ``before_close``, close it; returns the path."""
    path = tmp_path / "home_agent.db"
    shutil.copyfile(migrated_database, path)
    store = await Store.open(path)
    try:
        await add_conversation(store, "c1")
        await before_close(path)
    finally:
        await store.close()
    return path


async def test_closing_leaves_every_commit_in_the_database_file(
    migrated_database: Path, tmp_path: Path
) -> None:
    """After close the WAL is empty or gone and the file alone holds the last commit."""

    async def nothing(_path: Path) -> None:
        return None

    path = await _close_after_writing(migrated_database, tmp_path, nothing)
    assert not _wal(path).exists() or _wal(path).stat().st_size == 0
    alone = tmp_path / "alone" / path.name
    alone.parent.mkdir()
    shutil.copyfile(path, alone)
    with closing(sqlite3.connect(alone)) as connection:
        ids = connection.execute("SELECT id FROM conversations").fetchall()
    assert ids == [("c1",)]


async def test_closing_during_a_backup_leaves_the_database_file_untouched(
    migrated_database: Path, tmp_path: Path
) -> None:
    """Stopping the add-on mid-backup writes nothing to the file being copied; the WAL stays."""
    files: dict[str, str] = {}

    async def begin_backup(path: Path) -> None:
        await asyncio.to_thread(raise_flag, path, WAIT_TIMEOUT_S)
        files["before"] = await asyncio.to_thread(_digest, path)

    path = await _close_after_writing(migrated_database, tmp_path, begin_backup)
    assert await asyncio.to_thread(_digest, path) == files["before"]
    assert _wal(path).stat().st_size > 0


async def test_a_store_closed_during_a_backup_reopens_with_every_commit(
    migrated_database: Path, tmp_path: Path
) -> None:
    """The WAL left by a close during a backup is read at the next start."""

    async def begin_backup(path: Path) -> None:
        await asyncio.to_thread(raise_flag, path, WAIT_TIMEOUT_S)

    path = await _close_after_writing(migrated_database, tmp_path, begin_backup)
    lower_flag(path)
    reopened = await Store.open(path)
    try:
        async with reopened.engine.connect() as connection:
            ids = (await connection.execute(text("SELECT id FROM conversations"))).all()
    finally:
        await reopened.close()
    assert [tuple(row) for row in ids] == [("c1",)]
