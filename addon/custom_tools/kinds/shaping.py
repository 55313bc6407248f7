"""Turning an answer into the result the model receives: a template, a JSON pointer, or as is."""

from __future__ import annotations

import json

from addon.custom_tools.context import StepContext
from addon.custom_tools.definition import ResultSpec
from addon.errors import ToolError
from addon.text import JsonValue

MAX_JSON_DEPTH = 64
"""How deep an answer's JSON may nest: real APIs stay far below; deeper only stalls and crashes."""


def parse_json(text: str) -> JsonValue:
    """The text as JSON, or None when it is not JSON; a ToolError when it nests too deep."""
    try:
        value: JsonValue = json.loads(text)
    except RecursionError:
        raise ToolError(f"the answer's JSON nests deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError:
        return None
    _check_depth(value)
    return value


def _check_depth(value: JsonValue) -> None:
    """Refuse JSON nested deeper than :data:`MAX_JSON_DEPTH` (walked without recursion)."""
    level: list[JsonValue] = [value]
    for _depth in range(MAX_JSON_DEPTH + 1):
        level = [
            child
            for item in level
            if isinstance(item, dict | list)
            for child in (item.values() if isinstance(item, dict) else item)
            if isinstance(child, dict | list)
        ]
        if not level:
            return
    raise ToolError(f"the answer's JSON nests deeper than {MAX_JSON_DEPTH} levels")


def shape(
    spec: ResultSpec | None, value: str, value_json: JsonValue, context: StepContext
) -> JsonValue:
    """The result: ``spec``'s template over ``value``/``value_json``, its pointer, or the answer.

    Without a spec the parsed JSON is the result when there is some, else the text.
    """
    if spec is None:
        return value_json if value_json is not None else value
    if spec.pointer is not None:
        return resolve_pointer(value_json, spec.pointer, f"{context.field}.result.pointer")
    assert spec.template is not None
    variables = {**context.variables, "value": value, "value_json": value_json}
    return context.renderer.render(spec.template, variables, f"{context.field}.result.template")


def resolve_pointer(document: JsonValue, pointer: str, field: str) -> JsonValue:
    """RFC 6901: ``/a/0/b`` inside ``document``; a ToolError naming ``field`` when absent."""
    if pointer == "":
        return document
    current = document
    for raw in pointer.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, dict) and token in current:
            current = current[token]
        elif isinstance(current, list) and token.isdigit() and int(token) < len(current):
            current = current[int(token)]
        else:
            raise ToolError(f"{field}: the answer has nothing at {pointer!r}")
    return current
