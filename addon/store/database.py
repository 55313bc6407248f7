"""The SQLite store: one async engine for the add-on's lifetime, opened and migrated at start.

Opening looks before it touches. The directory must be writable (SQLite needs to create its
``-wal`` and ``-shm`` files beside the database); an existing file is first read through a
read-only connection, so a file that is not a database, or one written by a newer Home Agent, is
refused without a single byte of it changing. Only then does the engine connect (switching the
file to WAL) and Alembic upgrade it.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from alembic.util import CommandError
from sqlalchemy import event, text
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import DBAPIError, SQLAlchemyError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import ConnectionPoolEntry

from addon.errors import SchemaTooNewError, StoreError, StoreLockedError
from addon.health import ComponentHealth
from addon.store.migrate import alembic_config, database_url, known_revisions, upgrade_to_head

_LOGGER = logging.getLogger(__name__)

# How long a statement waits for another connection's lock before failing with "database is
# locked". Writes are short (a turn, a batch of pruning), so a few seconds means "really stuck".
BUSY_TIMEOUT_S = 5.0
SQLITE_HEADER = b"SQLite format 3\x00"
CHECKPOINT_RETRY_S = 0.05


@dataclass(frozen=True, slots=True)
class Store:
    """The opened database: the engine, a session factory over it, and where the file is."""

    engine: AsyncEngine
    sessionmaker: async_sessionmaker[AsyncSession]
    path: Path
    busy_timeout_s: float = BUSY_TIMEOUT_S

    @classmethod
    async def open(cls, path: Path, *, busy_timeout_s: float = BUSY_TIMEOUT_S) -> Store:
        """Create or open the database at ``path`` and migrate it to this version's schema.

        Raises :class:`StoreError` (the directory is unusable, the file is not a database or the
        migration failed), :class:`SchemaTooNewError` or :class:`StoreLockedError`.
        """
        await asyncio.to_thread(_prepare_directory, path.parent)
        await asyncio.to_thread(_inspect_existing, path, busy_timeout_s)
        engine = _create_engine(path, busy_timeout_s)
        try:
            revision = await upgrade_to_head(engine)
        except BaseException as err:
            await engine.dispose()
            if isinstance(err, DBAPIError):
                raise _translate(err.orig, path, busy_timeout_s) from err
            if isinstance(err, CommandError):
                raise StoreError(f"migrating {path} failed: {err}") from err
            raise
        _LOGGER.info("Opened the store at %s (schema %s)", path, revision)
        return cls(engine, async_sessionmaker(engine, expire_on_commit=False), path, busy_timeout_s)

    async def close(self) -> None:
        """Close every pooled connection; the last one to close folds the WAL into the file."""
        await self.engine.dispose()

    async def health(self) -> ComponentHealth:
        """Whether the database answers a query, and at which schema revision.

        Reading the revision is itself the cheap query: it needs no table scan and proves the
        file is readable through the pool.
        """
        try:
            async with self.engine.connect() as connection:
                revision = await connection.scalar(text("SELECT version_num FROM alembic_version"))
        except SQLAlchemyError as err:
            return ComponentHealth("down", f"database error: {getattr(err, 'orig', None) or err}")
        return ComponentHealth("ok", f"schema {revision}")

    async def checkpoint(self) -> None:
        """Fold the WAL into the database file and truncate it to zero bytes.

        A checkpoint already running elsewhere (SQLite's automatic one) makes SQLite answer busy
        at once instead of waiting, so busy answers are retried for up to the busy timeout.
        Raises :class:`StoreLockedError` if it still did not complete; the WAL is then still
        valid, only not empty.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.busy_timeout_s
        async with self.engine.connect() as connection:
            while True:
                result = await connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
                if not result.one()[0]:
                    return
                if loop.time() >= deadline:
                    break
                await asyncio.sleep(CHECKPOINT_RETRY_S)
        raise StoreLockedError(
            f"checkpoint of {self.path} did not complete: other connections kept it busy "
            f"for {self.busy_timeout_s:g} s"
        )


def _prepare_directory(directory: Path) -> None:
    """Create the data directory and prove a file can be created in it.

    ``os.access`` would say yes to root on a read-only mount; creating a file is the real test.
    """
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StoreError(
            f"cannot create the data directory {directory}: {err.strerror or err}"
        ) from err
    try:
        with tempfile.TemporaryFile(dir=directory, prefix=".home_agent_probe_"):
            pass
    except OSError as err:
        raise StoreError(
            f"the data directory {directory} is not writable: {err.strerror or err}"
        ) from err


def _inspect_existing(path: Path, busy_timeout_s: float) -> None:
    """Refuse an existing file we must not touch, using only reads.

    A missing or empty file is a new database. Anything else must carry SQLite's header and, if
    it has been stamped by Alembic, a revision this version knows.
    """
    try:
        with path.open("rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return
    except OSError as err:
        raise StoreError(f"cannot read {path}: {err.strerror or err}") from err
    if not header:
        return
    if header != SQLITE_HEADER:
        raise StoreError(f"{path} is not a SQLite database; it was left untouched")
    try:
        heads = _read_revisions(path, busy_timeout_s)
    except sqlite3.Error as err:
        if str(getattr(err, "sqlite_errorname", "")).startswith("SQLITE_READONLY"):
            # A hot journal left by a crash can only be rolled back by a writer. Rolling back
            # restores the last committed state, it changes nothing a newer version wrote, and
            # the upgrade checks the revision again before it writes anything itself.
            _LOGGER.warning("%s needs crash recovery before it can be inspected", path)
            return
        raise _translate(err, path, busy_timeout_s) from err
    unknown = sorted(set(heads) - known_revisions(alembic_config()))
    if unknown:
        raise SchemaTooNewError(
            f"{path} was written by a newer Home Agent (schema revision {', '.join(unknown)} "
            "is unknown to this version); it was left untouched: update Home Agent or restore "
            "an older backup"
        )


def _read_revisions(path: Path, busy_timeout_s: float) -> list[str]:
    """The Alembic revisions stamped in the file, read through a read-only connection."""
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    connection = sqlite3.connect(uri, uri=True, timeout=busy_timeout_s)
    try:
        has_table = connection.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'"
        ).fetchone()
        if has_table is None:
            return []
        return [row[0] for row in connection.execute("SELECT version_num FROM alembic_version")]
    finally:
        connection.close()


def _create_engine(path: Path, busy_timeout_s: float) -> AsyncEngine:
    """The engine, with the pragmas every new connection gets before anyone uses it."""
    engine = create_async_engine(database_url(path), connect_args={"timeout": busy_timeout_s})
    busy_timeout_ms = round(busy_timeout_s * 1000)

    def set_pragmas(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
        # WAL lets the web UI read while the agent writes; NORMAL sync is safe with WAL (a power
        # cut can lose the last commits, never corrupt the file); foreign keys are off by default
        # in SQLite and every ON DELETE rule in the schema depends on them.
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {busy_timeout_ms:d}")
            cursor.execute("PRAGMA journal_mode = WAL")
            row = cursor.fetchone()
            if row is None or str(row[0]).lower() != "wal":
                _LOGGER.warning(
                    "%s cannot use WAL (journal mode %s): readers will wait for writers",
                    path,
                    row[0] if row else "unknown",
                )
            cursor.execute("PRAGMA synchronous = NORMAL")
            cursor.execute("PRAGMA foreign_keys = ON")
        finally:
            cursor.close()

    event.listen(engine.sync_engine, "connect", set_pragmas)
    return engine


def _translate(err: BaseException | None, path: Path, busy_timeout_s: float) -> StoreError:
    """Turn a driver error met while opening into the store error a user can act on."""
    name = str(getattr(err, "sqlite_errorname", ""))
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return StoreLockedError(
            f"{path} is locked by another process (gave up after {busy_timeout_s:g} s); "
            "is a second copy of Home Agent running?"
        )
    if name == "SQLITE_NOTADB":
        return StoreError(f"{path} is not a SQLite database; it was left untouched")
    if name.startswith("SQLITE_CORRUPT"):
        return StoreError(f"{path} is damaged ({err}); restore it from a backup")
    return StoreError(f"cannot open {path}: {err}")
