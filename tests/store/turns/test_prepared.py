"""The writer's compiled statements store exactly what Core's statements store."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine, insert

from addon.store.models import Conversation
from addon.store.turns.prepared import Statements
from addon.store.turns.turn_writes import UPSERT_CONVERSATION
from tests.store.turns.core_rows import conversation, stored


def test_a_compiled_upsert_stores_what_cores_upsert_stores(engine: Engine) -> None:
    """Times in UTC text, cleaned text and counters come out byte for byte the same."""
    with engine.begin() as connection:
        Statements(engine.dialect).execute(connection, UPSERT_CONVERSATION, [conversation("a")])
        connection.execute(UPSERT_CONVERSATION, [conversation("b")])
    assert stored(engine, "a") == stored(engine, "b")
    assert stored(engine, "a")[0] == "2026-11-25 19:15:03.120000"


def test_a_second_upsert_through_the_same_statements_adds_to_the_counters(engine: Engine) -> None:
    """The statement compiled once is reused, and the conflict clause still applies."""
    statements = Statements(engine.dialect)
    with engine.begin() as connection:
        statements.execute(connection, UPSERT_CONVERSATION, [conversation("a")])
        statements.execute(connection, UPSERT_CONVERSATION, [conversation("a")] * 2)
    assert stored(engine, "a")[5] == 3


def test_rows_without_a_defaulted_column_get_its_default(engine: Engine) -> None:
    """Leaving out a column with a default takes Core's way, which fills it in."""
    row = {"id": "c", "source": "http", "language": "en", "title": "t"}
    before = datetime.now(UTC).replace(tzinfo=None)
    with engine.begin() as connection:
        Statements(engine.dialect).execute(connection, insert(Conversation), [row])
    started = datetime.fromisoformat(stored(engine, "c")[0])
    assert started >= before.replace(microsecond=0)
