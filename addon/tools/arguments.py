"""Turning a model's argument text into arguments a tool can trust.

Small local models send JSON with code fences, trailing commas or single quotes, a string where the
schema wants a list, ``"50"`` for a number. We repair what is unambiguous (``json_repair`` for the
text, a schema-directed coercion for types) and then validate strictly with ``jsonschema``; anything
still wrong goes back to the model as an error it can correct.
"""

from __future__ import annotations

import json

import json_repair
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from addon.errors import ToolError
from addon.text import JsonObject, JsonValue


def parse_arguments(raw: str) -> tuple[JsonObject, bool]:
    """Parse the model's argument text; returns the object and whether it needed repair."""
    text = raw.strip()
    if not text:
        return {}, False
    try:
        value = json.loads(text)
        repaired = False
    except json.JSONDecodeError:
        value = json_repair.loads(_strip_fences(text))
        repaired = True
    if value in ("", None):
        raise ToolError(f"arguments are not valid JSON: {raw[:200]!r}")
    if not isinstance(value, dict):
        raise ToolError(f"arguments must be a JSON object, got {type(value).__name__}")
    return value, repaired


def _strip_fences(text: str) -> str:
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else text.strip("`")
        text = text.rsplit("```", 1)[0]
    return text


def coerce(arguments: JsonObject, schema: JsonObject) -> JsonObject:
    """Fix types the schema makes unambiguous; drop ``null`` for optional properties."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        properties = {}
    required = schema.get("required")
    if not isinstance(required, list):
        required = []
    fixed: JsonObject = {}
    for key, value in arguments.items():
        spec = properties.get(key)
        if value is None and key not in required:
            continue
        fixed[key] = _coerce_value(value, spec) if isinstance(spec, dict) and spec else value
    return fixed


def _coerce_value(value: JsonValue, spec: JsonObject) -> JsonValue:
    expected = spec.get("type")
    if expected == "array" and isinstance(value, str):
        return [value]
    items = spec.get("items")
    if expected == "array" and isinstance(value, list) and isinstance(items, dict):
        return [_coerce_value(item, items) for item in value]
    if expected == "integer" and isinstance(value, str):
        number = _number(value)
        if number is not None and float(number).is_integer():
            return int(number)
    if expected == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    if expected == "number" and isinstance(value, str):
        number = _number(value)
        if number is not None:
            return number
    if expected == "boolean" and isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if expected == "string" and isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


def _number(text: str) -> float | None:
    try:
        return float(text.strip().rstrip("%").strip())
    except ValueError:
        return None


def validate(arguments: JsonObject, schema: JsonObject) -> None:
    """Raise ToolError naming the first argument that breaks the schema.

    Arguments :func:`plainly_valid` vouches for are valid without ``jsonschema``, whose
    validator (built and run) was about a fifth of the agent's time for a tool call; anything
    else, and every error message, is ``jsonschema``'s.
    """
    if plainly_valid(arguments, schema):
        return
    validator = Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))
    if errors:
        raise ToolError(_describe(errors[0]))


_PLAIN_KEYWORDS = frozenset({"type", "properties", "required", "items", "enum", "description"})
"""The keywords :func:`plainly_valid` reads (``description`` is an annotation only)."""


def plainly_valid(value: JsonValue, schema: JsonObject) -> bool:
    """Whether ``value`` is certainly valid against a plain ``schema``; False when unsure.

    The schemas of Home Assistant's intents (and most tools') use only objects of named
    properties, strings, arrays and string ``enum``s; these are checked here as Draft 2020-12
    checks them. Any other keyword or type, a property the schema does not name, a ``type``
    list, or a failed check answers False, and :func:`validate` asks ``jsonschema``: this
    never vouches for what ``jsonschema`` would refuse.
    """
    if not _PLAIN_KEYWORDS.issuperset(schema):
        return False
    kind = schema.get("type")
    if "enum" in schema and kind != "string":
        return False
    if kind == "object":
        properties = schema.get("properties", {})
        if not isinstance(value, dict) or not isinstance(properties, dict):
            return False
        required = schema.get("required", [])
        if not isinstance(required, list) or any(key not in value for key in required):
            return False
        return all(
            isinstance(spec := properties.get(key), dict) and plainly_valid(item, spec)
            for key, item in value.items()
        )
    if kind == "array":
        items = schema.get("items", {})
        if not isinstance(value, list) or not isinstance(items, dict):
            return False
        return all(plainly_valid(item, items) for item in value)
    if kind != "string" or not isinstance(value, str):
        return False
    choices = schema.get("enum")
    return choices is None or (isinstance(choices, list) and value in choices)


def _describe(error: ValidationError) -> str:
    where = ".".join(str(part) for part in error.absolute_path)
    if error.validator == "additionalProperties":
        return f"unexpected argument: {error.message}"
    if where:
        return f"argument '{where}': {error.message}"
    return error.message
