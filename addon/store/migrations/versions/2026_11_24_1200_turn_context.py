"""Keep a large home's context selection with the turn.

``turns.context`` holds, for a turn in a home above the overview's token budget, the entities
selected for the request and why each was chosen (name, area, history, memory, search, ...),
as :mod:`addon.agent.context` records it. NULL for turns whose prompt held the whole overview,
and for every turn stored before.

Revision ID: 7d2a9c4e6b15
Revises: 7f3a2c91e5d4
Create Date: 2026-11-24 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "7d2a9c4e6b15"
down_revision: str | Sequence[str] | None = "7f3a2c91e5d4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A nullable column is added in place, even in batch mode: the FTS triggers stay.
    with op.batch_alter_table("turns", schema=None) as batch_op:
        batch_op.add_column(sa.Column("context", sa.JSON(), nullable=True))


def downgrade() -> None:
    # Dropped in place (SQLite 3.35+); batch mode would copy the table and lose its triggers.
    op.drop_column("turns", "context")
