"""Stored JSON fields read into Python types; a field of the wrong shape is refused."""

from __future__ import annotations

import pytest

from addon.errors import StoreError
from addon.store.json_fields import stored_float, stored_int, stored_text, stored_texts


def test_missing_or_empty_fields_read_as_the_empty_value() -> None:
    """An older release may not have written a field: it reads as 0, 0.0, None or ()."""
    assert (stored_int(None, "n"), stored_float(None, "x")) == (0, 0.0)
    assert (stored_text(None, "t"), stored_texts(None, "ts"), stored_texts([], "ts")) == (
        None,
        (),
        (),
    )


def test_fields_of_the_right_shape_read_as_written() -> None:
    """Numbers (or their text), text and lists of text come back as they were stored."""
    assert (stored_int(7, "n"), stored_int("7", "n"), stored_float(1.5, "x")) == (7, 7, 1.5)
    assert (stored_text("c1", "t"), stored_texts(["a", "b"], "ts")) == ("c1", ("a", "b"))


@pytest.mark.parametrize(
    ("read", "value"),
    [
        (stored_int, [1]),
        (stored_float, {"ms": 1}),
        (stored_text, 5),
        (stored_texts, "ab"),
        (stored_texts, [1, 2]),
    ],
)
def test_a_field_of_the_wrong_shape_is_refused(read: object, value: object) -> None:
    """A damaged row is refused with the field's name, never read as something else."""
    assert callable(read)
    with pytest.raises(StoreError, match="'field'"):
        read(value, "field")
