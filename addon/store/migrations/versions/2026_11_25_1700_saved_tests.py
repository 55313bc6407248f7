"""Tests saved from turns (issue 24): the user's own suite, and what a turn's actions changed.

``eval_tasks`` holds one task per row (sentence, setup, expect, answer, tags), saved from a
turn's trace with "Save as test" and edited there. ``turns.states`` holds, for a turn that
acted, the states of the entities it acted on before and after (``addon.agent.state_record``),
which a saved test starts from; NULL for turns that did not act, and for every turn stored
before.

Revision ID: 3e8b5d1f9a62
Revises: 3c8e5a7f1b20
Create Date: 2026-11-25 17:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "3e8b5d1f9a62"
down_revision: str | Sequence[str] | None = "3c8e5a7f1b20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``eval_tasks``; add ``turns.states``."""
    op.create_table(
        "eval_tasks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("turn_id", sa.Integer(), nullable=True),
        sa.Column("task", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_eval_tasks")),
    )
    # A nullable column is added in place, even in batch mode: the FTS triggers stay.
    with op.batch_alter_table("turns", schema=None) as batch_op:
        batch_op.add_column(sa.Column("states", sa.JSON(), nullable=True))


def downgrade() -> None:
    """Drop ``turns.states`` (in place, keeping the triggers) and every saved test."""
    op.drop_column("turns", "states")
    op.drop_table("eval_tasks")
