"""One stored row by its key, or :class:`~addon.errors.NotFoundError` saying it is missing.

The stores' writes and reads by id all start here, so a missing row is the same error (a 404 at
the web edge) whichever table it was asked of.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from addon.errors import NotFoundError
from addon.store.models import Base


async def stored_row[R: Base](session: AsyncSession, model: type[R], key: int, missing: str) -> R:
    """The ``model`` row whose primary key is ``key``; ``missing`` is the error's text if none."""
    row = await session.get(model, key)
    if row is None:
        raise NotFoundError(missing)
    return row
