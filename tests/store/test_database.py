"""Opening, configuring and refusing databases: the Store over real SQLite files."""

from __future__ import annotations

import asyncio
import re
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import delete, func, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import create_async_engine

from addon.errors import SchemaTooNewError, StoreError, StoreLockedError
from addon.store.database import Store
from addon.store.migrate import database_url, upgrade_to_head
from addon.store.models import Conversation, LLMCall, ToolCall, Turn
from tests.store.data import add_conversation

UNKNOWN_REVISION = "ffffffffffff"


def _files(directory: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir())}


@pytest.fixture
def closed_database(migrated_database: Path, tmp_path: Path) -> Path:
    """A migrated database file in its own directory, with no connection open."""
    path = tmp_path / "data" / "home_agent.db"
    path.parent.mkdir()
    shutil.copyfile(migrated_database, path)
    return path


@pytest.fixture
def newer_database(closed_database: Path) -> Path:
    """A closed database stamped with a revision only a newer Home Agent would know."""
    with closing(sqlite3.connect(closed_database)) as connection, connection:
        connection.execute("UPDATE alembic_version SET version_num = ?", (UNKNOWN_REVISION,))
    return closed_database


@pytest.fixture
def crashed_database(closed_database: Path, tmp_path: Path) -> Path:
    """A copy taken mid-transaction of a rollback-journal database: the state a crash leaves."""
    crashed = tmp_path / "crashed" / "home_agent.db"
    crashed.parent.mkdir()
    with closing(sqlite3.connect(closed_database, isolation_level=None)) as connection:
        connection.execute("PRAGMA journal_mode = DELETE")
        connection.execute(
            "INSERT INTO conversations (id, started_at, updated_at, source, language, title,"
            " turn_count, error_count, flagged_count)"
            " VALUES ('committed', '2026-11-22', '2026-11-22', 'http', 'en', '', 0, 0, 0)"
        )
        connection.execute("PRAGMA cache_size = 1")  # spill pages to the file before commit
        connection.execute("BEGIN")
        connection.executemany(
            "INSERT INTO conversations (id, started_at, updated_at, source, language, title,"
            " turn_count, error_count, flagged_count)"
            " VALUES (?, '2026-11-22', '2026-11-22', 'http', 'en', ?, 0, 0, 0)",
            [(f"uncommitted-{n}", "x" * 190) for n in range(500)],
        )
        for name in (crashed.name, crashed.name + "-journal"):
            shutil.copyfile(closed_database.with_name(name), crashed.with_name(name))
        connection.execute("ROLLBACK")
    return crashed


@pytest.fixture
def immutable_directory(tmp_path: Path) -> Iterator[Path]:
    """An existing directory that even root cannot create files in (``chattr +i``)."""
    directory = tmp_path / "frozen"
    directory.mkdir()
    if shutil.which("chattr") is None:
        pytest.skip("chattr is not installed")
    made = subprocess.run(["chattr", "+i", str(directory)], capture_output=True, check=False)
    if made.returncode != 0:
        pytest.skip(f"this filesystem refuses chattr +i: {made.stderr.decode().strip()}")
    try:
        yield directory
    finally:
        subprocess.run(["chattr", "-i", str(directory)], check=True)


async def test_journal_mode_is_wal(store: Store) -> None:
    """Connections use WAL, so the web UI can read while the agent writes."""
    async with store.engine.connect() as connection:
        assert await connection.scalar(text("PRAGMA journal_mode")) == "wal"


async def test_a_commit_does_not_wait_for_the_disk(store: Store) -> None:
    """NORMAL sync: the loop commits; the writer syncs an answered turn in a thread."""
    async with store.engine.connect() as connection:
        assert await connection.scalar(text("PRAGMA synchronous")) == 1
    for own in store.writer.batch_connections:
        assert own.dbapi.execute("PRAGMA synchronous").fetchone() == (1,)


async def test_foreign_keys_are_enforced(store: Store) -> None:
    """A turn pointing at a conversation that does not exist is rejected."""
    with pytest.raises(IntegrityError):
        async with store.sessionmaker.begin() as session:
            session.add(Turn(conversation_id="missing", seq=0, user_text="hi", handled_by="llm"))


async def test_deleting_a_conversation_cascades_to_turns_and_calls(store: Store) -> None:
    """The database itself removes a deleted conversation's turns, model calls and tool calls."""
    await add_conversation(store, "c1", turns=(("a", "b"), ("c", "d")))
    async with store.sessionmaker.begin() as session:
        await session.execute(delete(Conversation).where(Conversation.id == "c1"))
    async with store.sessionmaker() as session:
        counts = [
            await session.scalar(select(func.count()).select_from(model))
            for model in (Turn, LLMCall, ToolCall)
        ]
    assert counts == [0, 0, 0]


async def test_health_reports_the_schema_revision(store: Store) -> None:
    """A working store reports ok with the revision it is at."""
    async with store.engine.connect() as connection:
        revision = await connection.scalar(text("SELECT version_num FROM alembic_version"))
    health = await store.health()
    assert (health.status, health.detail) == ("ok", f"schema {revision}")


async def test_checkpoint_empties_the_wal(store: Store) -> None:
    """After a checkpoint the WAL file is truncated and the main file holds every commit."""
    await add_conversation(store, "c1")
    wal = store.path.with_name(store.path.name + "-wal")
    assert wal.stat().st_size > 0
    await store.checkpoint()
    assert wal.stat().st_size == 0


async def test_checkpoint_held_up_by_a_reader_raises_store_locked(closed_database: Path) -> None:
    """A reader on an old snapshot past the busy timeout makes checkpoint raise StoreLockedError."""
    store = await Store.open(closed_database, busy_timeout_s=0.2)
    try:
        await add_conversation(store, "c1")
        with closing(sqlite3.connect(closed_database, isolation_level=None)) as reader:
            reader.execute("BEGIN")
            reader.execute("SELECT count(*) FROM conversations").fetchall()
            await add_conversation(store, "c2")
            with pytest.raises(StoreLockedError, match="did not complete"):
                await store.checkpoint()
            reader.execute("ROLLBACK")
    finally:
        await store.close()


async def test_open_creates_the_data_directory(tmp_path: Path) -> None:
    """The data directory and its parents are created on first start."""
    store = await Store.open(tmp_path / "a" / "b" / "home_agent.db")
    await store.close()
    assert (tmp_path / "a" / "b" / "home_agent.db").is_file()


async def test_newer_schema_is_refused_untouched(newer_database: Path) -> None:
    """A database stamped by a newer Home Agent raises SchemaTooNewError and keeps its bytes."""
    before = await asyncio.to_thread(newer_database.read_bytes)
    with pytest.raises(SchemaTooNewError, match=UNKNOWN_REVISION):
        await Store.open(newer_database)
    assert await asyncio.to_thread(newer_database.read_bytes) == before


async def test_upgrade_refuses_a_newer_schema_inside_its_transaction(
    newer_database: Path,
) -> None:
    """The upgrade itself re-checks the revision, in case a newer version stamped it meanwhile."""
    engine = create_async_engine(database_url(newer_database))
    try:
        with pytest.raises(SchemaTooNewError, match=UNKNOWN_REVISION):
            await upgrade_to_head(engine)
    finally:
        await engine.dispose()


async def test_database_left_mid_transaction_by_a_crash_is_recovered(
    crashed_database: Path,
) -> None:
    """A hot rollback journal is rolled back on open: the committed row stays, the rest goes."""
    store = await Store.open(crashed_database)
    try:
        async with store.sessionmaker() as session:
            ids = set(await session.scalars(select(Conversation.id)))
    finally:
        await store.close()
    assert ids == {"committed"}


async def test_locked_database_raises_store_locked(closed_database: Path) -> None:
    """Another process holding the write lock past the busy timeout gives StoreLockedError."""
    with closing(sqlite3.connect(closed_database, isolation_level=None)) as holder:
        holder.execute("BEGIN EXCLUSIVE")
        with pytest.raises(StoreLockedError, match="locked"):
            await Store.open(closed_database, busy_timeout_s=0.2)
        holder.execute("ROLLBACK")


async def test_file_that_is_not_a_database_is_refused_untouched(tmp_path: Path) -> None:
    """A file without SQLite's header raises StoreError, and the directory is left as it was."""
    path = tmp_path / "home_agent.db"
    path.write_bytes(b"not a database\n" * 100)
    before = _files(tmp_path)
    with pytest.raises(StoreError, match="not a SQLite database"):
        await Store.open(path)
    assert _files(tmp_path) == before


async def test_data_directory_that_cannot_be_created_is_refused(tmp_path: Path) -> None:
    """A data directory under a regular file raises a StoreError that names the directory."""
    (tmp_path / "afile").write_text("")
    directory = tmp_path / "afile" / "data"
    with pytest.raises(
        StoreError, match=re.escape(f"cannot create the data directory {directory}")
    ):
        await Store.open(directory / "home_agent.db")


async def test_data_directory_that_is_not_writable_is_refused(immutable_directory: Path) -> None:
    """An existing directory nobody can write to raises a StoreError that names it."""
    with pytest.raises(
        StoreError, match=re.escape(f"data directory {immutable_directory} is not writable")
    ):
        await Store.open(immutable_directory / "home_agent.db")
