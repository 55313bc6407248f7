"""Memories as issue 12 keeps them: kinds, recall counts, pins, provenance, embeddings, FTS5.

``memories`` is rebuilt: ``category`` becomes ``kind``, ``last_used_at`` ``last_recalled_at``,
``active`` gives way to ``deleted_at`` (an inactive memory comes back deleted at its last
update), and it gains the recall count, the pin, its source and turn, the entities and areas it
concerns and an optional embedding. ``memory_recalls`` links a memory to the turns it was
recalled into. ``memories_fts`` is an external-content FTS5 index over the content, kept in step
by triggers as ``turns_fts`` is, with ``memories_fts_terms`` (fts5vocab) counting the memories
that hold each term. Going down keeps content, kind, importance, conversation,
times and whether the memory was deleted; the rest is lost.

Revision ID: 3e91c5d7a4b2
Revises: adb8676af833
Create Date: 2026-11-23 14:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "3e91c5d7a4b2"
down_revision: str | Sequence[str] | None = "adb8676af833"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CREATE_FTS = """
CREATE VIRTUAL TABLE memories_fts USING fts5(
    content,
    content='memories',
    content_rowid='id',
    tokenize='unicode61 remove_diacritics 2'
)
"""
CREATE_TRIGGERS = (
    """
    CREATE TRIGGER memories_fts_after_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts(rowid, content) VALUES (new.id, new.content);
    END
    """,
    """
    CREATE TRIGGER memories_fts_after_delete AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts(memories_fts, rowid, content)
        VALUES ('delete', old.id, old.content);
    END
    """,
    """
    CREATE TRIGGER memories_fts_after_update AFTER UPDATE OF id, content ON memories BEGIN
        INSERT INTO memories_fts(memories_fts, rowid, content)
        VALUES ('delete', old.id, old.content);
        INSERT INTO memories_fts(rowid, content) VALUES (new.id, new.content);
    END
    """,
)
# How many memories hold each term, so recall can leave out words nearly every memory has
# ("the", "is") before BM25 scores thousands of rows for them.
CREATE_VOCAB = "CREATE VIRTUAL TABLE memories_fts_terms USING fts5vocab(memories_fts, 'row')"
TRIGGERS = ("memories_fts_after_insert", "memories_fts_after_delete", "memories_fts_after_update")


def _create_old() -> None:
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
    op.create_index("ix_memories_active_updated", "memories", ["active", "updated_at"])
    op.create_index(
        op.f("ix_memories_source_conversation_id"), "memories", ["source_conversation_id"]
    )


def _create_new() -> None:
    op.create_table(
        "memories",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("importance", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("last_recalled_at", sa.DateTime(), nullable=True),
        sa.Column("recall_count", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=True),
        sa.Column("pinned", sa.Boolean(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("source_conversation_id", sa.String(length=64), nullable=True),
        sa.Column("source_turn_id", sa.Integer(), nullable=True),
        sa.Column("entity_ids", sa.JSON(), nullable=False),
        sa.Column("areas", sa.JSON(), nullable=False),
        sa.Column("embedding", sa.LargeBinary(), nullable=True),
        sa.Column("embedding_model", sa.String(length=200), nullable=True),
        sa.Column("deleted_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["source_conversation_id"],
            ["conversations.id"],
            name=op.f("fk_memories_source_conversation_id_conversations"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["source_turn_id"],
            ["turns.id"],
            name=op.f("fk_memories_source_turn_id_turns"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_memories")),
    )
    op.create_index("ix_memories_deleted_updated", "memories", ["deleted_at", "updated_at"])
    op.create_index(
        op.f("ix_memories_source_conversation_id"), "memories", ["source_conversation_id"]
    )
    op.create_index(op.f("ix_memories_source_turn_id"), "memories", ["source_turn_id"])


def upgrade() -> None:
    # Indexes keep their names when their table is renamed: drop them before setting it aside.
    op.drop_index(op.f("ix_memories_source_conversation_id"), table_name="memories")
    op.drop_index("ix_memories_active_updated", table_name="memories")
    op.rename_table("memories", "memories_old")
    _create_new()
    op.execute(
        "INSERT INTO memories (id, content, kind, importance, created_at, updated_at, "
        "last_recalled_at, recall_count, expires_at, pinned, source, source_conversation_id, "
        "source_turn_id, entity_ids, areas, embedding, embedding_model, deleted_at) "
        "SELECT id, content, category, importance, created_at, updated_at, last_used_at, 0, "
        "expires_at, 0, CASE WHEN source_conversation_id IS NULL THEN 'manual' "
        "ELSE 'conversation' END, source_conversation_id, NULL, '[]', '[]', NULL, NULL, "
        "CASE WHEN active THEN NULL ELSE updated_at END FROM memories_old"
    )
    op.drop_table("memories_old")
    op.create_table(
        "memory_recalls",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("memory_id", sa.Integer(), nullable=False),
        sa.Column("turn_id", sa.Integer(), nullable=False),
        sa.Column("recalled_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["memory_id"],
            ["memories.id"],
            name=op.f("fk_memory_recalls_memory_id_memories"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["turn_id"],
            ["turns.id"],
            name=op.f("fk_memory_recalls_turn_id_turns"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_memory_recalls")),
    )
    op.create_index(op.f("ix_memory_recalls_memory_id"), "memory_recalls", ["memory_id"])
    op.create_index(op.f("ix_memory_recalls_turn_id"), "memory_recalls", ["turn_id"])
    op.execute(CREATE_FTS)
    for trigger in CREATE_TRIGGERS:
        op.execute(trigger)
    op.execute("INSERT INTO memories_fts(memories_fts) VALUES('rebuild')")
    op.execute(CREATE_VOCAB)


def downgrade() -> None:
    for trigger in TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    op.execute("DROP TABLE IF EXISTS memories_fts_terms")
    op.execute("DROP TABLE IF EXISTS memories_fts")
    op.drop_index(op.f("ix_memory_recalls_turn_id"), table_name="memory_recalls")
    op.drop_index(op.f("ix_memory_recalls_memory_id"), table_name="memory_recalls")
    op.drop_table("memory_recalls")
    op.drop_index(op.f("ix_memories_source_turn_id"), table_name="memories")
    op.drop_index(op.f("ix_memories_source_conversation_id"), table_name="memories")
    op.drop_index("ix_memories_deleted_updated", table_name="memories")
    op.rename_table("memories", "memories_old")
    _create_old()
    op.execute(
        "INSERT INTO memories (id, created_at, updated_at, content, category, importance, "
        "source_conversation_id, last_used_at, expires_at, active) "
        "SELECT id, created_at, updated_at, content, kind, importance, source_conversation_id, "
        "last_recalled_at, expires_at, deleted_at IS NULL FROM memories_old"
    )
    op.drop_table("memories_old")
