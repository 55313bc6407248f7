"""The backup flag: while Supervisor copies ``/data``, nothing may checkpoint the database.

``backup_pre`` raises the flag, a file beside the database (``home_agent.db.backup-in-progress``),
and ``backup_post`` lowers it; the store asks :class:`BackupGuard` before each checkpoint it runs.
:mod:`addon.store.file.checkpoint` says why a backup taken under the flag is sound.

Looking at the flag and then checkpointing are two steps, and a backup could begin between them.
So a checkpoint holds a shared ``flock`` on the data directory from its look at the flag until it
ends (a :class:`Permit`), and raising the flag takes that lock exclusively: once the flag is up,
no checkpoint that looked before it can still be running. The directory is locked rather than a
file of its own so that no lock file appears in ``/data`` (and in every backup).

A flag older than :data:`STALE_AFTER_S` is ignored, with one warning: a backup that died before
its ``backup_post`` must not stop checkpoints for ever. A restored backup brings its flag back
too (tar copies it with the rest of ``/data``); it is ignored the same way once that old.

Standard library only: the backup hooks import this module and should start fast.
"""

from __future__ import annotations

import fcntl
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from urllib.parse import quote

_LOGGER = logging.getLogger(__name__)

FLAG_SUFFIX = ".backup-in-progress"
# Supervisor copies /data in seconds to minutes, so a flag this old was left by a backup that
# ended without backup_post (Supervisor killed, host rebooted), not by one still copying.
STALE_AFTER_S = 2 * 3600.0
LOCK_RETRY_S = 0.02


def flag_path(database: Path) -> Path:
    """Where the flag for ``database`` lives: beside it, so one directory holds all its state."""
    return database.with_name(database.name + FLAG_SUFFIX)


class Permit:
    """A shared hold on the data directory's lock: no backup can begin until it is released."""

    __slots__ = ("_fd",)

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def release(self) -> None:
        """Let a waiting backup begin; closing the descriptor drops the lock."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> Permit:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()


class BackupGuard:
    """Whether the store may checkpoint ``database`` now; remembers which stale flag it reported."""

    def __init__(self, database: Path, *, stale_after_s: float = STALE_AFTER_S) -> None:
        self._database = database
        self._flag = flag_path(database)
        self._stale_after_s = stale_after_s
        self._reported_stale_ns: int | None = None

    def in_progress(self) -> bool:
        """True while a fresh flag is up.

        A flag dated too far in the past (or in the future, after the clock was set back) is
        treated as stale, so a wrong clock cannot stop checkpoints for ever either.
        """
        try:
            stat = self._flag.stat()
        except FileNotFoundError:
            return False
        age_s = time.time() - stat.st_mtime
        if abs(age_s) < self._stale_after_s:
            return True
        if self._reported_stale_ns != stat.st_mtime_ns:
            self._reported_stale_ns = stat.st_mtime_ns
            _LOGGER.warning(
                "Ignoring the backup flag %s: at %.1f hours old it was left by a backup that "
                "never ended, or restored from one; checkpoints go on",
                self._flag,
                age_s / 3600,
            )
        return False

    def permit(self, wait_s: float = 0.0) -> Permit | None:
        """A permit to checkpoint, or None while a backup is in progress or beginning.

        Waits up to ``wait_s`` for a backup that is raising its flag at this moment.
        """
        fd = _lock(self._database.parent, fcntl.LOCK_SH, wait_s)
        if fd is None:
            return None
        permit = Permit(fd)
        try:
            busy = self.in_progress()
        except BaseException:
            permit.release()
            raise
        if busy:
            permit.release()
            return None
        return permit


def raise_flag(
    database: Path, timeout_s: float, *, on_wait: Callable[[], None] | None = None
) -> None:
    """Raise the flag, durably, once no checkpoint of ``database`` is running.

    ``on_wait`` is called once if a running checkpoint makes it wait (the hook says so, and
    tests know the wait has begun). Raises :class:`TimeoutError` if a checkpoint held the lock
    for ``timeout_s``, or another :class:`OSError` if the flag cannot be written.
    """
    fd = _lock(database.parent, fcntl.LOCK_EX, timeout_s, on_wait)
    if fd is None:
        raise TimeoutError(f"a checkpoint of {database} was still running after {timeout_s:g} s")
    try:
        note = f"backup started {datetime.now(UTC).isoformat()} by process {os.getpid()}\n"
        flag = os.open(flag_path(database), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(flag, note.encode())
            os.fsync(flag)
        finally:
            os.close(flag)
        _fsync_directory(database.parent)
    finally:
        os.close(fd)


def lower_flag(database: Path) -> bool:
    """Remove the flag, durably; False if it was not up."""
    try:
        flag_path(database).unlink()
    except FileNotFoundError:
        return False
    _fsync_directory(database.parent)
    return True


def open_pin(database: Path, timeout_s: float) -> sqlite3.Connection:
    """A read-only connection holding ``database``'s shared lock, for closing during a backup.

    SQLite checkpoints a database as its last connection closes, if it can lock the file
    exclusively. While this connection is open no other can, and being read-only it cannot
    itself: closed last, it leaves the database file as it was and the WAL for the next start.
    """
    uri = f"file:{quote(str(database.resolve()))}?mode=ro"
    connection = sqlite3.connect(uri, uri=True, timeout=timeout_s, check_same_thread=False)
    try:
        # Reading is what takes the shared lock; opening alone takes none.
        connection.execute("SELECT count(*) FROM sqlite_master").fetchall()
    except BaseException:
        connection.close()
        raise
    return connection


def _lock(
    directory: Path, operation: int, wait_s: float, on_wait: Callable[[], None] | None = None
) -> int | None:
    """An open descriptor of ``directory`` holding ``flock(operation)``; None after ``wait_s``.

    Polls rather than blocks, because ``flock`` itself cannot give up after a time; ``on_wait``
    is called once, when the first try finds the lock taken.
    """
    deadline = time.monotonic() + wait_s
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        while True:
            try:
                fcntl.flock(fd, operation | fcntl.LOCK_NB)
            except BlockingIOError:
                if on_wait is not None:
                    on_wait()
                    on_wait = None
                if time.monotonic() >= deadline:
                    break
                time.sleep(LOCK_RETRY_S)
            else:
                return fd
    except BaseException:
        os.close(fd)
        raise
    os.close(fd)
    return None


def _fsync_directory(directory: Path) -> None:
    """Make a file's creation or removal in ``directory`` survive a power cut."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
