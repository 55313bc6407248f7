"""Reading the parts of a definition's JSON (user-written YAML or JSON) without guessing types.

A definition, an Extended OpenAI entry and a stored tool are JSON whose keys the user writes;
their readers take a part as the shape they expect or as empty, so a part of the wrong shape
reads as absent, as ``value or {}`` did when the types were not checked.
"""

from __future__ import annotations

from addon.text import JsonArray, JsonObject, JsonValue


def object_of(value: JsonValue) -> JsonObject:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def list_of(value: JsonValue) -> JsonArray:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []
