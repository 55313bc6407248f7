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
    # Added in place (SQLite's ADD COLUMN, with a default for the rows there are).
    op.add_column(
        "mcp_servers",
        sa.Column("read_only_tools", sa.JSON(), server_default="[]", nullable=False),
    )
    op.add_column(
        "mcp_servers",
        sa.Column("approved_tools", sa.JSON(), server_default="{}", nullable=False),
    )


def downgrade() -> None:
    # SQLite (3.35 and later) drops a column in place.
    op.drop_column("mcp_servers", "approved_tools")
    op.drop_column("mcp_servers", "read_only_tools")
