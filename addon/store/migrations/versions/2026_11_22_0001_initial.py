"""Initial schema: conversations and their turns, model and tool calls, memories, custom tools.

Also the FTS5 index ``turns_fts`` over the turns' user and reply text. It is an external-content
table (the text lives only in ``turns``), kept in sync by triggers, so no model describes it.
Anyone recreating ``turns`` later (a batch migration copies and drops the table, and its triggers
go with it) must recreate the three triggers and run ``INSERT INTO turns_fts(turns_fts)
VALUES('rebuild')``.

Revision ID: 1fca19263c0e
Revises:
Create Date: 2026-11-22 00:01:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "1fca19263c0e"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# External content over turns: the index stores only tokens, rowid is the turn id. With
# remove_diacritics 2 a search for "cafe" finds "café".
CREATE_FTS = """
CREATE VIRTUAL TABLE turns_fts USING fts5(
    user_text,
    reply_text,
    content='turns',
    content_rowid='id',
    tokenize='unicode61 remove_diacritics 2'
)
"""
# An external-content index is told the old values on delete ('delete' command); the update
# trigger fires only when the indexed text changes, not on every outcome or counter update.
CREATE_TRIGGERS = (
    """
    CREATE TRIGGER turns_fts_after_insert AFTER INSERT ON turns BEGIN
        INSERT INTO turns_fts(rowid, user_text, reply_text)
        VALUES (new.id, new.user_text, new.reply_text);
    END
    """,
    """
    CREATE TRIGGER turns_fts_after_delete AFTER DELETE ON turns BEGIN
        INSERT INTO turns_fts(turns_fts, rowid, user_text, reply_text)
        VALUES ('delete', old.id, old.user_text, old.reply_text);
    END
    """,
    """
    CREATE TRIGGER turns_fts_after_update AFTER UPDATE OF id, user_text, reply_text ON turns BEGIN
        INSERT INTO turns_fts(turns_fts, rowid, user_text, reply_text)
        VALUES ('delete', old.id, old.user_text, old.reply_text);
        INSERT INTO turns_fts(rowid, user_text, reply_text)
        VALUES (new.id, new.user_text, new.reply_text);
    END
    """,
)
TRIGGERS = ("turns_fts_after_insert", "turns_fts_after_delete", "turns_fts_after_update")


def upgrade() -> None:
    op.create_table(
        "conversations",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("device_id", sa.String(length=128), nullable=True),
        sa.Column("satellite_id", sa.String(length=128), nullable=True),
        sa.Column("language", sa.String(length=16), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("turn_count", sa.Integer(), nullable=False),
        sa.Column("error_count", sa.Integer(), nullable=False),
        sa.Column("flagged_count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_conversations")),
    )
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.create_index(
            "ix_conversations_device_updated", ["device_id", "updated_at"], unique=False
        )
        batch_op.create_index("ix_conversations_started_at", ["started_at"], unique=False)
        batch_op.create_index("ix_conversations_updated_at_id", ["updated_at", "id"], unique=False)

    op.create_table(
        "custom_tools",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("current_version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_custom_tools")),
        sa.UniqueConstraint("name", name=op.f("uq_custom_tools_name")),
    )
    op.create_table(
        "custom_tool_versions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("tool_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("definition", sa.JSON(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tool_id"],
            ["custom_tools.id"],
            name=op.f("fk_custom_tool_versions_tool_id_custom_tools"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_custom_tool_versions")),
        sa.UniqueConstraint("tool_id", "version", name="uq_custom_tool_versions_tool_version"),
    )
    op.create_table(
        "memories",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("category", sa.String(length=32), nullable=False),
        sa.Column("importance", sa.Float(), nullable=False),
        sa.Column("source_conversation_id", sa.String(length=64), nullable=True),
        sa.Column("last_used_at", sa.DateTime(), nullable=True),
        sa.Column("expires_at", sa.DateTime(), nullable=True),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["source_conversation_id"],
            ["conversations.id"],
            name=op.f("fk_memories_source_conversation_id_conversations"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_memories")),
    )
    with op.batch_alter_table("memories", schema=None) as batch_op:
        batch_op.create_index("ix_memories_active_updated", ["active", "updated_at"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_memories_source_conversation_id"),
            ["source_conversation_id"],
            unique=False,
        )

    op.create_table(
        "turns",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("conversation_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("user_text", sa.Text(), nullable=False),
        sa.Column("reply_text", sa.Text(), nullable=False),
        sa.Column("handled_by", sa.String(length=16), nullable=False),
        sa.Column("language", sa.String(length=16), nullable=False),
        sa.Column("dry_run", sa.Boolean(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("messages", sa.JSON(), nullable=False),
        sa.Column("timings", sa.JSON(), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("outcome_detail", sa.JSON(), nullable=False),
        sa.Column("flagged", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversations.id"],
            name=op.f("fk_turns_conversation_id_conversations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_turns")),
        sa.UniqueConstraint("conversation_id", "seq", name="uq_turns_conversation_seq"),
    )
    with op.batch_alter_table("turns", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_turns_conversation_id"), ["conversation_id"], unique=False
        )
        batch_op.create_index("ix_turns_created_at_id", ["created_at", "id"], unique=False)
        batch_op.create_index(
            "ix_turns_handled_by_created", ["handled_by", "created_at"], unique=False
        )

    op.create_table(
        "llm_calls",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("turn_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("streamed", sa.Boolean(), nullable=False),
        sa.Column("request_messages", sa.JSON(), nullable=False),
        sa.Column("request_tools", sa.JSON(), nullable=False),
        sa.Column("response", sa.JSON(), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("ttft_ms", sa.Float(), nullable=True),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("finish_reason", sa.String(length=32), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["turn_id"], ["turns.id"], name=op.f("fk_llm_calls_turn_id_turns"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_llm_calls")),
    )
    with op.batch_alter_table("llm_calls", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_llm_calls_turn_id"), ["turn_id"], unique=False)

    op.create_table(
        "tool_calls",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("turn_id", sa.Integer(), nullable=False),
        sa.Column("llm_call_id", sa.Integer(), nullable=True),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("call_id", sa.String(length=128), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("name", sa.String(length=128), nullable=False),
        sa.Column("arguments", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("executor", sa.String(length=16), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["llm_call_id"],
            ["llm_calls.id"],
            name=op.f("fk_tool_calls_llm_call_id_llm_calls"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["turn_id"], ["turns.id"], name=op.f("fk_tool_calls_turn_id_turns"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tool_calls")),
    )
    with op.batch_alter_table("tool_calls", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_tool_calls_llm_call_id"), ["llm_call_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_tool_calls_name"), ["name"], unique=False)
        batch_op.create_index(batch_op.f("ix_tool_calls_turn_id"), ["turn_id"], unique=False)

    op.execute(CREATE_FTS)
    for statement in CREATE_TRIGGERS:
        op.execute(statement)


def downgrade() -> None:
    for trigger in TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    op.execute("DROP TABLE IF EXISTS turns_fts")
    with op.batch_alter_table("tool_calls", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tool_calls_turn_id"))
        batch_op.drop_index(batch_op.f("ix_tool_calls_name"))
        batch_op.drop_index(batch_op.f("ix_tool_calls_llm_call_id"))

    op.drop_table("tool_calls")
    with op.batch_alter_table("llm_calls", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_llm_calls_turn_id"))

    op.drop_table("llm_calls")
    with op.batch_alter_table("turns", schema=None) as batch_op:
        batch_op.drop_index("ix_turns_handled_by_created")
        batch_op.drop_index("ix_turns_created_at_id")
        batch_op.drop_index(batch_op.f("ix_turns_conversation_id"))

    op.drop_table("turns")
    with op.batch_alter_table("memories", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_memories_source_conversation_id"))
        batch_op.drop_index("ix_memories_active_updated")

    op.drop_table("memories")
    op.drop_table("custom_tool_versions")
    op.drop_table("custom_tools")
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.drop_index("ix_conversations_updated_at_id")
        batch_op.drop_index("ix_conversations_started_at")
        batch_op.drop_index("ix_conversations_device_updated")

    op.drop_table("conversations")
