"""Record why a turn failed as a kind of its own beside the error text.

``turns.error_kind`` holds one of :class:`addon.errors.ErrorKind` ("llm_timeout", "llm_auth",
"iteration_limit", ...), so the panel and queries can tell a timeout from a wrong key without
reading the message. Older turns keep NULL: their text alone says what happened.

Revision ID: 8c4b7e2f1a93
Revises: d2e6e0946102
Create Date: 2026-11-23 00:01:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "8c4b7e2f1a93"
down_revision: str | Sequence[str] | None = "d2e6e0946102"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A nullable column is added in place, even in batch mode: the FTS triggers stay.
    with op.batch_alter_table("turns", schema=None) as batch_op:
        batch_op.add_column(sa.Column("error_kind", sa.String(length=32), nullable=True))


def downgrade() -> None:
    # SQLite (3.35 and later) drops a column in place; batch mode would copy the whole table
    # and lose the FTS triggers on it.
    op.drop_column("turns", "error_kind")
