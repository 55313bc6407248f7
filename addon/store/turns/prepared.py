"""The writer's statements compiled once, their rows turned into parameters in one pass.

Executing a Core statement costs SQLAlchemy a cache-key walk, a look-up in its compiled cache
and a generic pass over every parameter through its column type: about 0.1 ms a statement,
which was most of what writing a turn cost outside SQLite itself (five statements a turn, and
the reply waits for the commit: docs/DECISIONS.md). :class:`Statements` compiles each statement
once for the writer's dialect and turns rows into tuples with the bind processors of their
columns. The SQL goes to the writer's own connection (:mod:`addon.store.turns.driver`), or to a
SQLAlchemy ``Connection`` through ``exec_driver_sql`` (tools and tests that write turns
themselves): there the connection's transaction, its events (the store's text cleaning,
:mod:`addon.store.file.encoding`) and its error wrapping stay exactly as for any other statement.

A literal in a statement (``flagged_count + 1``) is a bound value of its own, filled in here. A
statement compiled for a set of row keys that leaves out a column with a default (the compiled
SQL then names a parameter the rows do not have) is executed the ordinary way on a SQLAlchemy
connection, so defaults are filled in as always; the writer's own connection refuses it (every
row the writer makes names every column).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import Dialect
from sqlalchemy.engine import Connection
from sqlalchemy.sql.dml import UpdateBase

from addon.store.turns.driver import DriverConnection

Processor = Callable[[object], object]


@dataclass(frozen=True, slots=True)
class Prepared:
    """One statement's SQL for the driver, its parameter names in order and their processors."""

    sql: str
    names: tuple[str, ...]
    processors: tuple[Processor | None, ...]
    fixed: Mapping[str, object]
    """The statement's own values (its literals), by parameter name."""

    def parameters(self, rows: Sequence[Mapping[str, object]]) -> list[tuple[object, ...]]:
        """Each row as the driver takes it: values in parameter order, processed by type."""
        pairs = tuple(zip(self.names, self.processors, strict=True))
        if self.fixed:
            fixed = self.fixed
            rows = [{**fixed, **row} for row in rows]
        return [
            tuple(
                process(row[name]) if process is not None else row[name] for name, process in pairs
            )
            for row in rows
        ]


class Statements:
    """The writer's statements, each compiled once per set of row keys, for one dialect."""

    def __init__(self, dialect: Dialect) -> None:
        self._dialect = dialect
        self._prepared: dict[tuple[UpdateBase, tuple[str, ...]], Prepared | None] = {}

    def execute(
        self,
        connection: Connection | DriverConnection,
        statement: UpdateBase,
        rows: Sequence[Mapping[str, object]],
    ) -> None:
        """Run ``statement`` for ``rows`` (all with the keys of the first) in the transaction."""
        if not rows:
            return
        keys = tuple(rows[0])
        try:
            prepared = self._prepared[statement, keys]
        except KeyError:
            prepared = self._prepared[statement, keys] = self._prepare(statement, keys)
        if isinstance(connection, DriverConnection):
            if prepared is None:
                raise ValueError(f"the writer's rows must name every column of {statement}")
            connection.run(prepared.sql, prepared.parameters(rows))
            return
        if prepared is None:
            connection.execute(statement, list(rows))
            return
        parameters = prepared.parameters(rows)
        connection.exec_driver_sql(
            prepared.sql, parameters if len(parameters) > 1 else parameters[0]
        )

    def _prepare(self, statement: UpdateBase, keys: tuple[str, ...]) -> Prepared | None:
        compiled = statement.compile(dialect=self._dialect, column_keys=list(keys))
        names = tuple(compiled.positiontup or ())
        defaulted = {
            column.key for column in (*compiled.insert_prefetch, *compiled.update_prefetch)
        }
        fixed: dict[str, object] = {}
        for name in set(names) - set(keys):
            bind = compiled.binds[name]
            if name in defaulted or bind.callable is not None or bind.required:
                return None  # a column left out has a default: Core fills it in
            fixed[name] = bind.value
        processors = tuple(
            compiled.binds[name].type.dialect_impl(self._dialect).bind_processor(self._dialect)
            for name in names
        )
        return Prepared(compiled.string, names, processors, fixed)
