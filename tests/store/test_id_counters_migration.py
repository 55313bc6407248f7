"""The id_counters revision starts each counter above the ids the file already holds."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from alembic import command

from addon.store.migrate import alembic_config, database_url

# The revision before id_counters.
PAYLOADS_REVISION = "d2e6e0946102"


def test_upgrade_starts_the_counters_above_the_stored_ids(tmp_path: Path) -> None:
    """A file with turns and model calls gets counters at one above the largest of each."""
    path = tmp_path / "home_agent.db"
    config = alembic_config(database_url(path))
    command.upgrade(config, PAYLOADS_REVISION)
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.executescript(
            "INSERT INTO conversations VALUES ('c', '2026-11-22', '2026-11-22', 'http', NULL, "
            "NULL, 'en', 'hi', 1, 0, 0);"
            "INSERT INTO turns (id, conversation_id, seq, created_at, user_text, reply_text, "
            "handled_by, language, dry_run, duration_ms, prompt_tokens, completion_tokens, "
            "messages, timings, outcome, outcome_detail, flagged) VALUES (41, 'c', 1, "
            "'2026-11-22', 'hi', 'Hello.', 'llm', 'en', 0, 1.0, 0, 0, '[]', '{}', 'unchecked', "
            "'{}', 0);"
            "INSERT INTO llm_calls (id, turn_id, seq, started_at, model, streamed, "
            "request_messages, request_tools, response, prompt_tokens, completion_tokens, "
            "duration_ms) VALUES (77, 41, 1, '2026-11-22', 'm', 0, '[]', '[]', '{}', 0, 0, 1.0);"
        )
    command.upgrade(config, "head")
    with closing(sqlite3.connect(path)) as connection:
        counters = dict(connection.execute("SELECT name, next_id FROM id_counters").fetchall())
    assert counters == {"turns": 42, "llm_calls": 78}


def test_a_new_file_counts_from_one(tmp_path: Path) -> None:
    """An empty database's counters start at 1."""
    path = tmp_path / "home_agent.db"
    command.upgrade(alembic_config(database_url(path)), "head")
    with closing(sqlite3.connect(path)) as connection:
        counters = dict(connection.execute("SELECT name, next_id FROM id_counters").fetchall())
    assert counters == {"turns": 1, "llm_calls": 1}
