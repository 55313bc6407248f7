"""Reserve turn and model-call ids in the database before they are given out.

``id_counters`` holds, for ``turns`` and ``llm_calls``, the next id nobody has reserved
(:mod:`addon.store.turns.ids`); it starts above the largest id each table holds. Going down drops
it: an older Home Agent counts on from the largest stored id, as it always did.

Revision ID: 5b7c3e1a9d20
Revises: 8c4b7e2f1a93
Create Date: 2026-11-23 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5b7c3e1a9d20"
down_revision: str | Sequence[str] | None = "8c4b7e2f1a93"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SEED = """
INSERT INTO id_counters (name, next_id)
SELECT 'turns', coalesce(max(id), 0) + 1 FROM turns
UNION ALL
SELECT 'llm_calls', coalesce(max(id), 0) + 1 FROM llm_calls
"""


def upgrade() -> None:
    op.create_table(
        "id_counters",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("next_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_id_counters")),
    )
    op.execute(SEED)


def downgrade() -> None:
    op.drop_table("id_counters")
