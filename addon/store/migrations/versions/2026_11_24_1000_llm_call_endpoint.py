"""Record which endpoint answered each model call, and nest the expert's calls in tool calls.

``llm_calls.endpoint`` is ``primary``, ``backup`` (the fallback) or ``expert``; older rows were
all the primary's. ``tool_call_id`` names the tool call an expert call was made for, and
``note`` says why the backup was asked.

Revision ID: 5b0f2c9e7d14
Revises: 7c2f4a9e1b38
Create Date: 2026-11-24 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5b0f2c9e7d14"
down_revision: str | Sequence[str] | None = "7c2f4a9e1b38"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Added in place (SQLite's ADD COLUMN): no copy of a table that holds every model call.
    op.add_column(
        "llm_calls",
        sa.Column("endpoint", sa.String(length=16), server_default="primary", nullable=False),
    )
    op.add_column("llm_calls", sa.Column("tool_call_id", sa.String(length=128), nullable=True))
    op.add_column("llm_calls", sa.Column("note", sa.Text(), nullable=True))


def downgrade() -> None:
    # SQLite (3.35 and later) drops a column in place.
    op.drop_column("llm_calls", "note")
    op.drop_column("llm_calls", "tool_call_id")
    op.drop_column("llm_calls", "endpoint")
