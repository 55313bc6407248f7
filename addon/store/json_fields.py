"""Fields of a stored JSON column read into Python types, refusing a value of the wrong shape.

The store's JSON columns (a run's results, a turn's outcome detail) come back as
:data:`~addon.text.JsonValue`: a reader narrows each field before it builds a typed record from
it. These say the common readings once: a missing or empty field is the type's empty value (an
older release may not have written it), a field of the wrong shape is a damaged row, refused
with :class:`~addon.errors.StoreError` rather than read as something it is not.
"""

from __future__ import annotations

from addon.errors import StoreError
from addon.text import JsonValue


def stored_int(value: JsonValue | None, field: str) -> int:
    """A count or id (a number, or its text); missing or empty is 0."""
    if isinstance(value, list | dict):
        raise StoreError(f"stored field {field!r} should be a number, not {value!r}")
    return int(value or 0)


def stored_float(value: JsonValue | None, field: str) -> float:
    """A measure (a number, or its text); missing or empty is 0.0."""
    if isinstance(value, list | dict):
        raise StoreError(f"stored field {field!r} should be a number, not {value!r}")
    return float(value or 0.0)


def stored_text(value: JsonValue | None, field: str) -> str | None:
    """A text field, None when missing."""
    if value is None or isinstance(value, str):
        return value
    raise StoreError(f"stored field {field!r} should be text, not {value!r}")


def stored_texts(value: JsonValue | None, field: str) -> tuple[str, ...]:
    """A list of texts; missing or empty is ()."""
    if not value:
        return ()
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(str(item) for item in value)
    raise StoreError(f"stored field {field!r} should be a list of texts, not {value!r}")
