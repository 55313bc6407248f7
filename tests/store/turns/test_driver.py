"""The writer's own connection stores what SQLAlchemy would, and fails as SQLAlchemy reports it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, insert
from sqlalchemy.exc import IntegrityError, OperationalError

from addon.store.models import Conversation, Turn
from addon.store.turns.driver import DriverConnection
from addon.store.turns.prepared import Statements
from addon.store.turns.turn_writes import COUNT_FLAG, UPSERT_CONVERSATION
from tests.store.turns.core_rows import conversation, stored


@pytest.fixture
def driver(engine: Engine) -> Iterator[DriverConnection]:
    """The writer's kind of connection to the same file, with no busy timeout (as on the loop)."""
    connection = DriverConnection(Path(engine.url.database or ""), 0)
    yield connection
    connection.close()


def test_a_row_written_by_the_driver_is_the_row_core_writes(
    engine: Engine, driver: DriverConnection
) -> None:
    """Times in UTC text, text beyond ASCII (a lone surrogate cleaned): as Core writes them."""
    with driver.transaction():
        Statements(driver.dialect).execute(driver, UPSERT_CONVERSATION, [conversation("a")])
    with engine.begin() as connection:
        connection.execute(UPSERT_CONVERSATION, [conversation("b")])
    assert stored(engine, "a") == stored(engine, "b")
    assert stored(engine, "a")[4] == "Schalte die Küche an \ufffd"


def test_a_statement_with_a_literal_in_it_runs_with_the_literal(
    engine: Engine, driver: DriverConnection
) -> None:
    """``flagged_count + 1`` binds its 1 itself: the row gives only the turn."""
    with engine.begin() as connection:
        connection.execute(insert(Conversation), [conversation("a")])
        connection.execute(
            insert(Turn),
            [{"id": 7, "conversation_id": "a", "seq": 1, "user_text": "hi", "handled_by": "llm"}],
        )
    statements = Statements(driver.dialect)
    with driver.transaction():
        statements.execute(driver, COUNT_FLAG, [{"turn": 7}])
    with engine.connect() as connection:
        flagged = connection.exec_driver_sql("SELECT flagged_count FROM conversations").scalar()
    assert flagged == 1


def test_a_held_write_lock_fails_at_once_as_sqlalchemy_reports_it(
    engine: Engine, driver: DriverConnection
) -> None:
    """With no busy timeout the transaction fails as it begins, a busy OperationalError."""
    holder = sqlite3.connect(engine.url.database or "", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with (
            pytest.raises(OperationalError) as refused,
            driver.transaction(),
        ):
            Statements(driver.dialect).execute(driver, UPSERT_CONVERSATION, [conversation("a")])
    finally:
        holder.rollback()
        holder.close()
    assert refused.value.orig.sqlite_errorname == "SQLITE_BUSY"  # type: ignore[union-attr]
    assert not driver.dbapi.in_transaction


def test_a_row_the_database_refuses_rolls_back_the_whole_batch(
    engine: Engine, driver: DriverConnection
) -> None:
    """A conversation stored twice: IntegrityError, and the batch's first one not stored either."""
    statements = Statements(driver.dialect)

    def batch() -> None:
        with driver.transaction():
            statements.execute(driver, insert(Conversation), [conversation("a")])
            statements.execute(driver, insert(Conversation), [conversation("b"), conversation("a")])

    with pytest.raises(IntegrityError):
        batch()
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM conversations").scalar() == 0


def test_a_row_leaving_out_a_defaulted_column_is_refused(driver: DriverConnection) -> None:
    """The writer's rows name every column; Core's defaults are not filled in on this path."""
    row = {"id": "c", "source": "http", "language": "en", "title": "t"}
    with pytest.raises(ValueError, match="every column"), driver.transaction():
        Statements(driver.dialect).execute(driver, insert(Conversation), [row])
