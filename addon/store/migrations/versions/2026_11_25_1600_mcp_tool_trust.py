"""MCP tools the user trusts: which are read-only, and what each looked like when approved.

``mcp_servers.read_only_tools`` lists the server's tools the user marked read-only (the only
ones a dry run lets run); ``mcp_servers.approved_tools`` keeps, per switched-on tool, the
description and schema the user approved, so a server that changes them has the tool withheld
until the user approves the change. Existing servers start with neither: their switched-on
tools are approved as the next listing finds them.

Revision ID: 3c8e5a7f1b20
Revises: 7d2a9c4e6b15
Create Date: 2026-11-25 16:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "3c8e5a7f1b20"
down_revision: str | Sequence[str] | None = "7d2a9c4e6b15"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("mcp_servers", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("read_only_tools", sa.JSON(), nullable=False, server_default="[]")
        )
        batch_op.add_column(
            sa.Column("approved_tools", sa.JSON(), nullable=False, server_default="{}")
        )


def downgrade() -> None:
    with op.batch_alter_table("mcp_servers", schema=None) as batch_op:
        batch_op.drop_column("approved_tools")
        batch_op.drop_column("read_only_tools")
