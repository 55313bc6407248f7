"""Custom tool versions keep the text the user wrote: ``custom_tool_versions.source``.

The editor showed a saved tool as its definition dumped again by PyYAML, which re-quoted a
template (``{{ states('sensor.x') }}`` came back as ``'{{ states(''sensor.x'') }}'``). The
text as written is now kept beside the definition; NULL for versions saved before, and for
those saved through the API or an import, which are shown dumped as before.

Revision ID: 3e7a91c5d2f4
Revises: 8c4f2a6d1e93
Create Date: 2026-11-28 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "3e7a91c5d2f4"
down_revision: str | Sequence[str] | None = "8c4f2a6d1e93"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("custom_tool_versions", sa.Column("source", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("custom_tool_versions", "source")
