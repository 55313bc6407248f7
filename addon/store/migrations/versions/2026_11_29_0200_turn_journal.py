"""The turn journal: an answered turn is one row of JSON until its own rows are written.

An answer used to wait for the commit of its turn's rows in five tables and a dozen indexes
(about twenty pages of the WAL); it now waits for one row here (``store/turns/journal.py``), and
the writer writes the turn's rows right after, deleting the row in the same transaction.

Revision ID: 7d3f9a1c5e82
Revises: 6c2e8f4b0a71
Create Date: 2026-11-29 02:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "7d3f9a1c5e82"
down_revision: str | Sequence[str] | None = "6c2e8f4b0a71"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``turn_journal``."""
    op.create_table(
        "turn_journal",
        sa.Column("turn_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("turn_id", name=op.f("pk_turn_journal")),
    )


def downgrade() -> None:
    """Drop ``turn_journal`` (a stopped store has written every entry to the turns' tables)."""
    op.drop_table("turn_journal")
