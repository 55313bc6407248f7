"""Store system prompts and tool lists once, by hash, instead of in every model call.

``llm_payloads`` holds each distinct system prompt and tool list; ``llm_calls`` gains the two
hashes that point there. Rows written before keep their content inline and no hashes, and the
readers take both forms, so nothing is rewritten on the way up. On the way down the content is put
back inline first, so an older Home Agent still shows every trace in full.

Revision ID: d2e6e0946102
Revises: 1fca19263c0e
Create Date: 2026-11-22 03:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "d2e6e0946102"
down_revision: str | Sequence[str] | None = "1fca19263c0e"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The reference the store writes in place of the system message's content is
# {"role": "system", "content_ref": "<hash>"}; these restore the content where it stood.
INLINE_SYSTEM_PROMPTS = """
UPDATE llm_calls SET request_messages = json_set(
    json_remove(request_messages, '$[0].content_ref'),
    '$[0].content',
    (SELECT content FROM llm_payloads WHERE hash = llm_calls.system_prompt_hash)
)
WHERE system_prompt_hash IS NOT NULL
"""
INLINE_TOOLS = """
UPDATE llm_calls SET request_tools = coalesce(
    (SELECT json(content) FROM llm_payloads WHERE hash = llm_calls.tools_hash), '[]'
)
WHERE tools_hash IS NOT NULL
"""


def upgrade() -> None:
    op.create_table(
        "llm_payloads",
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("hash", name=op.f("pk_llm_payloads")),
    )
    # Adding nullable columns and indexes needs no copy of the table, even in batch mode.
    with op.batch_alter_table("llm_calls", schema=None) as batch_op:
        batch_op.add_column(sa.Column("system_prompt_hash", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("tools_hash", sa.String(length=64), nullable=True))
        batch_op.create_index(
            batch_op.f("ix_llm_calls_system_prompt_hash"), ["system_prompt_hash"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_llm_calls_tools_hash"), ["tools_hash"], unique=False)


def downgrade() -> None:
    op.execute(INLINE_SYSTEM_PROMPTS)
    op.execute(INLINE_TOOLS)
    op.drop_index(op.f("ix_llm_calls_tools_hash"), table_name="llm_calls")
    op.drop_index(op.f("ix_llm_calls_system_prompt_hash"), table_name="llm_calls")
    # SQLite (3.35 and later) drops a column in place; batch mode would copy the whole table.
    op.drop_column("llm_calls", "tools_hash")
    op.drop_column("llm_calls", "system_prompt_hash")
    op.drop_table("llm_payloads")
