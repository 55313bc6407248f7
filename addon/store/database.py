"""The SQLite store: one async engine for the add-on's lifetime, opened and migrated at start.

Opening looks before it touches. The directory must be writable (SQLite needs to create its
``-wal`` and ``-shm`` files beside the database); an existing file is first read through a
read-only connection, so a file that is not a database, or one written by a newer Home Agent, is
refused without a single byte of it changing. Only then does the engine connect (switching the
file to WAL) and Alembic upgrade it.

The store runs the WAL checkpoints itself, not SQLite: SQLite's automatic checkpoint could write
the database file at any commit, even while Supervisor copies it for a backup, whereas the
store's checkpoints are skipped while the backup flag is up (:mod:`addon.store.file.checkpoint` says
why that makes backups sound). A background task checkpoints every
:data:`CHECKPOINT_INTERVAL_S`, or sooner once the WAL passes :data:`WAL_LIMIT_BYTES`; closing
the store folds the WAL in one last time.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
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
from addon.store.file import BackupGuard, Permit, encoding, open_pin, pragmas
from addon.store.migrate import alembic_config, database_url, known_revisions, upgrade_to_head
from addon.store.tools import TableChanges, withhold_secret_statements

# The writer from its own module, not the turns' face: the face also holds the agent's view of the
# Store (ConversationRecords), which sits above it.
from addon.store.turns.writer import TurnWriter

_LOGGER = logging.getLogger(__name__)

# How long a statement waits for another connection's lock before failing with "database is
# locked". Writes are short (a turn, a batch of pruning), so a few seconds means "really stuck".
BUSY_TIMEOUT_S = 5.0
SQLITE_HEADER = b"SQLite format 3\x00"
CHECKPOINT_RETRY_S = 0.05
# The store's checkpoints: PASSIVE ones at this interval, or at the next look at the WAL's size
# once it passes the limit. 4 MiB is about where SQLite's own (every 1000 pages) would run.
CHECKPOINT_INTERVAL_S = 30.0
WAL_CHECK_S = 5.0
WAL_LIMIT_BYTES = pragmas.WAL_LIMIT_BYTES
# What one periodic look did: nothing to do yet, skipped for a backup, checkpointed, or failed.
CheckpointRound = Literal["not due", "paused", "done", "failed"]


@dataclass(frozen=True, slots=True)
class Store:
    """The opened database: the engine, a session factory over it, and where the file is."""

    engine: AsyncEngine
    sessionmaker: async_sessionmaker[AsyncSession]
    path: Path
    checkpointer: Checkpointer
    writer: TurnWriter
    busy_timeout_s: float = BUSY_TIMEOUT_S
    changes: TableChanges = field(default_factory=TableChanges)
    """Commits of the tables read at every turn, for readers that keep a copy."""

    @classmethod
    async def open(
        cls,
        path: Path,
        *,
        busy_timeout_s: float = BUSY_TIMEOUT_S,
        checkpoint_interval_s: float = CHECKPOINT_INTERVAL_S,
    ) -> Store:
        """Create or open the database at ``path``, migrate it, and start its checkpoints.

        Raises :class:`StoreError` (the directory is unusable, the file is not a database or the
        migration failed), :class:`SchemaTooNewError` or :class:`StoreLockedError`.
        """
        # The secrets table's values must not reach the driver's debug log (trace level).
        withhold_secret_statements()
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
        writer = TurnWriter(engine)
        try:
            await writer.start()
        except BaseException:
            await engine.dispose()
            raise
        checkpointer = Checkpointer(engine, path, interval_s=checkpoint_interval_s)
        checkpointer.start()
        changes = TableChanges()
        return cls(
            engine=engine,
            sessionmaker=async_sessionmaker(
                engine, expire_on_commit=False, sync_session_class=changes.session_class()
            ),
            path=path,
            checkpointer=checkpointer,
            writer=writer,
            busy_timeout_s=busy_timeout_s,
            changes=changes,
        )

    async def close(self) -> None:
        """Write what waits, stop checkpoints, fold the WAL in unless a backup copies, close.

        Waits up to the busy timeout for a backup that is starting at this moment, so that it
        either finds the WAL folded in and the pool closed, or finds nothing closing at all.
        """
        await self.writer.close()
        await self.checkpointer.stop()
        permit = await self.checkpointer.permit(wait_s=self.busy_timeout_s)
        if permit is None:
            _LOGGER.info("A backup is in progress: closing %s without a checkpoint", self.path)
            await self._dispose_without_checkpoint()
            return
        with permit:
            try:
                await self.checkpointer.truncate(self.busy_timeout_s)
            except (StoreLockedError, SQLAlchemyError) as err:
                # The WAL stays valid, only not empty; the next start reads it.
                _LOGGER.warning("Closing %s without a final checkpoint: %s", self.path, err)
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
        failing = self.writer.failing
        if failing is not None:
            return ComponentHealth(
                "degraded",
                f"writing turns fails and is retried ({self.writer.pending} waiting): {failing}",
            )
        restarts = self.writer.restarts
        if restarts:
            return ComponentHealth(
                "ok", f"schema {revision}; the writer recovered from {restarts} unexpected failures"
            )
        return ComponentHealth("ok", f"schema {revision}")

    async def checkpoint(self) -> bool:
        """Fold the WAL into the database file and truncate it; False if a backup is copying.

        Raises :class:`StoreLockedError` if other connections kept the checkpoint from
        completing for the busy timeout; the WAL is then still valid, only not empty.
        """
        permit = await self.checkpointer.permit(wait_s=self.busy_timeout_s)
        if permit is None:
            return False
        with permit:
            await self.checkpointer.truncate(self.busy_timeout_s)
        return True

    async def _dispose_without_checkpoint(self) -> None:
        """Close the pool without the checkpoint SQLite runs as a database's last connection closes.

        A read-only pin (:func:`~addon.store.file.backup_guard.open_pin`) opened first and closed
        last keeps the database file as the backup is copying it.
        """
        try:
            pin = await asyncio.to_thread(open_pin, self.path, self.busy_timeout_s)
        except sqlite3.Error as err:
            _LOGGER.warning("Cannot hold %s open while closing: %s", self.path, err)
            await self.engine.dispose()
            return
        try:
            await self.engine.dispose()
        finally:
            await asyncio.to_thread(pin.close)


class Checkpointer:
    """The store's WAL checkpoints, which a backup in progress pauses.

    Periodic checkpoints are ``PASSIVE``: they neither wait for nor block the store's readers
    and writers, and fold in what they can; the next one continues.
    """

    def __init__(self, engine: AsyncEngine, path: Path, *, interval_s: float) -> None:
        self._engine = engine
        self._path = path
        self._wal = path.with_name(path.name + "-wal")
        self._interval_s = interval_s
        self.guard = BackupGuard(path)
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._round_waiters: list[asyncio.Future[CheckpointRound]] = []

    def start(self) -> None:
        """Start the periodic checkpoints."""
        self._task = asyncio.create_task(self._run(), name=f"checkpoints of {self._path}")

    async def stop(self) -> None:
        """Stop the periodic checkpoints, letting one that is running end first.

        Not cancelled mid-way: the checkpoint would go on in the driver's thread, no longer
        holding the permit that keeps a backup from beginning under it.
        """
        task, self._task = self._task, None
        if task is not None:
            self._stopping.set()
            await task
        for waiter in self._round_waiters:
            waiter.cancel()
        self._round_waiters.clear()

    async def next_round(self) -> CheckpointRound:
        """What the next periodic look at the WAL does (one under way counts as the next).

        Nothing in the add-on waits on this. Tests do, to see a look that chose not to
        checkpoint (too early, or a backup copying) instead of sleeping and finding the file
        unchanged.
        """
        waiter: asyncio.Future[CheckpointRound] = asyncio.get_running_loop().create_future()
        self._round_waiters.append(waiter)
        return await waiter

    async def permit(self, *, wait_s: float = 0.0) -> Permit | None:
        """A permit to checkpoint now, or None while a backup is in progress or beginning.

        The lock is taken in a thread, which cancelling the caller cannot stop; a permit that
        arrives after the caller was cancelled is released at once, or no backup could begin.
        """
        taking = asyncio.ensure_future(asyncio.to_thread(self.guard.permit, wait_s))
        try:
            return await asyncio.shield(taking)
        except asyncio.CancelledError:
            taking.add_done_callback(_release_unclaimed)
            raise

    async def passive(self) -> bool:
        """One ``PASSIVE`` checkpoint unless a backup is in progress; False if skipped."""
        permit = await self.permit()
        if permit is None:
            return False
        with permit:
            async with self._engine.connect() as connection:
                await connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
        return True

    async def truncate(self, busy_timeout_s: float) -> None:
        """Fold the whole WAL in and truncate it; the caller holds a permit.

        A checkpoint already running on another connection makes SQLite answer busy at once
        instead of waiting, so busy answers are retried for up to ``busy_timeout_s``.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + busy_timeout_s
        async with self._engine.connect() as connection:
            while True:
                result = await connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
                if not result.one()[0]:
                    return
                if loop.time() >= deadline:
                    break
                await asyncio.sleep(CHECKPOINT_RETRY_S)
        raise StoreLockedError(
            f"checkpoint of {self._path} did not complete: other connections kept it busy "
            f"for {busy_timeout_s:g} s"
        )

    async def _run(self) -> None:
        """Checkpoint when the interval has passed or the WAL has grown past the limit.

        A failed checkpoint is logged and tried again at the next interval; a skipped one (a
        backup is copying) at the next look.
        """
        loop = asyncio.get_running_loop()
        last = loop.time()
        while True:
            try:
                await asyncio.wait_for(self._stopping.wait(), min(WAL_CHECK_S, self._interval_s))
                return
            except TimeoutError:
                pass
            outcome: CheckpointRound
            try:
                due = loop.time() - last >= self._interval_s
                if not due:
                    due = await asyncio.to_thread(self._wal_size) > WAL_LIMIT_BYTES
                if not due:
                    outcome = "not due"
                elif await self.passive():
                    last, outcome = loop.time(), "done"
                else:
                    outcome = "paused"
            except (SQLAlchemyError, OSError) as err:
                last, outcome = loop.time(), "failed"
                _LOGGER.warning("Checkpoint of %s failed: %s", self._path, err)
            waiters, self._round_waiters = self._round_waiters, []
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(outcome)

    def _wal_size(self) -> int:
        try:
            return self._wal.stat().st_size
        except FileNotFoundError:
            return 0


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


def _release_unclaimed(taking: asyncio.Future[Permit | None]) -> None:
    """Release a permit nobody is left to use (reading the exception marks it as seen)."""
    if taking.cancelled() or taking.exception() is not None:
        return
    permit = taking.result()
    if permit is not None:
        permit.release()


def _create_engine(path: Path, busy_timeout_s: float) -> AsyncEngine:
    """The engine, with the pragmas every new connection gets before anyone uses it.

    Its text parameters are made storable on the way in (:mod:`addon.store.file.encoding`).
    """
    engine = create_async_engine(
        database_url(path),
        connect_args={"timeout": busy_timeout_s},
        json_serializer=encoding.dumps,
    )
    encoding.install(engine.sync_engine)
    busy_timeout_ms = round(busy_timeout_s * 1000)

    def set_pragmas(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
        pragmas.set_pragmas(dbapi_connection, path, busy_timeout_ms)

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
