"""Supervisor's backup_pre command leaves a database file that is complete on its own."""

from __future__ import annotations

import json
import shlex
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from addon.config.load import load_settings
from tests.packaging.supervisor import REPO, RUN_SCRIPT, config, exec_arguments

BACKUP_TIMEOUT_S = 60


def backup_pre_command(database: Path) -> list[str]:
    """config.yaml's backup_pre, aimed at ``database`` and run by this test's Python."""
    words = shlex.split(config()["backup_pre"])
    assert words[0] == "python3"
    assert words[-1] == "/data/home_agent.db"
    return [sys.executable, *words[1:-1], str(database)]


@pytest.fixture
def live_database(tmp_path: Path) -> Iterator[tuple[Path, sqlite3.Connection]]:
    """A WAL database whose committed rows are still only in its -wal file, held open."""
    path = tmp_path / "home_agent.db"
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("CREATE TABLE turn (id INTEGER PRIMARY KEY, text TEXT)")
        connection.executemany("INSERT INTO turn (text) VALUES (?)", [("hello",), ("lights",)])
        connection.commit()
        assert Path(f"{path}-wal").stat().st_size > 0
        yield path, connection


def test_backup_pre_names_the_database_the_addon_uses(tmp_path: Path) -> None:
    """backup_pre checkpoints the file the run script's flags make Python open."""
    options = tmp_path / "options.json"
    options.write_text(json.dumps(config()["options"]), encoding="utf-8")
    arguments = exec_arguments(RUN_SCRIPT)
    arguments[arguments.index("--options") + 1] = str(options)
    settings = load_settings(arguments, {"SUPERVISOR_TOKEN": "supervisor-token"})
    assert Path(shlex.split(config()["backup_pre"])[-1]) == settings.database_path


def test_backup_pre_leaves_every_committed_row_in_the_database_file(
    live_database: tuple[Path, sqlite3.Connection], tmp_path: Path
) -> None:
    """After backup_pre, a copy of the .db file alone (no -wal) holds every committed row."""
    path, _ = live_database
    result = subprocess.run(
        backup_pre_command(path),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=BACKUP_TIMEOUT_S,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert Path(f"{path}-wal").stat().st_size == 0
    copy = tmp_path / "copy" / "home_agent.db"
    copy.parent.mkdir()
    shutil.copyfile(path, copy)
    with closing(sqlite3.connect(copy)) as restored:
        rows = restored.execute("SELECT text FROM turn ORDER BY id").fetchall()
    assert rows == [("hello",), ("lights",)]
