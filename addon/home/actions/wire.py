"""Reading Home Assistant's JSON values (service data, state attributes) where they are used.

Service data and state attributes are JSON on the wire and stay :data:`~addon.text.JsonValue`
here, so every read narrows: a number is an ``int``/``float`` (or the text of one, which Home
Assistant's ``vol.Coerce`` accepts too), a list is a list. A value of the wrong shape is a
:class:`~addon.errors.ToolError` naming the key, as Home Assistant's validation refuses it,
not a ``TypeError`` from deep inside an effect.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import suppress

from addon.errors import ToolError
from addon.home.actions.slots import SlotValue
from addon.text import JsonValue


def to_int(value: JsonValue, key: str) -> int:
    """``int(value)`` for a number or the text of one (``vol.Coerce(int)``); else ToolError."""
    if isinstance(value, int | float | str):
        with suppress(ValueError):
            return int(value)
    raise ToolError(f"'{key}' must be a whole number, not {value!r}")


def to_float(value: JsonValue, key: str) -> float:
    """``float(value)`` for a number or the text of one (``vol.Coerce(float)``); else ToolError."""
    if isinstance(value, int | float | str):
        with suppress(ValueError):
            return float(value)
    raise ToolError(f"'{key}' must be a number, not {value!r}")


def number_or_none(value: JsonValue) -> float | None:
    """A numeric attribute (``min_temp``, ``volume_level``), or None when it is not a number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def items(value: JsonValue) -> list[JsonValue]:
    """A list attribute's items (``supported_color_modes``, ``hvac_modes``): [] when not a list."""
    return list(value) if isinstance(value, list | tuple) else []


def texts(value: JsonValue) -> list[str]:
    """A list attribute's items as text, as the code reading modes compares them."""
    return [str(item) for item in items(value)]


def objects(value: JsonValue) -> Iterable[Mapping[str, JsonValue]]:
    """The JSON objects of a list attribute (events, library items), skipping anything else."""
    return (item for item in items(value) if isinstance(item, dict))


def slot_json(value: SlotValue) -> JsonValue:
    """A converted slot value as service data carries it: a colour triple becomes a list."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, list):
        return list[JsonValue](value)
    return value


def slots_json(values: Mapping[str, SlotValue]) -> dict[str, JsonValue]:
    """Converted slots as JSON, for the wire (Home Assistant's own intent handler, a trace)."""
    return {key: slot_json(value) for key, value in values.items()}


def as_object(value: JsonValue) -> Mapping[str, JsonValue]:
    """``value`` when it is a JSON object, else an empty one: for reading a nested answer."""
    return value if isinstance(value, dict) else {}
