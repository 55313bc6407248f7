"""Each answered turn's commit on the disk itself, synced off the event loop.

The database runs in WAL mode with ``synchronous = NORMAL`` (:mod:`addon.store.file.pragmas`):
a commit returns once it is in the WAL file, in the operating system's cache, without waiting
for the disk, which a killed process cannot lose but a power cut can. So before a turn's answer
goes out, the writer has the WAL file synced to the disk (``fsync``) in a thread of its own
(:class:`WalSync`). SQLite's own ``synchronous = FULL`` does the same sync inside the commit,
which the writer makes on the event loop: every conversation would stop for the disk, a few
milliseconds a turn on an SD card. Here only the turn that waits for its answer waits, and the
turns committed before a sync begins share it (docs/DECISIONS.md, "What survives a power cut").
"""

from __future__ import annotations

import asyncio
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

_LOGGER = logging.getLogger(__name__)


class WalSync:
    """Syncs one database's WAL file to the disk, in a thread, shared by everyone waiting."""

    def __init__(self, database: Path) -> None:
        self._database = database
        self._wal = Path(f"{database}-wal")
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="home-agent-sync")
        self._lock = asyncio.Lock()
        self._asked = 0
        self._done = 0
        self._fd: int | None = None

    async def synced(self) -> bool:
        """Return once everything committed before this call is on the disk; False if it failed.

        A caller that comes while a sync runs waits for the next one (the running one may have
        begun before its commit); every caller waiting then shares that next sync.
        """
        self._asked += 1
        asked = self._asked
        async with self._lock:
            if self._done >= asked:
                return True
            covers = self._asked
            loop = asyncio.get_running_loop()
            try:
                await loop.run_in_executor(self._thread, self._sync)
            except (OSError, RuntimeError) as err:  # the disk refused, or the store is closing
                _LOGGER.error("Syncing %s to disk failed: %s", self._wal, err)
                return False
            self._done = covers
            return True

    def close(self) -> None:
        """Stop the thread (after a sync under way) and close the file."""
        self._thread.shutdown()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _sync(self) -> None:
        """In the thread: fsync the WAL file (reopened if it was made anew), or the database."""
        path = self._wal if self._wal.exists() else self._database
        fd = self._fd
        if fd is not None and os.fstat(fd).st_ino != os.stat(path).st_ino:
            os.close(fd)
            fd = self._fd = None
        if fd is None:
            fd = self._fd = os.open(path, os.O_RDONLY)
        os.fsync(fd)
