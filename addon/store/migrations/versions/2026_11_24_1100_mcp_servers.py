"""MCP servers whose tools the agent may use (issue 15).

Revision ID: 7f3a2c91e5d4
Revises: 5b0f2c9e7d14
Create Date: 2026-11-24 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "7f3a2c91e5d4"
down_revision: str | Sequence[str] | None = "5b0f2c9e7d14"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mcp_servers",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("header_name", sa.String(length=64), nullable=True),
        sa.Column("secret_name", sa.String(length=64), nullable=True),
        sa.Column("enabled_tools", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mcp_servers")),
        sa.UniqueConstraint("name", name=op.f("uq_mcp_servers_name")),
    )


def downgrade() -> None:
    op.drop_table("mcp_servers")
