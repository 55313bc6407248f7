"""Checking and converting the slots a caller passes with an intent.

Home Assistant validates slots with voluptuous (``cv.string``, ``vol.Coerce(int)``,
``vol.Range``, ``cv.ensure_list``, ``vol.In``) and we accept and convert the same values the
same way: "40" is position 40, ``"light"`` is the domain list ``["light"]``, 40.7 is 40. We
differ on purpose in one respect: Home Assistant silently ignores a slot it does not know,
which leaves a model believing ``{"colour": "red"}`` worked; we refuse it and say which slots
exist. Every refusal is a :class:`~addon.errors.ToolError` whose message names the slot, what
was wrong and what would be right, so the model can correct itself in one step.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress

from addon.errors import ToolError
from addon.home.actions.color_names import closest_color_names, color_name_to_rgb
from addon.home.actions.intents import PREFERENCE_SLOTS, IntentSpec, SlotKind, SlotSpec
from addon.text import JsonValue

type SlotValue = str | bool | int | float | list[str] | tuple[int, int, int]
"""A converted slot value: text, a list of texts, a number, or a colour as an RGB triple."""


def validate_slots(spec: IntentSpec, slots: Mapping[str, JsonValue]) -> dict[str, SlotValue]:
    """The converted slot values for ``spec``, or a ToolError saying what is wrong."""
    known = {slot.name for slot in spec.slots}
    unknown = sorted(key for key in slots if key not in known and key not in PREFERENCE_SLOTS)
    if unknown:
        accepted = ", ".join(slot.name for slot in spec.slots) or "none"
        raise ToolError(
            f"{spec.name} has no slot {_names(unknown)}; the slots it accepts are: {accepted}"
        )
    missing = [slot.name for slot in spec.slots if slot.required and slot.name not in slots]
    if missing:
        raise ToolError(f"{spec.name} needs the slot {_names(missing)}")
    values: dict[str, SlotValue] = {}
    for slot in spec.slots:
        if slot.name in slots:
            values[slot.name] = _convert(spec, slot, slots[slot.name])
    for key in PREFERENCE_SLOTS:
        if key in slots:
            values[key] = _text(spec, key, slots[key], allow_empty=True)
    return values


def _names(names: list[str]) -> str:
    """'a' or 'a', 'b' for an error message."""
    return ", ".join(f"'{name}'" for name in names)


def _convert(spec: IntentSpec, slot: SlotSpec, value: JsonValue) -> SlotValue:
    """One slot's value, converted as Home Assistant's validator converts it."""
    if slot.kind is SlotKind.TEXT:
        return _choice(spec, slot, _text(spec, slot.name, value, allow_empty=slot.allow_empty))
    if slot.kind is SlotKind.TEXT_LIST:
        items = value if isinstance(value, list) else [value]
        return [
            _choice(spec, slot, _text(spec, slot.name, item, allow_empty=True)) for item in items
        ]
    if slot.kind is SlotKind.INTEGER:
        return _in_range(spec, slot, _coerce(spec, slot.name, value, int))
    if slot.kind is SlotKind.NUMBER:
        return _in_range(spec, slot, _coerce(spec, slot.name, value, float))
    if slot.kind is SlotKind.BOOLEAN:
        return _boolean(spec, slot.name, value)
    if slot.kind is SlotKind.STEP:
        if isinstance(value, str) and slot.choices is not None and value in slot.choices:
            return value
        return _in_range(spec, slot, _coerce(spec, slot.name, value, int))
    return _color(spec, slot.name, value)


_TRUE = frozenset({"1", "true", "yes", "on", "enable"})
_FALSE = frozenset({"0", "false", "no", "off", "disable"})


def _boolean(spec: IntentSpec, name: str, value: JsonValue) -> bool:
    """``cv.boolean``: a bool, 1/0, or the words Home Assistant reads as one."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise ToolError(f"{spec.name} slot '{name}' must be true or false, not {_describe(value)}")


def _text(spec: IntentSpec, name: str, value: JsonValue, *, allow_empty: bool) -> str:
    """``cv.string`` (numbers become strings), plus ``non_empty_string`` unless allowed."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ToolError(
            f"{spec.name} slot '{name}' must be a string, not {_describe(value)}"
            + (" (leave the slot out instead)" if value is None else "")
        )
    text = value if isinstance(value, str) else str(value)
    if not allow_empty and not text.strip():
        raise ToolError(f"{spec.name} slot '{name}' must not be empty (leave the slot out)")
    return text


def _choice(spec: IntentSpec, slot: SlotSpec, text: str) -> str:
    """``vol.In(choices)`` when the slot has a fixed set of values."""
    if slot.choices is not None and text not in slot.choices:
        raise ToolError(
            f"{spec.name} slot '{slot.name}' does not accept '{text}'; "
            f"allowed values: {', '.join(slot.choices)}"
        )
    return text


def _coerce[N: (int, float)](spec: IntentSpec, name: str, value: JsonValue, kind: type[N]) -> N:
    """``vol.Coerce(kind)``, refusing a boolean (which Python's ``int`` would take).

    For ``int``: 40, 40.7 (becomes 40) and "40" are accepted, "forty" is not; for ``float``:
    21, 21.5 and "21.5".
    """
    noun = "a whole number" if kind is int else "a number"
    if isinstance(value, bool):
        raise ToolError(f"{spec.name} slot '{name}' must be {noun}, not a boolean")
    if isinstance(value, int | float | str):
        with suppress(ValueError):
            return kind(value)
    raise ToolError(f"{spec.name} slot '{name}' must be {noun}, not {_describe(value)}")


def _in_range[N: (int, float)](spec: IntentSpec, slot: SlotSpec, number: N) -> N:
    """``vol.Range``: the bounds are inclusive."""
    low, high = slot.minimum, slot.maximum
    if (low is not None and number < low) or (high is not None and number > high):
        bounds = (
            f"between {low} and {high}"
            if low is not None and high is not None
            else f"at least {low}"
            if low is not None
            else f"at most {high}"
        )
        raise ToolError(f"{spec.name} slot '{slot.name}' must be {bounds}, not {number}")
    return number


def _color(spec: IntentSpec, name: str, value: JsonValue) -> tuple[int, int, int]:
    """A colour name as an RGB triple (what HA passes to ``light.turn_on`` as rgb_color)."""
    if not isinstance(value, str):
        raise ToolError(f"{spec.name} slot '{name}' must be a colour name, not {_describe(value)}")
    rgb = color_name_to_rgb(value)
    if rgb is None:
        close = closest_color_names(value)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ToolError(f"{spec.name} slot '{name}': unknown colour '{value}'{hint}")
    return rgb


def _describe(value: object) -> str:
    """A short description of a bad value for an error message."""
    if value is None:
        return "null"
    if isinstance(value, list | dict):
        return f"a {'list' if isinstance(value, list) else 'object'}"
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def slot_text(values: Mapping[str, SlotValue], name: str) -> str | None:
    """A converted text slot's value, or None when it was not given.

    :func:`validate_slots` makes every text slot a ``str``; anything else here is a slot read
    as the wrong kind, a bug, refused as a ToolError naming the slot.
    """
    value = values.get(name)
    if value is None or isinstance(value, str):
        return value
    raise ToolError(f"slot '{name}' is not text: {_describe(value)}")


def slot_texts(values: Mapping[str, SlotValue], name: str) -> list[str]:
    """A converted text-list slot's values (``domain``, ``device_class``); [] when not given."""
    value = values.get(name)
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return value
    raise ToolError(f"slot '{name}' is not a list of texts: {_describe(value)}")


def slot_number(values: Mapping[str, SlotValue], name: str) -> float | None:
    """A converted number slot's value (an ``int`` for a whole-number slot); None when absent."""
    value = values.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ToolError(f"slot '{name}' is not a number: {_describe(value)}")
    return value


def slot_int(values: Mapping[str, SlotValue], name: str) -> int | None:
    """A converted whole-number slot's value; None when absent."""
    value = slot_number(values, name)
    if value is None or isinstance(value, int):
        return value
    raise ToolError(f"slot '{name}' is not a whole number: {value}")
