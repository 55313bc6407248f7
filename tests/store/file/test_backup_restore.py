"""Backups copied the way tar copies them, while the add-on writes, restore to sound databases."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import pytest
from sqlalchemy import func, select

from addon.store.database import Store
from addon.store.models import Turn
from addon.store.turns import LLMCallRecord, ToolCallRecord, TurnRecord
from devtools.recording import record_turn

CLI_TIMEOUT_S = 30.0
WAIT_TIMEOUT_S = 30.0
ROUNDS = 3
# Not a multiple of SQLite's page or WAL frame size, so chunk edges fall inside pages and frames;
# the pauses let the writer commit many times while one file is being copied.
CHUNK_BYTES = 16 * 1024 - 3
CHUNK_PAUSE_S = 0.001
TURNS_PER_CONVERSATION = 5
# Like tar, which reads exactly the size it saw when it started ("tar"), or like cp, which goes
# on to the end of the file, wherever the writer has got to by then ("cp"). Past the size seen
# at the start cp reads without pauses: the writer appends faster than a paused reader reads.
COPY_SCRIPT = """
import sys, time
from pathlib import Path
chunk_bytes, pause_s, like_tar = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3] == "tar"
directory = Path(sys.argv[4])
for name in sys.argv[5:]:
    source = Path(name)
    size = source.stat().st_size
    copied = 0
    with source.open("rb") as reader, (directory / source.name).open("wb") as writer:
        while not like_tar or copied < size:
            want = min(chunk_bytes, size - copied) if like_tar else chunk_bytes
            chunk = reader.read(want)
            if not chunk:
                break
            writer.write(chunk)
            copied += len(chunk)
            if copied < size:
                time.sleep(pause_s)
"""
DIGEST_SCRIPT = (
    "import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest())"
)
PAGE_BYTES = 4096


def _wal(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def _hook(step: str, database: Path) -> None:
    """Run a backup hook as Supervisor does, in its own process; it must succeed."""
    result = subprocess.run(
        [sys.executable, "-m", "addon.store.file.checkpoint", step, str(database)],
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
        check=False,
    )
    assert (result.returncode, result.stderr) == (0, ""), step


async def _copy_slowly(directory: Path, *sources: Path, like_tar: bool) -> None:
    """Copy ``sources`` into ``directory`` from another process, slowly, as the writer writes.

    Another process, as tar is: closing a descriptor drops every POSIX lock its process holds
    on the file, so copying the live database from the test's own process would drop the
    store's locks.
    """
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",
        "-S",
        "-c",
        COPY_SCRIPT,
        str(CHUNK_BYTES),
        str(CHUNK_PAUSE_S),
        "tar" if like_tar else "cp",
        str(directory),
        *map(str, sources),
    )
    assert await asyncio.wait_for(process.wait(), WAIT_TIMEOUT_S) == 0


def _digest(path: Path) -> str:
    """The SHA-256 of a file, read by another process (see :func:`_copy_slowly` for why)."""
    result = subprocess.run(
        [sys.executable, "-I", "-S", "-c", DIGEST_SCRIPT, str(path)],
        capture_output=True,
        text=True,
        timeout=WAIT_TIMEOUT_S,
        check=True,
    )
    return result.stdout.strip()


def _turn(number: int) -> TurnRecord:
    """The ``number``-th turn: big enough to span pages, with a model call and a tool call."""
    now = datetime.now(UTC)
    padding = f"turn {number} " + "the kitchen light, the hall light and the porch light " * 20
    return TurnRecord(
        conversation_id=f"c{number // TURNS_PER_CONVERSATION}",
        source="wyoming",
        device_id=None,
        satellite_id="kitchen",
        language="en",
        created_at=now,
        user_text=padding,
        reply_text="Done.",
        handled_by="llm",
        dry_run=False,
        error=None,
        duration_ms=12.5,
        messages=[{"role": "user", "content": padding}],
        timings={"llm_ms": 10.0},
        llm_calls=[
            LLMCallRecord(
                started_at=now,
                model="test-model",
                streamed=False,
                request_messages=[{"role": "user", "content": padding}],
                request_tools=[],
                response={"content": "Done."},
                prompt_tokens=100,
                completion_tokens=2,
                ttft_ms=None,
                duration_ms=10.0,
                finish_reason="stop",
                error=None,
            )
        ],
        tool_calls=[
            ToolCallRecord(
                started_at=now,
                call_id=f"call-{number}",
                name="HassTurnOn",
                arguments={"name": "kitchen light"},
                result={"success": True},
                duration_ms=1.0,
                executor="live",
                error=None,
                llm_call=0,
            )
        ],
    )


class Writer:
    """Records turns through the store, one transaction each, until stopped."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._stop = asyncio.Event()
        self._progress = asyncio.Condition()
        self.committed = 0

    async def run(self) -> None:
        """Write turns one after another, counting each once its transaction has committed."""
        while not self._stop.is_set():
            async with self._store.sessionmaker.begin() as session:
                await record_turn(session, _turn(self.committed))
            async with self._progress:
                self.committed += 1
                self._progress.notify_all()

    async def reached(self, count: int) -> None:
        """Wait until ``count`` turns have committed."""
        async with self._progress:
            await asyncio.wait_for(
                self._progress.wait_for(lambda: self.committed >= count), WAIT_TIMEOUT_S
            )

    def stop(self) -> None:
        """Let the turn being written be the last."""
        self._stop.set()


@dataclass(frozen=True, slots=True)
class Backup:
    """One copy and what was known while it was taken."""

    directory: Path
    committed_before: int
    committed_after: int
    file_at_begin: str
    file_after_copy: str


@dataclass(frozen=True, slots=True)
class Restored:
    """What a restored copy holds, read with the standard library."""

    integrity: str
    foreign_key_problems: list[tuple[object, ...]]
    turns: int
    lowest_turn_id: int
    highest_turn_id: int
    llm_calls: int
    tool_calls: int
    miscounted_conversations: list[tuple[object, ...]]


@pytest.fixture
async def busy_store(migrated_database: Path, tmp_path: Path) -> AsyncIterator[Store]:
    """A store that would checkpoint every few milliseconds if nothing held it back."""
    path = tmp_path / "live" / "home_agent.db"
    path.parent.mkdir()
    shutil.copyfile(migrated_database, path)
    store = await Store.open(path, checkpoint_interval_s=0.005)
    try:
        yield store
    finally:
        await store.close()


async def _take_backups(store: Store, tmp_path: Path) -> list[Backup]:
    """Take ROUNDS backups, hooks and slow copies, while a writer records turns throughout."""
    writer = Writer(store)
    writing = asyncio.create_task(writer.run())
    backups: list[Backup] = []
    try:
        for round_number in range(ROUNDS):
            await writer.reached(writer.committed + 20)
            await asyncio.to_thread(_hook, "--begin-backup", store.path)
            file_at_begin = await asyncio.to_thread(_digest, store.path)
            committed_before = writer.committed
            directory = tmp_path / f"backup-{round_number}"
            directory.mkdir()
            await _copy_slowly(
                directory, store.path, _wal(store.path), like_tar=round_number % 2 == 0
            )
            file_after_copy = await asyncio.to_thread(_digest, store.path)
            await asyncio.to_thread(_hook, "--end-backup", store.path)
            backups.append(
                Backup(
                    directory, committed_before, writer.committed, file_at_begin, file_after_copy
                )
            )
    finally:
        writer.stop()
        await writing
    return backups


def _read_restored(path: Path) -> Restored:
    """Open a restored copy read-only, as it came out of the backup, and check every row."""
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as connection:

        def one(sql: str) -> int:
            return int(connection.execute(sql).fetchone()[0])

        return Restored(
            integrity=connection.execute("PRAGMA integrity_check").fetchone()[0],
            foreign_key_problems=connection.execute("PRAGMA foreign_key_check").fetchall(),
            turns=one("SELECT count(*) FROM turns"),
            lowest_turn_id=one("SELECT coalesce(min(id), 1) FROM turns"),
            highest_turn_id=one("SELECT coalesce(max(id), 0) FROM turns"),
            llm_calls=one("SELECT count(*) FROM llm_calls"),
            tool_calls=one("SELECT count(*) FROM tool_calls"),
            miscounted_conversations=connection.execute(
                "SELECT c.id FROM conversations c"
                " WHERE c.turn_count !="
                " (SELECT count(*) FROM turns t WHERE t.conversation_id = c.id)"
            ).fetchall(),
        )


async def _turns_through_store(path: Path) -> int:
    """Open a restored copy as the add-on would at its next start; count its turns."""
    restored = await Store.open(path)
    try:
        async with restored.engine.connect() as connection:
            await connection.exec_driver_sql(
                "INSERT INTO turns_fts(turns_fts, rank) VALUES ('integrity-check', 1)"
            )
            count = await connection.scalar(select(func.count()).select_from(Turn))
    finally:
        await restored.close()
    return int(count or 0)


async def test_backups_taken_mid_write_restore_cleanly(busy_store: Store, tmp_path: Path) -> None:
    """Every copy opens clean and holds a whole-transaction prefix of what was written."""
    backups = await _take_backups(busy_store, tmp_path)
    for backup in backups:
        copy = backup.directory / busy_store.path.name
        assert await asyncio.to_thread(_digest, copy) == backup.file_at_begin
        restored = await asyncio.to_thread(_read_restored, copy)
        assert restored.integrity == "ok"
        assert restored.foreign_key_problems == []
        assert backup.committed_before <= restored.turns <= backup.committed_after
        # No gap: the turns one writer recorded, from its first on.
        assert restored.highest_turn_id - restored.lowest_turn_id + 1 == restored.turns
        assert restored.llm_calls == restored.tool_calls == restored.turns
        assert restored.miscounted_conversations == []
        assert await _turns_through_store(copy) == restored.turns


async def test_the_database_file_is_not_written_while_it_is_copied(
    busy_store: Store, tmp_path: Path
) -> None:
    """From backup_pre to backup_post the live file stays as backup_pre left it, byte for byte."""
    backups = await _take_backups(busy_store, tmp_path)
    assert all(backup.file_after_copy == backup.file_at_begin for backup in backups)


async def test_a_wal_cut_inside_a_transaction_restores_the_ones_before_it(
    busy_store: Store, tmp_path: Path
) -> None:
    """A WAL copy ending mid-transaction (torn frame) restores exactly the commits before it."""
    await asyncio.to_thread(_hook, "--begin-backup", busy_store.path)
    wal = _wal(busy_store.path)
    sizes = []
    for number in range(4):
        async with busy_store.sessionmaker.begin() as session:
            await record_turn(session, _turn(number))
        sizes.append((await asyncio.to_thread(wal.stat)).st_size)
    complete, grown = sizes[-2:]
    directory = tmp_path / "torn"
    directory.mkdir()
    await _copy_slowly(directory, busy_store.path, wal, like_tar=True)
    # Halfway into the last transaction's frames, and off any frame boundary.
    cut = complete + (grown - complete) // 2 + 7
    with (directory / wal.name).open("r+b") as copied_wal:
        copied_wal.truncate(cut)
    await asyncio.to_thread(_hook, "--end-backup", busy_store.path)
    restored = await asyncio.to_thread(_read_restored, directory / busy_store.path.name)
    assert restored.integrity == "ok"
    assert restored.turns == 3


def test_without_the_guard_a_checkpoint_mid_copy_tears_the_copied_file(
    migrated_database: Path, tmp_path: Path
) -> None:
    """The risk being guarded against: the old hook, then SQLite's own checkpoint mid-copy.

    Copying page 1 before the checkpoint and the rest after gives a file that is neither the
    database at backup_pre time nor the one after: half old pages, half new.
    """
    path = tmp_path / "home_agent.db"
    shutil.copyfile(migrated_database, path)
    insert = (
        "INSERT INTO conversations (id, started_at, updated_at, source, language, title,"
        " turn_count, error_count, flagged_count)"
        " VALUES (?, '2026-11-22', '2026-11-22', 'http', 'en', ?, 0, 0, 0)"
    )
    with closing(sqlite3.connect(path, isolation_level=None)) as add_on:
        add_on.execute("PRAGMA journal_mode = WAL")
        add_on.execute("PRAGMA wal_autocheckpoint = 1")  # SQLite's own, at every commit
        add_on.executemany(insert, [(f"before-{n}", "x" * 400) for n in range(50)])
        result = subprocess.run(
            [sys.executable, "-m", "addon.store.file.checkpoint", str(path)],
            capture_output=True,
            text=True,
            timeout=CLI_TIMEOUT_S,
            check=True,
        )
        assert result.stderr == ""
        # Read in this process, unlike the other tests: no other process connects from here on,
        # so the locks that closing these descriptors drops protect nothing.
        at_backup_pre = path.read_bytes()
        with path.open("rb") as tar:
            first_page = tar.read(PAGE_BYTES)
            add_on.executemany(insert, [(f"during-{n}", "y" * 400) for n in range(50)])
            rest = tar.read(len(at_backup_pre) - PAGE_BYTES)
        after = path.read_bytes()[: len(at_backup_pre)]
    copied = first_page + rest
    assert copied != at_backup_pre
    assert copied != after
