"""``python -m addon.store.file.checkpoint``: the add-on's backup hooks, run by Supervisor.

Supervisor takes hot backups: it runs ``backup_pre`` inside the add-on, copies ``/data`` with tar
while the add-on keeps running, then runs ``backup_post``. In WAL mode SQLite writes the database
file (``home_agent.db``) only when it checkpoints, folding pages from ``home_agent.db-wal`` into
it; every commit in between only appends to the WAL. A checkpoint running while tar reads the
database file would leave a copy that is half old pages, half new: a half-written database.

So the add-on turns SQLite's automatic checkpoint off and runs its own, which it skips while a
backup is in progress (:mod:`addon.store.file.backup_guard`), and the hooks are:

- ``--begin-backup PATH`` (``backup_pre``): raise the backup flag, then checkpoint with
  ``TRUNCATE``, so the database file holds everything and the WAL starts again empty (if the
  add-on is checkpointing at that moment, it first says on standard output that it waits);
- ``--end-backup PATH`` (``backup_post``): lower the flag and checkpoint without waiting
  (``PASSIVE``), so the WAL written during the backup is folded in at once;
- ``PATH`` alone: only the ``TRUNCATE`` checkpoint, as before the flag existed.

Why a backup taken between the two is sound: once the flag is up nothing checkpoints, so the
database file is not written again until ``backup_post``, and tar copies a complete database
file. The WAL only grows at its end meanwhile (a transaction may rewrite its own frames until
it commits, no others), so its copy holds every frame committed before tar reached it, and at
its end possibly a torn frame or a transaction cut short. SQLite's WAL frames carry cumulative
checksums, and opening a database replays frames only up to the last commit frame whose
checksum, and every one before it, holds: a torn frame and the rest of its transaction are
left out. The restored database holds every transaction committed before the copy reached its
frames, and nothing half-written.

Only the standard library is used: the hooks must start fast and need nothing of the app.

Exit status 0 when the step completed (or there is no database yet, so nothing to checkpoint),
1 with a one-line reason on standard error otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import sqlite3
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from urllib.parse import quote

from addon.store.file.backup_guard import flag_path, lower_flag, raise_flag

DEFAULT_TIMEOUT_S = 10.0
RETRY_INTERVAL_S = 0.05


class CheckpointError(Exception):
    """The checkpoint could not run or did not complete; the message says why."""


def checkpoint(path: Path, timeout_s: float = DEFAULT_TIMEOUT_S) -> bool:
    """Checkpoint the database at ``path``; False when there is no database file at all.

    Waits up to ``timeout_s`` in all for the add-on's writer and readers. SQLite does not wait
    for a checkpoint that another connection is running but reports busy at once, so a busy
    result is retried until the time is up.
    """
    if not path.exists():
        return False
    deadline = time.monotonic() + timeout_s
    try:
        with contextlib.closing(_connect(path, timeout_s)) as connection:
            while _busy(connection):
                remaining_s = deadline - time.monotonic()
                if remaining_s <= 0:
                    raise CheckpointError(
                        f"the database stayed busy for {timeout_s:g} s, "
                        "the checkpoint did not complete"
                    )
                time.sleep(min(RETRY_INTERVAL_S, remaining_s))
                connection.execute(f"PRAGMA busy_timeout = {max(1, round(remaining_s * 1000))}")
    except sqlite3.Error as err:
        raise CheckpointError(str(err)) from err
    return True


def begin_backup(
    path: Path,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    *,
    on_wait: Callable[[], None] | None = None,
) -> bool:
    """Stop the add-on's checkpoints, then fold the WAL in; False when there is no database.

    The flag goes up first and the ``TRUNCATE`` after it, so the last write to the database file
    before the copy is this one, made before Supervisor starts copying. The flag is raised even
    without a database, which the add-on could create during the backup. If the checkpoint
    fails, the flag comes down again: Supervisor abandons a backup whose ``backup_pre`` failed
    and never runs its ``backup_post``. ``on_wait`` is called once if the add-on's running
    checkpoint makes raising the flag wait.
    """
    deadline = time.monotonic() + timeout_s
    try:
        raise_flag(path, timeout_s, on_wait=on_wait)
    except OSError as err:
        raise CheckpointError(f"cannot raise the backup flag {flag_path(path)}: {err}") from err
    try:
        return checkpoint(path, max(0.0, deadline - time.monotonic()))
    except BaseException:
        with contextlib.suppress(OSError):
            lower_flag(path)
        raise


def end_backup(path: Path, timeout_s: float = DEFAULT_TIMEOUT_S) -> bool:
    """Let the add-on checkpoint again and fold in what the backup held back.

    ``PASSIVE`` neither waits for nor blocks the add-on's readers and writers; whatever it
    cannot fold in now, the add-on's next checkpoint will. False when there is no database.
    """
    try:
        lower_flag(path)
    except OSError as err:
        raise CheckpointError(f"cannot lower the backup flag {flag_path(path)}: {err}") from err
    if not path.exists():
        return False
    try:
        with contextlib.closing(_connect(path, timeout_s)) as connection:
            connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    except sqlite3.Error as err:
        raise CheckpointError(str(err)) from err
    return True


def _connect(path: Path, timeout_s: float) -> sqlite3.Connection:
    """A read-write connection that never creates a file: a wrong path leaves nothing behind."""
    uri = f"file:{quote(str(path.resolve()))}?mode=rw"
    return sqlite3.connect(uri, uri=True, timeout=timeout_s)


def _busy(connection: sqlite3.Connection) -> bool:
    """One ``TRUNCATE`` checkpoint attempt; True if something kept it from completing."""
    busy, _wal_pages, _checkpointed = connection.execute(
        "PRAGMA wal_checkpoint(TRUNCATE)"
    ).fetchone()
    return bool(busy)


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, run the step, and turn the outcome into an exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m addon.store.file.checkpoint",
        description="Checkpoint the SQLite WAL, and pause the add-on's checkpoints for a backup.",
    )
    parser.add_argument("database", type=Path, help="path of the database file")
    step = parser.add_mutually_exclusive_group()
    step.add_argument(
        "--begin-backup",
        action="store_true",
        help="raise the backup flag, then checkpoint (backup_pre)",
    )
    step.add_argument(
        "--end-backup",
        action="store_true",
        help="lower the backup flag, then checkpoint without waiting (backup_post)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        help=f"seconds to wait for other connections (default {DEFAULT_TIMEOUT_S:g})",
    )
    args = parser.parse_args(argv)
    run: Callable[[Path, float], bool]
    if args.begin_backup:
        run, name = partial(begin_backup, on_wait=_say_waiting), "backup start"
    elif args.end_backup:
        run, name = end_backup, "backup end"
    else:
        run, name = checkpoint, "checkpoint"
    try:
        found = run(args.database, args.timeout)
    except CheckpointError as err:
        sys.stderr.write(f"{name} for {args.database} failed: {err}\n")
        return 1
    if not found:
        sys.stderr.write(f"no database at {args.database} yet; nothing to checkpoint\n")
    return 0


def _say_waiting() -> None:
    sys.stdout.write("waiting for the add-on's checkpoint to end before raising the flag\n")
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
