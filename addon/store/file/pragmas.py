"""The pragmas every connection to the database gets before anyone uses it.

The store's engine (:mod:`addon.store.database`) and the writer's own connections
(:mod:`addon.store.turns.driver`) open the same file and must see it the same way.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from sqlalchemy.engine.interfaces import DBAPIConnection

_LOGGER = logging.getLogger(__name__)

WAL_LIMIT_BYTES = 4 * 1024 * 1024


def set_pragmas(
    dbapi_connection: DBAPIConnection | sqlite3.Connection, path: Path | str, busy_timeout_ms: int
) -> None:
    """Busy timeout, WAL, NORMAL sync, foreign keys, no automatic checkpoints, WAL size limit.

    WAL lets the web UI read while the agent writes; NORMAL sync lets a commit return once it is
    in the WAL (the operating system's cache): the writer commits on the event loop, which must
    not wait for the disk. An answered turn still reaches the disk before its answer goes out:
    the writer syncs the WAL in a thread of its own (:mod:`addon.store.file.wal_sync`), so a
    power cut loses no answered turn either; foreign keys are off by default in
    SQLite and every ON DELETE rule in the schema depends on them. No automatic checkpoints:
    the store runs its own, and none while a backup copies the file. The size limit trims the
    WAL back when it restarts after a checkpoint, so its size on disk tells the store how much
    it holds.
    """
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
        cursor.execute("PRAGMA wal_autocheckpoint = 0")
        cursor.execute(f"PRAGMA journal_size_limit = {WAL_LIMIT_BYTES:d}")
    finally:
        cursor.close()
