"""The database file's care.

What every connection is set to (``pragmas``), text as SQLite stores it (``encoding``), the WAL
synced for each answered turn (``wal_sync``), checkpoints and the backup guard (``checkpoint``,
``python -m addon.store.file.checkpoint`` for Supervisor's backup hooks, and ``backup_guard``)
and FTS5 query quoting (``search``). Nothing here needs the ``Store``: it is built from these.
"""

from addon.store.file import encoding, pragmas
from addon.store.file.backup_guard import BackupGuard, Permit, open_pin
from addon.store.file.encoding import storable
from addon.store.file.search import fts_query
from addon.store.file.wal_sync import WalSync

__all__ = [
    "BackupGuard",
    "Permit",
    "WalSync",
    "encoding",
    "fts_query",
    "open_pin",
    "pragmas",
    "storable",
]
