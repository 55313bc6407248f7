"""Which tables a committed session changed: the cue for readers that keep a copy between turns.

The agent offers the enabled custom tools and the MCP servers' tools at every turn and every
MCP call. Reading them (and the secrets) from SQLite each time cost two sessions through the
driver's thread per call, most of an in-process tool call. :class:`TableChanges` counts, per
watched table, the commits of this store's sessions that touched it, so a reader keeps what it
read until the count moves. Every write through a session counts: objects flushed (added,
changed, deleted) and ORM statements (``delete(Secret)``); a statement the ORM cannot place
(``text(...)``) counts for every watched table. A rolled-back session counts nothing. Writes
that bypass the sessions (the turn writer's connection, migrations at start) never touch these
tables.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from itertools import chain

from sqlalchemy import Table, event
from sqlalchemy.orm import ORMExecuteState, Session, UOWTransaction

WATCHED_TABLES = frozenset({"custom_tools", "custom_tool_versions", "secrets", "mcp_servers"})
"""The tables read at every turn: custom tools, their versions, the secrets, the MCP servers."""
_INFO_KEY = "home_agent_changed_tables"


class TableChanges:
    """Commit counts per watched table, kept by the events of this store's session class."""

    __slots__ = ("_counts",)

    def __init__(self, tables: Iterable[str] = WATCHED_TABLES) -> None:
        self._counts = dict.fromkeys(tables, 0)

    def version(self, *tables: str) -> tuple[int, ...]:
        """The counts of ``tables``: equal to an earlier answer while none of them changed."""
        return tuple(self._counts[table] for table in tables)

    def session_class(self) -> type[Session]:
        """A session class of this store's own whose commits are counted here."""

        class WatchedSession(Session):
            """A session whose commits of watched tables move the store's counts."""

        event.listen(WatchedSession, "after_flush", self._after_flush)
        event.listen(WatchedSession, "do_orm_execute", self._on_execute)
        event.listen(WatchedSession, "after_commit", self._after_commit)
        event.listen(WatchedSession, "after_rollback", self._after_rollback)
        return WatchedSession

    def _mark(self, session: Session, tables: Iterable[str]) -> None:
        watched = self._counts.keys() & set(tables)
        if watched:
            session.info.setdefault(_INFO_KEY, set()).update(watched)

    def _after_flush(self, session: Session, _context: UOWTransaction) -> None:
        # Still the flush's own lists here: what was added, changed and deleted.
        flushed = chain(session.new, session.dirty, session.deleted)
        self._mark(session, (_table_name(obj) for obj in flushed))

    def _on_execute(self, state: ORMExecuteState) -> None:
        if state.is_select:
            return
        table = getattr(state.statement, "table", None)
        self._mark(state.session, [table.name] if isinstance(table, Table) else self._counts)

    def _after_commit(self, session: Session) -> None:
        for table in session.info.pop(_INFO_KEY, ()):
            self._counts[table] += 1

    def _after_rollback(self, session: Session) -> None:
        session.info.pop(_INFO_KEY, None)


class KeptRead[T]:
    """What a reader read from some watched tables, kept until a commit touches one of them.

    Without ``changes`` nothing is kept: every read reads afresh.
    """

    __slots__ = ("_changes", "_kept", "_tables")

    def __init__(self, changes: TableChanges | None, *tables: str) -> None:
        self._changes = changes
        self._tables = tables
        self._kept: tuple[tuple[int, ...], T] | None = None

    async def read(self, fresh: Callable[[], Awaitable[T]]) -> T:
        """What ``fresh`` read while none of the tables changed since; else read it again."""
        # The counts are taken before reading, so a commit during the read is seen next time.
        version = None if self._changes is None else self._changes.version(*self._tables)
        if self._kept is not None and self._kept[0] == version:
            return self._kept[1]
        value = await fresh()
        if version is not None:
            self._kept = (version, value)
        return value


def _table_name(obj: object) -> str:
    table = getattr(type(obj), "__table__", None)
    return table.name if isinstance(table, Table) else ""
