"""Automations the agent drafts and a person approves (issue 39): ``automation_drafts``.

One row per draft: the summary in words, the configuration Home Assistant would store, the
entities it touches, how it may be approved, its state (draft, approved, discarded, deleted),
the id it was created with and who approved it.

Revision ID: 5b1d7e3a9c40
Revises: 4a9e2c7b1d58
Create Date: 2026-11-28 14:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5b1d7e3a9c40"
down_revision: str | Sequence[str] | None = "4a9e2c7b1d58"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``automation_drafts``."""
    op.create_table(
        "automation_drafts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("conversation_id", sa.String(length=64), nullable=True),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("entities", sa.JSON(), nullable=False),
        sa.Column("covered", sa.Text(), nullable=True),
        sa.Column("confirm_by", sa.String(length=8), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("automation_id", sa.String(length=64), nullable=True),
        sa.Column("approved_by", sa.String(length=255), nullable=True),
        sa.Column("approved_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_automation_drafts")),
    )


def downgrade() -> None:
    """Drop every draft."""
    op.drop_table("automation_drafts")
