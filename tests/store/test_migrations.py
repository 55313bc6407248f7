"""The Alembic migrations against real SQLite files: up, down, and in step with the models."""

from __future__ import annotations

import io
import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

from addon.store.database import Store
from addon.store.migrate import MIGRATIONS_DIR, alembic_config, database_url, include_name
from addon.store.models import Base

# The revision that moved system prompts and tool lists into llm_payloads.
PAYLOADS_REVISION = "d2e6e0946102"
# The revision before custom tools got soft deletes, authors and secrets.
BEFORE_CUSTOM_TOOLS = "5b7c3e1a9d20"


def _schema(path: Path) -> set[tuple[str, str, str | None]]:
    """Every table, index and trigger in the file, with the SQL that made it."""
    with closing(sqlite3.connect(path)) as connection:
        rows = connection.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE tbl_name != 'alembic_version'"
        ).fetchall()
    return set(rows)


def _revisions_oldest_first() -> list[str]:
    script = ScriptDirectory.from_config(alembic_config())
    return [revision.revision for revision in reversed(list(script.walk_revisions()))]


async def test_open_upgrades_an_empty_file_to_head(tmp_path: Path) -> None:
    """Opening a new file creates every model table and the search index, stamped at head."""
    store = await Store.open(tmp_path / "home_agent.db")
    await store.close()
    names = {name for _kind, name, _sql in _schema(tmp_path / "home_agent.db")}
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    with closing(sqlite3.connect(tmp_path / "home_agent.db")) as connection:
        stamped = connection.execute("SELECT version_num FROM alembic_version").fetchall()
    assert set(Base.metadata.tables) | {"turns_fts"} <= names
    assert stamped == [(head,)]


def test_every_revision_downgrades_and_upgrades_again(tmp_path: Path) -> None:
    """Each revision's downgrade undoes exactly what its upgrade did."""
    path = tmp_path / "home_agent.db"
    config = alembic_config(database_url(path))
    for revision in _revisions_oldest_first():
        command.upgrade(config, revision)
        upgraded = _schema(path)
        command.downgrade(config, "-1")
        command.upgrade(config, revision)
        assert _schema(path) == upgraded, revision


def test_downgrade_to_base_removes_everything(tmp_path: Path) -> None:
    """Downgrading to base leaves no table, index, trigger or search index behind."""
    path = tmp_path / "home_agent.db"
    config = alembic_config(database_url(path))
    command.upgrade(config, "head")
    command.downgrade(config, "base")
    assert _schema(path) == set()


async def test_models_match_the_migrations(store: Store) -> None:
    """Autogenerate finds nothing to add: the migrations build exactly what models.py declares."""

    def diff(connection: Connection) -> list[object]:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "include_name": include_name}
        )
        return list(compare_metadata(context, Base.metadata))

    async with store.engine.connect() as connection:
        assert await connection.run_sync(diff) == []


def test_offline_mode_renders_the_sql(tmp_path: Path) -> None:
    """``--sql`` mode writes the whole schema as a script without opening a database."""
    output = io.StringIO()
    config = alembic_config(database_url(tmp_path / "never.db"), output_buffer=output)
    command.upgrade(config, "head", sql=True)
    assert "CREATE TABLE conversations" in output.getvalue()
    assert "CREATE VIRTUAL TABLE turns_fts" in output.getvalue()
    assert not (tmp_path / "never.db").exists()


def test_revision_files_are_date_prefixed() -> None:
    """Every revision file name starts with its date, so the directory lists in writing order."""
    names = [path.name for path in (MIGRATIONS_DIR / "versions").glob("*.py")]
    assert names
    assert all(re.fullmatch(r"\d{4}_\d{2}_\d{2}_\d{4}_\w+\.py", name) for name in names)


def test_downgrade_from_payloads_puts_them_back_inline(tmp_path: Path) -> None:
    """Going below the payloads revision restores each call's system prompt and tools inline."""
    path = tmp_path / "home_agent.db"
    config = alembic_config(database_url(path))
    command.upgrade(config, PAYLOADS_REVISION)
    tools = [{"type": "function", "function": {"name": "HassTurnOn"}}]
    reference = [{"role": "system", "content_ref": "p1"}, {"role": "user", "content": "hi"}]
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.executescript(
            "INSERT INTO conversations VALUES ('c', '2026-11-22', '2026-11-22', 'http', NULL, "
            "NULL, 'en', 'hi', 1, 0, 0);"
            "INSERT INTO turns (id, conversation_id, seq, created_at, user_text, reply_text, "
            "handled_by, language, dry_run, duration_ms, prompt_tokens, completion_tokens, "
            "messages, timings, outcome, outcome_detail, flagged) VALUES (1, 'c', 1, "
            "'2026-11-22', 'hi', 'Hello.', 'llm', 'en', 0, 1.0, 0, 0, '[]', '{}', 'unchecked', "
            "'{}', 0);"
        )
        connection.executemany(
            "INSERT INTO llm_payloads VALUES (?, ?, ?, ?, '2026-11-22')",
            [("p1", "system_prompt", "The prompt.", 11), ("t1", "tools", json.dumps(tools), 0)],
        )
        connection.execute(
            "INSERT INTO llm_calls (turn_id, seq, started_at, model, streamed, request_messages, "
            "request_tools, system_prompt_hash, tools_hash, response, prompt_tokens, "
            "completion_tokens, duration_ms) VALUES (1, 1, '2026-11-22', 'm', 0, ?, '[]', 'p1', "
            "'t1', '{}', 0, 0, 1.0)",
            (json.dumps(reference),),
        )
    command.downgrade(config, "-1")
    with closing(sqlite3.connect(path)) as connection:
        messages, offered = connection.execute(
            "SELECT request_messages, request_tools FROM llm_calls"
        ).fetchone()
    assert json.loads(messages) == [
        {"role": "system", "content": "The prompt."},
        {"role": "user", "content": "hi"},
    ]
    assert json.loads(offered) == tools


def test_custom_tools_keep_their_versions_through_the_upgrade_and_back(tmp_path: Path) -> None:
    """A tool stored in the older shape keeps its current version going up, and again going down."""
    path = tmp_path / "home_agent.db"
    config = alembic_config(database_url(path))
    command.upgrade(config, BEFORE_CUSTOM_TOOLS)
    definitions = [json.dumps({"name": "t", "description": f"v{n}"}) for n in (1, 2)]
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute(
            "INSERT INTO custom_tools VALUES (7, 't', 'v2', 1, 2, '2026-11-22', '2026-11-22')"
        )
        connection.executemany(
            "INSERT INTO custom_tool_versions VALUES (?, 7, ?, '2026-11-22', ?, '')",
            [(10, 1, definitions[0]), (11, 2, definitions[1])],
        )
    command.upgrade(config, "head")
    with closing(sqlite3.connect(path)) as connection:
        current = connection.execute(
            "SELECT v.number, v.definition FROM custom_tools t "
            "JOIN custom_tool_versions v ON v.id = t.current_version_id WHERE t.id = 7"
        ).fetchone()
    command.downgrade(config, BEFORE_CUSTOM_TOOLS)
    with closing(sqlite3.connect(path)) as connection:
        tool = connection.execute(
            "SELECT name, description, current_version FROM custom_tools"
        ).fetchone()
        versions = connection.execute(
            "SELECT version FROM custom_tool_versions ORDER BY version"
        ).fetchall()
    assert current == (2, definitions[1])
    assert tool == ("t", "v2", 2)
    assert versions == [(1,), (2,)]
