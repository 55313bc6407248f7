"""Who is asking: each turn's actor, and the rules per person and per satellite.

``turns.actor`` holds the person, satellite and endpoint of a turn ("unknown" where the path
could not tell), NULL for every turn stored before. A new table, ``actor_rules``, holds the
Safety page's rules: per person (a person entity or a Home Assistant user) or per satellite (a
device), a level per domain, area or entity, a default, an optional preset and, for a
satellite, whether it acts only in its own area. It starts empty: nothing changes until the
user writes a rule. ``memories.person_id`` names the person a memory belongs to (NULL: the
household's, recalled for everyone).

Revision ID: 4a9e2c7b1d58
Revises: 3e7a91c5d2f4
Create Date: 2026-11-28 13:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "4a9e2c7b1d58"
down_revision: str | Sequence[str] | None = "3e7a91c5d2f4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A nullable column is added in place, even in batch mode: the FTS triggers stay.
    with op.batch_alter_table("turns", schema=None) as batch_op:
        batch_op.add_column(sa.Column("actor", sa.JSON(), nullable=True))
    with op.batch_alter_table("memories", schema=None) as batch_op:
        batch_op.add_column(sa.Column("person_id", sa.String(255), nullable=True))
    op.create_table(
        "actor_rules",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("subject", sa.String(255), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("preset", sa.String(16), nullable=True),
        sa.Column("default", sa.String(8), nullable=False),
        sa.Column("targets", sa.JSON(), nullable=False),
        sa.Column("own_area", sa.Boolean(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_actor_rules")),
    )


def downgrade() -> None:
    op.drop_table("actor_rules")
    op.drop_column("memories", "person_id")
    # Dropped in place (SQLite 3.35+); batch mode would copy the table and lose its triggers.
    op.drop_column("turns", "actor")
