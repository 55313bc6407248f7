"""Fixtures of the writer's tests: a database file written through Core."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine

from addon.store.file import encoding
from addon.store.models import Base


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    """A database file with the store's tables, serialising JSON the store's way."""
    engine = create_engine(f"sqlite:///{tmp_path / 'core.db'}", json_serializer=encoding.dumps)
    encoding.install(engine)
    Base.metadata.create_all(engine)
    yield engine
    engine.dispose()
