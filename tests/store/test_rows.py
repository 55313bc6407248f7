"""One row by its key, from a real migrated SQLite file: the row, or NotFoundError with its text."""

from __future__ import annotations

import pytest

from addon.errors import NotFoundError
from addon.store.database import Store
from addon.store.memories import memories
from addon.store.models import Memory
from addon.store.rows import stored_row
from tests.store.data import NOW


async def test_a_stored_row_is_read_by_its_key(store: Store) -> None:
    """The row whose primary key is asked for comes back."""
    async with store.sessionmaker.begin() as session:
        added = await memories.add_memory(session, "The cat is called Miso", now=NOW)
    async with store.sessionmaker() as session:
        row = await stored_row(session, Memory, added.id, "no such memory")
    assert (row.id, row.content) == (added.id, "The cat is called Miso")


async def test_a_missing_row_is_not_found_with_the_callers_words(store: Store) -> None:
    """No row with the key raises NotFoundError carrying the text the caller gave."""
    async with store.sessionmaker() as session:
        with pytest.raises(NotFoundError, match=r"^no memory 999$"):
            await stored_row(session, Memory, 999, "no memory 999")
