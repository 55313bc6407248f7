"""Stored rows: one by its key, or :class:`~addon.errors.NotFoundError`; and the record of one.

The stores' writes and reads by id all start here, so a missing row is the same error (a 404 at
the web edge) whichever table it was asked of. The stores hand out frozen records, never their
ORM rows, and most of a record is its row's columns as they are: :func:`record_of` copies those.
"""

from __future__ import annotations

from dataclasses import fields
from functools import cache
from typing import TYPE_CHECKING, get_args, get_origin, get_type_hints

from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped

from addon.errors import NotFoundError
from addon.store.models import Base

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


async def stored_row[R: Base](session: AsyncSession, model: type[R], key: int, missing: str) -> R:
    """The ``model`` row whose primary key is ``key``; ``missing`` is the error's text if none."""
    row = await session.get(model, key)
    if row is None:
        raise NotFoundError(missing)
    return row


def record_of[R: DataclassInstance](record: type[R], row: Base, /, **converted: object) -> R:
    """A ``record`` whose fields are ``row``'s columns of the same names, but those ``converted``.

    ``converted`` holds what is not a plain copy (a tuple of a JSON list, a parsed text, a
    column of another name), written out where the record is made. A copied field must be
    declared as its column is mapped (``x: T`` for ``Mapped[T]``), checked once per record,
    table and conversion: what mypy checked of each ``x=row.x`` written out. A field that is no
    column of that type, or a conversion that is no field, raises :class:`TypeError` the first
    time the record is made.
    """
    copied = _copied(record, type(row), frozenset(converted))
    return record(**{name: getattr(row, name) for name in copied}, **converted)


@cache
def _copied(
    record: type[DataclassInstance], model: type[Base], converted: frozenset[str]
) -> tuple[str, ...]:
    """The fields of ``record`` copied from ``model``'s columns, each checked against its column."""
    names = [field.name for field in fields(record) if field.init]
    if unknown := converted.difference(names):
        raise TypeError(f"{record.__name__} has no field {', '.join(sorted(unknown))}")
    declared, mapped = get_type_hints(record), get_type_hints(model)
    copied = tuple(name for name in names if name not in converted)
    for name in copied:
        column = mapped.get(name)
        if get_origin(column) is not Mapped or get_args(column) != (declared[name],):
            raise TypeError(
                f"{record.__name__}.{name}: {declared[name]} is copied from "
                f"{model.__name__}.{name}, which is {column or 'no column'}"
            )
    return copied
