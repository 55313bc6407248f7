"""The confirmation policy: what the user must confirm before it is done, and how.

A new table, ``confirmation_policy``, starts with the defaults, each on and confirmed by a
spoken "yes": unlocking or opening a lock, disarming an alarm panel, opening a cover of device
class garage, gate or door. A PIN is kept only as a salted hash (``pin_hash``).

Revision ID: 5b1d7e3a9c42
Revises: 3e8b5d1f9a62
Create Date: 2026-11-25 18:00:00
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "5b1d7e3a9c42"
down_revision: str | Sequence[str] | None = "3e8b5d1f9a62"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COVER = ["open_cover", "toggle", "set_cover_position"]
_DEFAULTS = [
    ("domain", "lock", ["unlock", "open"]),
    ("domain", "alarm_control_panel", ["alarm_disarm"]),
    ("device_class", "cover.garage", _COVER),
    ("device_class", "cover.gate", _COVER),
    ("device_class", "cover.door", _COVER),
]


def upgrade() -> None:
    op.create_table(
        "confirmation_policy",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("scope", sa.String(16), nullable=False),
        sa.Column("target", sa.String(255), nullable=False),
        sa.Column("actions", sa.JSON(), nullable=False),
        sa.Column("method", sa.String(8), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("pin_hash", sa.String(255), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_confirmation_policy")),
    )
    # Plain columns for the rows, so the offline SQL renders them as literals too.
    rows = sa.table(
        "confirmation_policy",
        sa.column("scope", sa.String),
        sa.column("target", sa.String),
        sa.column("actions", sa.String),
        sa.column("method", sa.String),
        sa.column("enabled", sa.Integer),
        sa.column("pin_hash", sa.String),
        sa.column("created_at", sa.String),
    )
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    op.bulk_insert(
        rows,
        [
            {
                "scope": scope,
                "target": target,
                "actions": json.dumps(actions),
                "method": "yes",
                "enabled": 1,
                "pin_hash": None,
                "created_at": now,
            }
            for scope, target, actions in _DEFAULTS
        ],
    )


def downgrade() -> None:
    op.drop_table("confirmation_policy")
