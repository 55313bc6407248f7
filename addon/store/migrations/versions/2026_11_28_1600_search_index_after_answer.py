"""A turn enters the search index after its answer, not in the transaction the answer waits for.

The insert trigger on ``turns`` is dropped: the store's writer indexes the turns it wrote once
nobody waits for them (``store/turns/batches.py``), and at start any turn a crash left out. The
delete and update triggers now fire only for a turn the index holds (its row in
``turns_fts_docsize``): an external-content index told to delete what it never held is corrupt.

Revision ID: 6c2e8f4b0a71
Revises: 5b1d7e3a9c40
Create Date: 2026-11-28 16:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "6c2e8f4b0a71"
down_revision: str | Sequence[str] | None = "5b1d7e3a9c40"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TRIGGERS = ("turns_fts_after_insert", "turns_fts_after_delete", "turns_fts_after_update")
INDEXED = "EXISTS (SELECT 1 FROM turns_fts_docsize WHERE turns_fts_docsize.id = old.id)"
DELETE_OLD = """
        INSERT INTO turns_fts(turns_fts, rowid, user_text, reply_text)
        VALUES ('delete', old.id, old.user_text, old.reply_text);"""
INSERT_NEW = """
        INSERT INTO turns_fts(rowid, user_text, reply_text)
        VALUES (new.id, new.user_text, new.reply_text);"""
INDEX_MISSING = """
    INSERT INTO turns_fts(rowid, user_text, reply_text)
    SELECT id, user_text, reply_text FROM turns
    WHERE NOT EXISTS (SELECT 1 FROM turns_fts_docsize WHERE turns_fts_docsize.id = turns.id)
"""


def upgrade() -> None:
    """Drop the insert trigger; delete and update only what the index holds."""
    for trigger in TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    op.execute(
        f"CREATE TRIGGER turns_fts_after_delete AFTER DELETE ON turns WHEN {INDEXED} "
        f"BEGIN{DELETE_OLD} END"
    )
    op.execute(
        "CREATE TRIGGER turns_fts_after_update AFTER UPDATE OF id, user_text, reply_text ON turns "
        f"WHEN {INDEXED} BEGIN{DELETE_OLD}{INSERT_NEW} END"
    )


def downgrade() -> None:
    """Index every turn, then the three triggers as they were (each insert indexed at once)."""
    op.execute(INDEX_MISSING)
    for trigger in TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    op.execute(f"CREATE TRIGGER turns_fts_after_insert AFTER INSERT ON turns BEGIN{INSERT_NEW} END")
    op.execute(f"CREATE TRIGGER turns_fts_after_delete AFTER DELETE ON turns BEGIN{DELETE_OLD} END")
    op.execute(
        "CREATE TRIGGER turns_fts_after_update AFTER UPDATE OF id, user_text, reply_text ON turns "
        f"BEGIN{DELETE_OLD}{INSERT_NEW} END"
    )
