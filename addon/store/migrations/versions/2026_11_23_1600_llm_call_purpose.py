"""Say what a model call was for: the turn's reply, or learning memories from it afterwards.

``llm_calls.purpose`` is NULL for the calls that answered the turn (every older row) and
``"memory"`` for the memory extraction run after the turn, which is traced like any model call
and linked from its turn, but is not part of the reply (its tokens are not the turn's).

Revision ID: 5b0f3c9e2d17
Revises: 3e91c5d7a4b2
Create Date: 2026-11-23 16:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5b0f3c9e2d17"
down_revision: str | Sequence[str] | None = "3e91c5d7a4b2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A nullable column is added in place, even in batch mode.
    with op.batch_alter_table("llm_calls", schema=None) as batch_op:
        batch_op.add_column(sa.Column("purpose", sa.String(length=16), nullable=True))


def downgrade() -> None:
    # SQLite (3.35 and later) drops a column in place.
    op.drop_column("llm_calls", "purpose")
