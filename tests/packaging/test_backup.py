"""Supervisor's backup hooks: backup_pre folds the WAL in and pauses checkpoints; post resumes."""

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
from addon.store.file.backup_guard import flag_path
from tests.packaging.supervisor import REPO, RUN_SCRIPT, config, exec_arguments

BACKUP_TIMEOUT_S = 60
HOOKS = ["backup_pre", "backup_post"]


def hook_command(hook: str, database: Path) -> list[str]:
    """config.yaml's ``hook`` command, aimed at ``database`` and run by this test's Python."""
    words = shlex.split(config()[hook])
    assert words[0] == "python3"
    assert words[-1] == "/data/home_agent.db"
    return [sys.executable, *words[1:-1], str(database)]


def run_hook(hook: str, database: Path) -> subprocess.CompletedProcess[str]:
    """Run a hook from outside the package directory, as Supervisor's ``docker exec`` does."""
    return subprocess.run(
        hook_command(hook, database),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=BACKUP_TIMEOUT_S,
        check=False,
    )


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


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_names_the_database_the_addon_uses(hook: str, tmp_path: Path) -> None:
    """Each hook acts on the file the run script's flags make Python open."""
    options = tmp_path / "options.json"
    options.write_text(json.dumps(config()["options"]), encoding="utf-8")
    arguments = exec_arguments(RUN_SCRIPT)
    arguments[arguments.index("--options") + 1] = str(options)
    settings = load_settings(arguments, {"SUPERVISOR_TOKEN": "supervisor-token"})
    assert Path(shlex.split(config()[hook])[-1]) == settings.database_path


@pytest.mark.parametrize(
    ("hook", "step"), [("backup_pre", "--begin-backup"), ("backup_post", "--end-backup")]
)
def test_hook_runs_its_step_of_the_checkpoint_module(hook: str, step: str) -> None:
    """backup_pre begins the backup and backup_post ends it, through the checkpoint module."""
    words = shlex.split(config()[hook])
    assert words[1:-1] == ["-m", "addon.store.file.checkpoint", step]


def test_backup_pre_leaves_every_committed_row_in_the_database_file(
    live_database: tuple[Path, sqlite3.Connection], tmp_path: Path
) -> None:
    """After backup_pre, a copy of the .db file alone (no -wal) holds every committed row."""
    path, _ = live_database
    result = run_hook("backup_pre", path)
    assert result.returncode == 0, result.stderr
    assert Path(f"{path}-wal").stat().st_size == 0
    copy = tmp_path / "copy" / "home_agent.db"
    copy.parent.mkdir()
    shutil.copyfile(path, copy)
    with closing(sqlite3.connect(copy)) as restored:
        rows = restored.execute("SELECT text FROM turn ORDER BY id").fetchall()
    assert rows == [("hello",), ("lights",)]


def test_backup_pre_raises_the_flag_and_backup_post_lowers_it(
    live_database: tuple[Path, sqlite3.Connection],
) -> None:
    """Between the two hooks the backup flag is up; after backup_post it is gone."""
    path, _ = live_database
    begun = run_hook("backup_pre", path)
    flag_up_between = flag_path(path).exists()
    ended = run_hook("backup_post", path)
    assert (begun.returncode, begun.stderr) == (0, "")
    assert (ended.returncode, ended.stderr) == (0, "")
    assert flag_up_between
    assert not flag_path(path).exists()
