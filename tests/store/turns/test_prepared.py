"""The writer's compiled statements store exactly what Core's statements store."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, insert

from addon.store.file import encoding
from addon.store.models import Base, Conversation
from addon.store.turns.prepared import Statements
from addon.store.turns.turn_writes import UPSERT_CONVERSATION

COLUMNS = "id, started_at, updated_at, source, language, title, turn_count, error_count"


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    """A database file with the store's tables, serialising JSON the store's way."""
    engine = create_engine(f"sqlite:///{tmp_path / 'prepared.db'}", json_serializer=encoding.dumps)
    encoding.install(engine)
    Base.metadata.create_all(engine)
    yield engine
    engine.dispose()


def conversation(conversation_id: str) -> dict[str, Any]:
    """A conversation row as the writer builds it: aware times, text beyond ASCII."""
    started = datetime(2026, 11, 25, 20, 15, 3, 120_000, tzinfo=timezone(timedelta(hours=1)))
    return {
        "id": conversation_id,
        "started_at": started,
        "updated_at": started + timedelta(seconds=2),
        "source": "http",
        "device_id": None,
        "satellite_id": None,
        "language": "de",
        "title": "Schalte die Küche an \ud800",
        "turn_count": 1,
        "error_count": 0,
        "flagged_count": 0,
    }


def stored(engine: Engine, conversation_id: str) -> tuple[Any, ...]:
    """The row as SQLite holds it, id left out."""
    with engine.connect() as connection:
        row = connection.exec_driver_sql(
            f"SELECT {COLUMNS} FROM conversations WHERE id = ?", (conversation_id,)
        ).one()
    return tuple(row)[1:]


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
