"""Reading the parts of a definition's JSON (user-written YAML or JSON) without guessing types.

A definition, an Extended OpenAI entry and a stored tool are JSON whose keys the user writes;
their readers take a part as the shape they expect or as empty, so a part of the wrong shape
reads as absent, as ``value or {}`` did when the types were not checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from addon.errors import HomeAgentError
from addon.text import JsonArray, JsonObject, JsonValue


def object_of(value: JsonValue) -> JsonObject:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def list_of(value: JsonValue) -> JsonArray:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


class NotJsonError(HomeAgentError):
    """A part of a value JSON cannot hold; ``path`` is where it is (dotted, from the value)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(reason)
        self.path = path
        self.reason = reason


def json_value(
    value: object, path: str = "", *, otherwise: Callable[[object], str] | None = None
) -> JsonValue:
    """``value`` (as YAML loaded it, or a template made it) as JSON, as ``json.dumps`` writes it.

    A tuple is an array, an integer key text. What JSON has no form for (a date, a range) is
    ``otherwise``'s text for it, keys too (a rendered template's value is sent as it reads);
    without ``otherwise`` it is refused with :class:`NotJsonError` naming the path of the part,
    so each caller can say where in its own terms (YAML imported by a user).
    """
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, Mapping):
        return {
            _key(key, path, otherwise): json_value(item, _join(path, key), otherwise=otherwise)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [
            json_value(item, _join(path, index), otherwise=otherwise)
            for index, item in enumerate(value)
        ]
    if otherwise is not None:
        return otherwise(value)
    raise NotJsonError(path, f"a {type(value).__name__} is not a JSON value")


def _key(key: object, path: str, otherwise: Callable[[object], str] | None) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, int) and not isinstance(key, bool):
        return str(key)  # as json.dumps writes it
    if otherwise is not None:
        return otherwise(key)
    raise NotJsonError(path, f"a key {key!r} is not text")


def _join(path: str, part: object) -> str:
    return f"{path}.{part}" if path else str(part)
