"""The confirmation policy's audit trail: each entry added, edited, deleted, switched on or off.

A new table, ``confirmation_policy_changes``: the entry's id, the change, the entry as it was
left in words (never a PIN or its hash), and when.

Revision ID: 8c4f2a6d1e93
Revises: 5b1d7e3a9c42
Create Date: 2026-11-28 08:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "8c4f2a6d1e93"
down_revision: str | Sequence[str] | None = "5b1d7e3a9c42"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "confirmation_policy_changes",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("entry_id", sa.Integer(), nullable=False),
        sa.Column("change", sa.String(16), nullable=False),
        sa.Column("summary", sa.String(512), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_confirmation_policy_changes")),
    )


def downgrade() -> None:
    op.drop_table("confirmation_policy_changes")
