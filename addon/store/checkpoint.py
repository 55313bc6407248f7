"""``python -m addon.store.checkpoint /data/home_agent.db``: fold the WAL into the database file.

The add-on's ``backup_pre`` hook runs this. Supervisor's backup copies files, and in WAL mode the
latest commits may live only in ``home_agent.db-wal``; after a ``TRUNCATE`` checkpoint the main
file holds everything and the WAL is empty, so the copy is complete even if it misses the WAL.
Only the standard library is used: the hook must start fast and needs nothing of the app.

Exit status 0 when the checkpoint completed (or there is no database yet, so nothing to back
up), 1 with a one-line reason on standard error otherwise.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from pathlib import Path
from urllib.parse import quote

DEFAULT_TIMEOUT_S = 10.0
RETRY_INTERVAL_S = 0.05


class CheckpointError(Exception):
    """The checkpoint could not run or did not complete; the message says why."""


def checkpoint(path: Path, timeout_s: float = DEFAULT_TIMEOUT_S) -> bool:
    """Checkpoint the database at ``path``; False when there is no database file at all.

    Waits up to ``timeout_s`` in all for the add-on's writer and readers. SQLite does not wait
    for a checkpoint the add-on itself is running (its automatic one, every ~1000 pages) but
    reports busy at once, so a busy result is retried until the time is up. The connection is
    opened read-write but never creates a file, so a wrong path cannot leave an empty database
    behind.
    """
    if not path.exists():
        return False
    deadline = time.monotonic() + timeout_s
    uri = f"file:{quote(str(path.resolve()))}?mode=rw"
    try:
        connection = sqlite3.connect(uri, uri=True, timeout=timeout_s)
        try:
            while _busy(connection):
                remaining_s = deadline - time.monotonic()
                if remaining_s <= 0:
                    raise CheckpointError(
                        f"the database stayed busy for {timeout_s:g} s, "
                        "the checkpoint did not complete"
                    )
                time.sleep(min(RETRY_INTERVAL_S, remaining_s))
                connection.execute(f"PRAGMA busy_timeout = {max(1, round(remaining_s * 1000))}")
        finally:
            connection.close()
    except sqlite3.Error as err:
        raise CheckpointError(str(err)) from err
    return True


def _busy(connection: sqlite3.Connection) -> bool:
    """One ``TRUNCATE`` checkpoint attempt; True if something kept it from completing."""
    busy, _wal_pages, _checkpointed = connection.execute(
        "PRAGMA wal_checkpoint(TRUNCATE)"
    ).fetchone()
    return bool(busy)


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, checkpoint, and turn the outcome into an exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m addon.store.checkpoint",
        description="Fold the SQLite WAL into the database file before a backup copies it.",
    )
    parser.add_argument("database", type=Path, help="path of the database file")
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        help=f"seconds to wait for other connections (default {DEFAULT_TIMEOUT_S:g})",
    )
    args = parser.parse_args(argv)
    try:
        found = checkpoint(args.database, args.timeout)
    except CheckpointError as err:
        sys.stderr.write(f"checkpoint of {args.database} failed: {err}\n")
        return 1
    if not found:
        sys.stderr.write(f"no database at {args.database} yet; nothing to checkpoint\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
