"""The checkpoint CLI run by the backup hooks, and a backup taken the way Supervisor takes it."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from sqlalchemy import func, select, text

from addon.store.database import Store
from addon.store.file.backup_guard import flag_path
from addon.store.models import Conversation
from tests.store.data import add_conversation

CLI_TIMEOUT_S = 30.0


def _run_cli(*args: str) -> tuple[int, str]:
    """Run ``python -m addon.store.file.checkpoint`` as the hook does; returns status and stderr."""
    result = subprocess.run(
        [sys.executable, "-m", "addon.store.file.checkpoint", *args],
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
        check=False,
    )
    return result.returncode, result.stderr


def _start_cli(*args: str) -> subprocess.Popen[str]:
    """Start ``python -m addon.store.file.checkpoint`` without waiting for it."""
    return subprocess.Popen(
        [sys.executable, "-m", "addon.store.file.checkpoint", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wal(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


async def test_cli_folds_the_wal_into_the_database(store: Store) -> None:
    """With the add-on's store open, the CLI exits 0 and leaves the WAL empty."""
    await add_conversation(store, "c1")
    assert _wal(store.path).stat().st_size > 0
    status, stderr = await asyncio.to_thread(_run_cli, str(store.path))
    assert (status, stderr) == (0, "")
    assert _wal(store.path).stat().st_size == 0


async def test_cli_fails_clearly_while_a_reader_holds_an_old_snapshot(store: Store) -> None:
    """A reader that keeps the checkpoint from completing gives one line and a non-zero status."""
    await add_conversation(store, "c1")
    with closing(sqlite3.connect(store.path, isolation_level=None)) as reader:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM conversations").fetchall()
        await add_conversation(store, "c2")
        status, stderr = await asyncio.to_thread(_run_cli, str(store.path), "--timeout", "0.2")
        reader.execute("ROLLBACK")
    assert status == 1
    assert stderr.count("\n") == 1
    assert "did not complete" in stderr


def test_cli_refuses_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    """A file that is not SQLite gives one line naming it and a non-zero status."""
    path = tmp_path / "home_agent.db"
    path.write_bytes(b"not a database\n" * 100)
    status, stderr = _run_cli(str(path))
    assert status == 1
    assert stderr.count("\n") == 1
    assert str(path) in stderr


def test_cli_without_a_database_succeeds_and_creates_nothing(tmp_path: Path) -> None:
    """Before the first start there is nothing to checkpoint: exit 0, and no file appears."""
    status, _stderr = _run_cli(str(tmp_path / "home_agent.db"))
    assert status == 0
    assert list(tmp_path.iterdir()) == []


async def test_plain_checkpoint_raises_no_flag(store: Store) -> None:
    """Without --begin-backup the CLI only checkpoints: the add-on's checkpoints go on."""
    await add_conversation(store, "c1")
    status, _stderr = await asyncio.to_thread(_run_cli, str(store.path))
    assert status == 0
    assert not flag_path(store.path).exists()


async def test_begin_backup_folds_the_wal_in_and_raises_the_flag(store: Store) -> None:
    """--begin-backup exits 0 with the WAL empty and the backup flag up."""
    await add_conversation(store, "c1")
    status, stderr = await asyncio.to_thread(_run_cli, "--begin-backup", str(store.path))
    assert (status, stderr) == (0, "")
    assert _wal(store.path).stat().st_size == 0
    assert flag_path(store.path).is_file()


async def test_end_backup_lowers_the_flag(store: Store) -> None:
    """--end-backup after --begin-backup exits 0 and leaves no flag."""
    await asyncio.to_thread(_run_cli, "--begin-backup", str(store.path))
    status, stderr = await asyncio.to_thread(_run_cli, "--end-backup", str(store.path))
    assert (status, stderr) == (0, "")
    assert not flag_path(store.path).exists()


async def test_end_backup_folds_in_what_the_backup_held_back(store: Store) -> None:
    """Commits made during the backup reach the database file at --end-backup."""
    await asyncio.to_thread(_run_cli, "--begin-backup", str(store.path))
    # Big enough to need new pages, so the file grows when they are folded in. (Its size, not
    # its bytes: closing a descriptor of the live file would drop the store's locks on it.)
    big = tuple((f"turn {n} " + "x" * 4000, "Done.") for n in range(20))
    await add_conversation(store, "during-backup", turns=big)
    size_during = (await asyncio.to_thread(store.path.stat)).st_size
    await asyncio.to_thread(_run_cli, "--end-backup", str(store.path))
    assert (await asyncio.to_thread(store.path.stat)).st_size > size_during


def test_end_backup_without_a_flag_succeeds(migrated_database: Path, tmp_path: Path) -> None:
    """A second backup_post, or one after a lost flag, is harmless."""
    path = tmp_path / "home_agent.db"
    shutil.copyfile(migrated_database, path)
    assert _run_cli("--end-backup", str(path)) == (0, "")


async def test_begin_backup_that_cannot_checkpoint_lowers_the_flag(store: Store) -> None:
    """A failed backup_pre gets no backup_post from Supervisor, so it leaves no flag behind."""
    await add_conversation(store, "c1")
    with closing(sqlite3.connect(store.path, isolation_level=None)) as reader:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM conversations").fetchall()
        await add_conversation(store, "c2")
        status, stderr = await asyncio.to_thread(
            _run_cli, "--begin-backup", str(store.path), "--timeout", "0.2"
        )
        reader.execute("ROLLBACK")
    assert status == 1
    assert "did not complete" in stderr
    assert not flag_path(store.path).exists()


async def test_begin_backup_waits_for_a_checkpoint_in_progress(store: Store) -> None:
    """The flag goes up only once the add-on's running checkpoint has ended."""
    permit = await store.checkpointer.permit()
    assert permit is not None
    with permit:
        process = await asyncio.to_thread(_start_cli, "--begin-backup", str(store.path))
        assert process.stdout is not None
        # The hook says so once it found the lock taken (a bounded read: it gives up at 10 s).
        notice = await asyncio.to_thread(process.stdout.readline)
        flag_up_while_checkpointing = flag_path(store.path).exists()
    _stdout, stderr = await asyncio.to_thread(process.communicate, timeout=CLI_TIMEOUT_S)
    assert notice.startswith("waiting for the add-on's checkpoint to end")
    assert not flag_up_while_checkpointing
    assert (process.returncode, stderr) == (0, "")
    assert flag_path(store.path).is_file()


def test_begin_backup_without_a_database_still_raises_the_flag(tmp_path: Path) -> None:
    """An add-on that creates its database during the backup must not checkpoint it either."""
    status, _stderr = _run_cli("--begin-backup", str(tmp_path / "home_agent.db"))
    assert status == 0
    assert [path.name for path in tmp_path.iterdir()] == ["home_agent.db.backup-in-progress"]


def _copy_like_supervisor(database: Path, backup_dir: Path) -> None:
    """Copy the database, then its WAL if one exists at that moment; never the -shm."""
    shutil.copyfile(database, backup_dir / database.name)
    wal = _wal(database)
    if wal.exists():
        shutil.copyfile(wal, backup_dir / wal.name)


async def test_backup_taken_during_writes_restores_intact(store: Store, tmp_path: Path) -> None:
    """Checkpoint then file copy while turns are being written gives a complete, sound database."""
    committed = 0
    progress = asyncio.Condition()
    stop = asyncio.Event()

    async def write_turns() -> None:
        nonlocal committed
        while not stop.is_set():
            text_ = f"turn number {committed} " + "padding " * 40
            await add_conversation(store, f"c{committed}", turns=((text_, "Done."),))
            async with progress:
                committed += 1
                progress.notify_all()

    async def committed_at_least(count: int) -> None:
        async with progress:
            await progress.wait_for(lambda: committed >= count)

    writer = asyncio.create_task(write_turns())
    try:
        await asyncio.wait_for(committed_at_least(50), CLI_TIMEOUT_S)
        status, stderr = await asyncio.to_thread(_run_cli, str(store.path))
        assert (status, stderr) == (0, "")
        # Supervisor copies a moment later; the add-on has written more by then, into the WAL.
        await asyncio.wait_for(committed_at_least(committed + 20), CLI_TIMEOUT_S)
        committed_before_copy = committed
        backup_dir = tmp_path / "backup"
        backup_dir.mkdir()
        await asyncio.to_thread(_copy_like_supervisor, store.path, backup_dir)
    finally:
        stop.set()
        await writer

    assert (backup_dir / _wal(store.path).name).stat().st_size > 0
    restored = await Store.open(backup_dir / store.path.name)
    try:
        async with restored.engine.connect() as connection:
            integrity = await connection.scalar(text("PRAGMA integrity_check"))
            await connection.exec_driver_sql(
                "INSERT INTO turns_fts(turns_fts, rank) VALUES ('integrity-check', 1)"
            )
            rows = await connection.scalar(select(func.count()).select_from(Conversation))
    finally:
        await restored.close()
    assert integrity == "ok"
    assert rows is not None
    assert rows >= committed_before_copy
