"""The writer's own SQLite connections, driven through the ``sqlite3`` module itself.

Every answer waits for its turn's commit (an answered turn is a stored turn), and the writer
commits on the event loop when the write lock is free (:mod:`addon.store.turns.batches`). Through
SQLAlchemy's ``Engine`` and ``Connection`` each batch cost a pool checkout and return (with a
rollback), a transaction object, and per statement an execution context, a cursor, a result and
two events: about 0.3 ms of the loop per turn beyond SQLite's own work, a tenth of the agent's
whole budget for a model turn (``bench/agent_overhead.py``). So the writer's statements, compiled
once by SQLAlchemy (:mod:`addon.store.turns.prepared`), run here on a plain ``sqlite3``
connection, and what the store's engine does for every statement is done explicitly: the
store's pragmas (:mod:`addon.store.file.pragmas`), text made storable
(:mod:`addon.store.file.encoding`), and the driver's errors wrapped as SQLAlchemy wraps them, so
the writer tells a refused write (``OperationalError``) from an item that cannot be stored
(``IntegrityError`` and the other statement errors) exactly as before.

The connection is in autocommit mode and each batch is one explicit ``BEGIN IMMEDIATE`` …
``COMMIT``: the write lock is taken at the start (a busy timeout of 0 fails there at once, with
nothing done), and any failure rolls the whole batch back.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Dialect
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.exc import DBAPIError

from addon.store.file import encoding, pragmas

# One statement's parameters, in the order of its SQL's placeholders.
type Parameters = tuple[object, ...]


class DriverConnection:
    """One ``sqlite3`` connection to the store's file for the writer; one caller at a time.

    ``dbapi`` is the driver's connection itself: its own hooks (``set_trace_callback``,
    ``set_authorizer``) see every statement the writer runs.
    """

    def __init__(self, path: Path, busy_timeout_ms: int) -> None:
        # check_same_thread off: the writer's thread connection is made on the loop's thread.
        self.dbapi: sqlite3.Connection = sqlite3.connect(
            path, timeout=busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False
        )
        # What the writer's statements are compiled for (JSON serialised the store's way).
        self.dialect: Dialect = SQLiteDialect_pysqlite(
            dbapi=sqlite3, json_serializer=encoding.dumps
        )
        try:
            pragmas.set_pragmas(self.dbapi, path, busy_timeout_ms)
            # The store folds the WAL in itself, and not while a backup copies the file.
            self.dbapi.setconfig(sqlite3.SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, True)
        except BaseException:
            self.dbapi.close()
            raise

    @contextmanager
    def transaction(self) -> Iterator[DriverConnection]:
        """One transaction: committed when the block ends, rolled back if anything raises."""
        with _wrapped("BEGIN IMMEDIATE"):
            self.dbapi.execute("BEGIN IMMEDIATE")
        try:
            yield self
            with _wrapped("COMMIT"):
                self.dbapi.execute("COMMIT")
        except BaseException:
            if self.dbapi.in_transaction:
                self.dbapi.rollback()
            raise

    def run(self, sql: str, rows: Sequence[Parameters]) -> None:
        """Run ``sql`` once per row (each row's text made storable) in the open transaction."""
        storable = [encoding.storable_row(row) for row in rows]
        with _wrapped(sql, storable):
            if len(storable) == 1:
                self.dbapi.execute(sql, storable[0])
            else:
                self.dbapi.executemany(sql, storable)

    def close(self) -> None:
        """Close the connection (it never checkpoints as it closes)."""
        self.dbapi.close()


@contextmanager
def _wrapped(sql: str, parameters: Sequence[Parameters] = ()) -> Iterator[None]:
    """The driver's errors as SQLAlchemy reports them, the driver's own as ``orig``.

    OperationalError (locked, full, I/O), IntegrityError, and the other DBAPIErrors.
    """
    try:
        yield
    except sqlite3.Error as err:
        raise DBAPIError.instance(sql, list(parameters), err, sqlite3.Error) from err
