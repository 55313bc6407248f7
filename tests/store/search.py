"""Ranked full-text search over turns, for tests that check the FTS5 index directly.

The product searches conversations in rowid order (:mod:`addon.store.queries.conversations`);
ranking by ``rank`` reads every match first, so it lives here, where it checks what the index
holds, and not in the image.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from addon.store.file import fts_query

_SEARCH = text(
    "SELECT rowid FROM turns_fts WHERE turns_fts MATCH :query ORDER BY rank LIMIT :limit"
)


async def search_turn_ids(session: AsyncSession, query: str, limit: int) -> list[int]:
    """Ids of the turns whose user or reply text contains every term of ``query``, best first.

    An empty query or a non-positive limit finds nothing rather than everything.
    """
    match = fts_query(query)
    if not match or limit <= 0:
        return []
    result = await session.execute(_SEARCH, {"query": match, "limit": limit})
    return [int(turn_id) for turn_id in result.scalars()]
