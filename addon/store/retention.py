"""Forgetting old conversations, as the ``retention_days`` option asks.

A conversation goes when its last activity (``updated_at``) is older than the limit. The database
does the rest: foreign keys cascade the delete to its turns and their model and tool calls, the
FTS triggers drop the turns from the search index, and memories learnt in it stay, only no longer
pointing at it (``ON DELETE SET NULL``). The system prompts and tool lists in ``llm_payloads`` are
shared between calls, so no cascade reaches them: once the conversations are gone, the payloads no
model call references any more are deleted in a sweep of their own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, exists, select
from sqlalchemy.sql.dml import ReturningDelete

from addon.store.database import Store
from addon.store.models import Conversation, LLMCall, LLMPayload

_LOGGER = logging.getLogger(__name__)

# Conversations per delete statement. Each carries its turns and calls with it, so a batch is a
# few thousand rows at most: short enough that the agent, waiting to record a turn, never notices.
BATCH_SIZE = 200
# Payloads per delete statement. One is a whole home overview, up to about a megabyte at 10,000
# entities, all of it overflow pages SQLite walks to free them: a few dozen keep a batch short.
PAYLOAD_BATCH_SIZE = 20
# The first run waits for the add-on to finish starting; after that, four runs a day keep the
# database within a few hours of the limit.
FIRST_RUN_DELAY_S = 2.0
INTERVAL_S = 6 * 3600.0


async def prune(
    store: Store,
    older_than_days: int,
    *,
    now: datetime | None = None,
    batch_size: int = BATCH_SIZE,
) -> int:
    """Delete conversations inactive for more than ``older_than_days``; returns how many.

    ``older_than_days`` of 0 (or less) means keep forever and deletes nothing. Each batch is its
    own transaction, and the selection happens inside the delete statement, so a conversation
    that becomes active again between batches is never deleted on stale information.
    """
    if older_than_days <= 0:
        return 0
    cutoff = (now or datetime.now(UTC)) - timedelta(days=older_than_days)
    oldest = (
        select(Conversation.id)
        .where(Conversation.updated_at < cutoff)
        .order_by(Conversation.updated_at)
        .limit(batch_size)
    )
    statement = (
        delete(Conversation)
        .where(Conversation.id.in_(oldest.scalar_subquery()))
        .returning(Conversation.id)
    )
    # The writer stops treating the deleted ones as conversations with history to read.
    total = await _delete_in_batches(store, statement, batch_size, store.writer.forget)
    payloads = await prune_payloads(store)
    _LOGGER.debug("Deleted %d system prompts and tool lists no model call uses", payloads)
    return total


async def prune_payloads(store: Store, *, batch_size: int = PAYLOAD_BATCH_SIZE) -> int:
    """Delete the payloads no model call references any more; returns how many.

    Each batch is its own transaction and selects inside its delete statement, so a payload a turn
    has just started to reference again is not deleted; a batch of turns written after this inserts
    the payloads it references again (:func:`addon.store.turns.turn_writes.write_turns`).
    """
    unreferenced = (
        select(LLMPayload.hash)
        .where(
            ~exists().where(LLMCall.system_prompt_hash == LLMPayload.hash),
            ~exists().where(LLMCall.tools_hash == LLMPayload.hash),
        )
        .limit(batch_size)
    )
    statement = (
        delete(LLMPayload)
        .where(LLMPayload.hash.in_(unreferenced.scalar_subquery()))
        .returning(LLMPayload.hash)
    )
    return await _delete_in_batches(store, statement, batch_size)


async def _delete_in_batches(
    store: Store,
    statement: ReturningDelete[str],
    batch_size: int,
    on_deleted: Callable[[list[str]], None] | None = None,
) -> int:
    """Run a delete of at most ``batch_size`` rows until it deletes fewer; returns the total.

    The statement returns the deleted keys, which ``on_deleted`` is told batch by batch.
    """
    total = 0
    while True:
        async with store.engine.begin() as connection:
            deleted = list((await connection.scalars(statement)).all())
        if on_deleted is not None:
            on_deleted(deleted)
        total += len(deleted)
        if len(deleted) < batch_size:
            return total
        # Give the writers queued behind this batch their turn before taking the lock again.
        await asyncio.sleep(0)


async def prune_periodically(store: Store, days: int) -> None:
    """Run :func:`prune` shortly after start and then every few hours, surviving any failure.

    Runs until cancelled: whoever runs the store runs this as a task beside it.
    """
    await asyncio.sleep(FIRST_RUN_DELAY_S)
    while True:
        try:
            pruned = await prune(store, days)
        except Exception:  # a boundary: log it, keep the app running, try again next time
            _LOGGER.exception("Pruning conversations older than %d days failed", days)
        else:
            level = logging.INFO if pruned else logging.DEBUG
            _LOGGER.log(level, "Pruned %d conversations older than %d days", pruned, days)
        await asyncio.sleep(INTERVAL_S)
