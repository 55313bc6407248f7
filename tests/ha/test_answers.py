"""Home Assistant's answers are read in the shape their command promises, or refused by name."""

from __future__ import annotations

import pytest

from addon.ha.answers import answer_object, answer_objects
from addon.text import JsonValue


def test_an_object_answer_is_read_as_it_came() -> None:
    """An object where the command promises one is the answer itself."""
    answer: JsonValue = {"location_name": "Home", "version": "2026.11.0"}
    assert answer_object(answer, "get_config") is answer


def test_a_registry_list_is_read_as_its_objects() -> None:
    """A list of objects where the command promises one is read whole, in order."""
    answer: JsonValue = [{"area_id": "kitchen"}, {"area_id": "hall"}]
    assert answer_objects(answer, "config/area_registry/list") == answer


@pytest.mark.parametrize(
    ("answer", "shape"),
    [
        ({"not": "a list"}, "a list of objects"),
        ([{"area_id": "kitchen"}, "hall"], "a list of objects"),
        (None, "a list of objects"),
    ],
)
def test_a_list_answer_of_another_shape_is_refused_naming_the_command(
    answer: JsonValue, shape: str
) -> None:
    """An answer that is not a list of objects (or holds something else) names its command."""
    with pytest.raises(TypeError, match=rf"'config/area_registry/list' answered .*, not {shape}"):
        answer_objects(answer, "config/area_registry/list")


@pytest.mark.parametrize("answer", [["a", "list"], "text", 3, None])
def test_an_object_answer_of_another_shape_is_refused_naming_the_command(
    answer: JsonValue,
) -> None:
    """An answer that is not an object where one is promised names its command."""
    with pytest.raises(TypeError, match=r"'get_config' answered .*, not an object"):
        answer_object(answer, "get_config")
