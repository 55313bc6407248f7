"""Store one turn at once, outside the store's writer: for tests and benchmarks.

The agent's turns go through the store's writer (:mod:`addon.store.turns.writer`); this writes one
in the caller's transaction, with ids reserved the writer's way (:mod:`addon.store.turns.ids`), so
both may write the same file. Kept out of the add-on's package because the product never does this.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from addon.store.turns import (
    NumberedTurn,
    TurnRecord,
    reserve,
    write_search_index,
    write_turns,
)


async def record_turn(session: AsyncSession, record: TurnRecord) -> int:
    """Store one turn now, in the caller's transaction, and in the search index; returns its id."""
    connection = await session.connection()
    turn_ids = await connection.run_sync(reserve, "turns", 1)
    calls = len(record.llm_calls)
    llm_call_ids = await connection.run_sync(reserve, "llm_calls", calls) if calls else range(0)
    numbered = NumberedTurn(record, turn_ids.start, list(llm_call_ids))
    await connection.run_sync(write_turns, [numbered])
    await connection.run_sync(write_search_index, [turn_ids.start])
    return turn_ids.start
