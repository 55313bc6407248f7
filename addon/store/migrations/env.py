"""Alembic environment for the store.

Three ways in: the add-on hands over its own connection in ``config.attributes["connection"]``
(Alembic's connection-sharing recipe; see :func:`addon.store.migrate.upgrade_to_head`); a developer
command opens the database named by ``sqlalchemy.url`` itself, through the async driver; and
``--sql`` renders the migrations as a script without any database.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlalchemy import Connection, pool
from sqlalchemy.ext.asyncio import create_async_engine

from addon.store.column_types import UTCDateTime
from addon.store.migrate import include_name
from addon.store.models import Base

config = context.config
target_metadata = Base.metadata


def render_item(type_: str, obj: object, autogen_context: AutogenContext) -> str | Literal[False]:
    """Write our UTC wrapper as the plain DateTime it stores: revisions must not import models."""
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime()"
    return False


def configure(*, connection: Connection | None = None, url: str | None = None) -> None:
    """Configure the context the same way in every mode.

    SQLite alters tables by copying them ("batch" mode); compare_type lets autogenerate notice a
    column whose type changed, not only added and dropped columns. Without a connection (the
    offline ``--sql`` mode) values are written into the SQL as literals.
    """
    context.configure(
        target_metadata=target_metadata,
        render_as_batch=True,
        compare_type=True,
        include_name=include_name,
        render_item=render_item,
        connection=connection,
        url=url,
        literal_binds=connection is None,
        dialect_opts={"paramstyle": "named"} if connection is None else None,
    )


def run_migrations_offline() -> None:
    configure(url=config.get_main_option("sqlalchemy.url", "sqlite://"))
    with context.begin_transaction():
        context.run_migrations()


def do_run_migrations(connection: Connection) -> None:
    configure(connection=connection)
    with context.begin_transaction():
        context.run_migrations()


async def run_async_migrations(url: str) -> None:
    engine = create_async_engine(url, poolclass=pool.NullPool)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(do_run_migrations)
            await connection.commit()
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        do_run_migrations(connection)
        return
    url = config.get_main_option("sqlalchemy.url")
    if url is None:
        raise RuntimeError("no connection was handed over and sqlalchemy.url is not set")
    asyncio.run(run_async_migrations(url))


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
