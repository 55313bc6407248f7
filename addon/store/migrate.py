"""Alembic, configured in code: the add-on ships no ``alembic.ini``.

:func:`upgrade_to_head` is what :meth:`addon.store.database.Store.open` runs at every start, over a
connection of the store's own engine (the Alembic cookbook's connection-sharing recipe for
asyncio). Developers reach the same configuration through ``python -m addon.store.migrate``, which
accepts every ``alembic`` sub-command::

    python -m addon.store.migrate --database /tmp/dev.db upgrade head
    python -m addon.store.migrate --database /tmp/dev.db revision --autogenerate -m "add x"
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from alembic import command
from alembic.config import CommandLine, Config
from alembic.runtime.environment import NameFilterParentNames, NameFilterType
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import URL, Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from addon.errors import SchemaTooNewError, StoreError

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
# Date-prefixed file names sort in the order revisions were written (the chain itself is what
# orders them for Alembic). Percent signs are doubled for the config's interpolation.
FILE_TEMPLATE = "%%(year)d_%%(month).2d_%%(day).2d_%%(hour).2d%%(minute).2d_%%(slug)s"
# The full-text index and its shadow tables are created by raw SQL in the migrations; no model
# describes them, so autogenerate must not see them (or it would propose dropping them).
FTS_TABLES = ("turns_fts", "memories_fts")


def database_url(path: Path) -> URL:
    """The SQLAlchemy URL of the database file at ``path`` (async driver)."""
    return URL.create("sqlite+aiosqlite", database=str(path))


def alembic_config(url: URL | None = None, *, output_buffer: TextIO | None = None) -> Config:
    """An Alembic configuration pointing at this package's migrations.

    ``url`` is only needed when Alembic opens the database itself (developer commands); at run
    time the store hands over its own connection instead. ``output_buffer`` receives the SQL of
    offline (``--sql``) runs.
    """
    config = Config(output_buffer=output_buffer)
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("file_template", FILE_TEMPLATE)
    if url is not None:
        config.set_main_option(
            "sqlalchemy.url", url.render_as_string(hide_password=False).replace("%", "%%")
        )
    return config


def include_name(
    name: str | None, type_: NameFilterType, parent_names: NameFilterParentNames
) -> bool:
    """Keep the FTS5 tables and their shadow tables out of autogenerate's comparison."""
    if type_ == "table" and name is not None:
        return not any(name == fts or name.startswith(f"{fts}_") for fts in FTS_TABLES)
    return True


def known_revisions(config: Config) -> set[str]:
    """Every revision this version of Home Agent ships."""
    return {script.revision for script in ScriptDirectory.from_config(config).walk_revisions()}


def current_revision(connection: Connection) -> str | None:
    """The revision the database is stamped with (heads joined by commas; ``None`` if new)."""
    heads = MigrationContext.configure(connection).get_current_heads()
    return ",".join(heads) if heads else None


def _upgrade(connection: Connection, config: Config) -> str:
    """Refuse a newer schema, upgrade to head and check references; runs inside one transaction."""
    heads = MigrationContext.configure(connection).get_current_heads()
    unknown = sorted(set(heads) - known_revisions(config))
    if unknown:
        newest = ScriptDirectory.from_config(config).get_current_head()
        raise SchemaTooNewError(
            f"the database was written by a newer Home Agent (schema revision "
            f"{', '.join(unknown)} is unknown here; this version knows up to {newest}); "
            "it was left untouched: update Home Agent or restore an older backup"
        )
    config.attributes["connection"] = connection
    command.upgrade(config, "head")
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if broken:
        # Migrations run with foreign keys off (see upgrade_to_head); a revision that left
        # dangling references must not be committed.
        raise StoreError(f"the migration left {len(broken)} broken references, e.g. {broken[0]}")
    revision = current_revision(connection)
    if revision is None:  # pragma: no cover - command.upgrade always stamps
        raise StoreError("the migration did not stamp a revision")
    return revision


async def upgrade_to_head(engine: AsyncEngine) -> str:
    """Bring the database up to this version's schema; returns the revision it ends at.

    The whole upgrade is one ``BEGIN IMMEDIATE`` transaction: SQLite's DDL is transactional, so a
    failed revision leaves the file as it was, and taking the write lock first means a second
    process can neither migrate at the same time nor hold us up for longer than the busy timeout
    (it raises ``database is locked`` instead). Foreign keys are off while it runs, as Alembic's
    batch mode needs: recreating a parent table must not cascade deletes into its children. The
    pragma only takes effect outside a transaction, so the connection is discarded afterwards
    rather than returned to the pool without foreign keys.
    """
    config = alembic_config()
    async with engine.connect() as connection:
        try:
            await connection.exec_driver_sql("PRAGMA foreign_keys = OFF")
            await connection.exec_driver_sql("BEGIN IMMEDIATE")
            revision = await connection.run_sync(_upgrade, config)
            await connection.commit()
        finally:
            await connection.invalidate()
    return revision


def main(argv: list[str] | None = None) -> int:
    """Run an ``alembic`` command against a database file, configured as the add-on does."""
    cli = CommandLine(prog="python -m addon.store.migrate")
    cli.parser.add_argument(
        "--database",
        type=Path,
        default=Path("home_agent.db"),
        help="the SQLite file to work on (default: ./home_agent.db)",
    )
    options = cli.parser.parse_args(argv)
    if not hasattr(options, "cmd"):
        cli.parser.error("too few arguments")
    config = alembic_config(database_url(options.database))
    config.cmd_opts = options
    cli.run_cmd(config, options)
    return 0


if __name__ == "__main__":
    sys.exit(main())
