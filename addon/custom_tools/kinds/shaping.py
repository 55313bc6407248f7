"""Turning an answer into the result the model receives: a template, a JSON pointer, or as is."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from addon.custom_tools.context import StepContext
from addon.custom_tools.definition import ResultSpec
from addon.errors import ToolError


def parse_json(text: str) -> Any:
    """The text as JSON, or None when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def shape(spec: ResultSpec | None, value: str, value_json: Any, context: StepContext) -> Any:
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


def resolve_pointer(document: Any, pointer: str, field: str) -> Any:
    """RFC 6901: ``/a/0/b`` inside ``document``; a ToolError naming ``field`` when absent."""
    if pointer == "":
        return document
    current = document
    for raw in pointer.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, Mapping) and token in current:
            current = current[token]
        elif isinstance(current, list) and token.isdigit() and int(token) < len(current):
            current = current[int(token)]
        else:
            raise ToolError(f"{field}: the answer has nothing at {pointer!r}")
    return current
