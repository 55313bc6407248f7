"""Custom tools as issue 11 keeps them: versions with an author, soft delete, and secrets.

``custom_tool_versions.version`` becomes ``number``, its definition the JSON text of the plain
mapping (SQLite stored the old JSON column as text already) and it gains ``author``.
``custom_tools`` names its current version by id instead of by number, loses the description
(the definition holds it) and gains ``deleted_at``; its name is unique only among the tools not
deleted. ``secrets`` is new. Going down drops the soft-deleted tools (the older schema cannot
keep two tools of one name) and the secrets.

Revision ID: adb8676af833
Revises: 5b7c3e1a9d20
Create Date: 2026-11-23 13:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "adb8676af833"
down_revision: str | Sequence[str] | None = "5b7c3e1a9d20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LIVE_NAME = sa.text("deleted_at IS NULL")

# The tables are rebuilt by hand rather than in batch mode, which cannot run as an offline
# (``--sql``) script without copies of the tables it alters: renamed aside, created anew, filled
# from the old ones, then the old ones dropped (the versions first, which refer to the tools).


def _create_tools(old: bool) -> None:
    columns: list[sa.Column[object]]
    if old:
        columns = [
            sa.Column("description", sa.Text(), nullable=False),
            sa.Column("enabled", sa.Boolean(), nullable=False),
            sa.Column("current_version", sa.Integer(), nullable=False),
        ]
    else:
        columns = [
            sa.Column("current_version_id", sa.Integer(), nullable=True),
            sa.Column("enabled", sa.Boolean(), nullable=False),
            sa.Column("deleted_at", sa.DateTime(), nullable=True),
        ]
    op.create_table(
        "custom_tools",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        *columns,
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_custom_tools")),
        *([sa.UniqueConstraint("name", name=op.f("uq_custom_tools_name"))] if old else []),
    )
    if not old:
        op.create_index(
            "ix_custom_tools_live_name",
            "custom_tools",
            ["name"],
            unique=True,
            sqlite_where=LIVE_NAME,
        )


def _create_versions(old: bool) -> None:
    number = "version" if old else "number"
    op.create_table(
        "custom_tool_versions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("tool_id", sa.Integer(), nullable=False),
        sa.Column(number, sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("definition", sa.JSON() if old else sa.Text(), nullable=False),
        *(() if old else [sa.Column("author", sa.String(length=200), nullable=True)]),
        sa.Column("note", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tool_id"],
            ["custom_tools.id"],
            name=op.f("fk_custom_tool_versions_tool_id_custom_tools"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_custom_tool_versions")),
        sa.UniqueConstraint("tool_id", number, name=f"uq_custom_tool_versions_tool_{number}"),
    )


def _set_aside() -> None:
    op.rename_table("custom_tool_versions", "custom_tool_versions_old")
    op.rename_table("custom_tools", "custom_tools_old")


def _drop_aside() -> None:
    op.drop_table("custom_tool_versions_old")
    op.drop_table("custom_tools_old")


def upgrade() -> None:
    op.create_table(
        "secrets",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_secrets")),
    )
    _set_aside()
    _create_tools(old=False)
    _create_versions(old=False)
    op.execute(
        "INSERT INTO custom_tools (id, name, current_version_id, enabled, deleted_at, "
        "created_at, updated_at) SELECT o.id, o.name, (SELECT v.id FROM custom_tool_versions_old "
        "v WHERE v.tool_id = o.id AND v.version = o.current_version), o.enabled, NULL, "
        "o.created_at, o.updated_at FROM custom_tools_old o"
    )
    op.execute(
        "INSERT INTO custom_tool_versions (id, tool_id, number, created_at, definition, author, "
        "note) SELECT id, tool_id, version, created_at, definition, NULL, note "
        "FROM custom_tool_versions_old"
    )
    _drop_aside()


def downgrade() -> None:
    _set_aside()
    _create_tools(old=True)
    _create_versions(old=True)
    op.execute(
        "INSERT INTO custom_tools (id, name, description, current_version, enabled, created_at, "
        "updated_at) SELECT o.id, o.name, coalesce((SELECT json_extract(v.definition, "
        "'$.description') FROM custom_tool_versions_old v WHERE v.id = o.current_version_id), "
        "''), coalesce((SELECT v.number FROM custom_tool_versions_old v "
        "WHERE v.id = o.current_version_id), 1), o.enabled, o.created_at, o.updated_at "
        "FROM custom_tools_old o WHERE o.deleted_at IS NULL"
    )
    op.execute(
        "INSERT INTO custom_tool_versions (id, tool_id, version, created_at, definition, note) "
        "SELECT v.id, v.tool_id, v.number, v.created_at, v.definition, v.note "
        "FROM custom_tool_versions_old v JOIN custom_tools_old o ON o.id = v.tool_id "
        "WHERE o.deleted_at IS NULL"
    )
    _drop_aside()
    op.drop_table("secrets")
