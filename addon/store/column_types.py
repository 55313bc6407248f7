"""What the tables' columns share: times stored in UTC, and the constraint names Alembic needs.

SQLite keeps no time zone, so :class:`UTCDateTime` stores a time naive in UTC and gives it back
aware; migrations write it as the plain ``DateTime`` it stores (``migrations/env.py``).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import DateTime, TypeDecorator
from sqlalchemy.engine import Dialect

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """A datetime stored naive in UTC and returned aware; SQLite keeps no zone itself."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Normalise to naive UTC on the way in; a naive value is taken as UTC already."""
        if value is None:
            return None
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        """Attach UTC on the way out."""
        return None if value is None else value.replace(tzinfo=UTC)
