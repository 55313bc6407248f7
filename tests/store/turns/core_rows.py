"""Rows as the writer builds them, and what SQLite holds of them, for the statement tests."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import Engine

COLUMNS = "id, started_at, updated_at, source, language, title, turn_count, error_count"


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
