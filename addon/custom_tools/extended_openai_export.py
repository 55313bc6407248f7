"""Export of our definitions as Extended OpenAI Conversation's function YAML.

The reverse of :mod:`addon.custom_tools.extended_openai`'s import: a definition with no EOC
equivalent is listed with the reason instead of exported. Secrets stay ``{{ secrets.NAME }}``
references: values are never exported, nor is the ``secrets:`` declaration (EOC has none).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from addon.custom_tools.extended_openai import (
    EMPTY_PARAMETERS,
    FUNCTION_RESULT,
    HISTORY_ENTITIES,
    Unsupported,
    from_steps,
)
from addon.custom_tools.json_parts import list_of, object_of
from addon.text import JsonObject, JsonValue, dump_yaml


@dataclass(frozen=True, slots=True)
class ExportResult:
    """The EOC entries as YAML, and the definitions that have no EOC equivalent, with why."""

    text: str
    entries: tuple[JsonObject, ...]
    not_exported: tuple[tuple[str, str], ...]


def export_functions(definitions: list[Mapping[str, JsonValue]]) -> ExportResult:
    """Our definitions as EOC function YAML, in the order given."""
    entries: list[JsonObject] = []
    not_exported: list[tuple[str, str]] = []
    for definition in definitions:
        name = str(definition.get("name", ""))
        try:
            entries.append(export_definition(definition))
        except Unsupported as err:
            not_exported.append((name, str(err)))
    text = dump_yaml(entries) if entries else ""
    return ExportResult(text, tuple(entries), tuple(not_exported))


def export_definition(definition: Mapping[str, JsonValue]) -> JsonObject:
    """One definition as an EOC entry; :class:`Unsupported` says why it has none."""
    spec = {
        "name": definition.get("name"),
        "description": definition.get("description", ""),
        "parameters": definition.get("parameters") or EMPTY_PARAMETERS,
    }
    kind = str(definition.get("kind"))
    settings = object_of(definition.get(kind))
    function = _export_kind(kind, settings, spec["parameters"])
    if kind == "rest" and "timeout" in definition:
        function["timeout"] = definition["timeout"]
    return {"spec": spec, "function": function}


def _export_kind(kind: str, settings: Mapping[str, JsonValue], parameters: JsonValue) -> JsonObject:
    if kind == "template":
        return {"type": "template", "value_template": settings.get("template", "")}
    if kind == "rest":
        return _export_rest(settings)
    if kind == "service":
        return {"type": "script", "sequence": [_export_call(settings)]}
    if kind == "script":
        return {"type": "script", "sequence": [_export_script(settings, parameters)]}
    if kind == "history":
        return _export_history(settings)
    if kind == "composite":
        return _export_composite(settings)
    raise Unsupported(f"kind {kind!r} has no Extended OpenAI equivalent")


def _export_rest(settings: Mapping[str, JsonValue]) -> JsonObject:
    url = str(settings.get("url", ""))
    function: JsonObject = {"type": "rest"}
    function["resource_template" if "{" in url else "resource"] = url
    function["method"] = settings.get("method", "GET")
    if settings.get("headers"):
        function["headers"] = dict(object_of(settings.get("headers")))
    if settings.get("query"):
        function["params"] = dict(object_of(settings.get("query")))
    body = settings.get("body")
    if isinstance(body, dict):
        if body.get("type") == "form":
            raise Unsupported("rest: a form body has no Extended OpenAI equivalent")
        content = body.get("content")
        function["payload"] = content if isinstance(content, str) else json.dumps(content)
    result = settings.get("result")
    if isinstance(result, dict):
        if "template" not in result:
            raise Unsupported("rest: a JSON pointer result has no Extended OpenAI equivalent")
        function["value_template"] = result["template"]
    return function


def _export_call(settings: Mapping[str, JsonValue]) -> JsonObject:
    if settings.get("result") is not None:
        raise Unsupported("service: a result template has no Extended OpenAI equivalent")
    call: JsonObject = {"service": settings.get("action")}
    if settings.get("data"):
        call["data"] = dict(object_of(settings.get("data")))
    if settings.get("target"):
        call["target"] = dict(object_of(settings.get("target")))
    if settings.get("return_response"):
        call["response_variable"] = FUNCTION_RESULT
    return call


def _export_script(settings: Mapping[str, JsonValue], parameters: JsonValue) -> JsonObject:
    """Running a script entity with the arguments as variables: its action, data from each."""
    properties = object_of(parameters.get("properties")) if isinstance(parameters, dict) else {}
    call: JsonObject = {"service": settings.get("entity_id")}
    if properties:
        call["data"] = {name: f"{{{{ {name} }}}}" for name in properties}
    call["response_variable"] = FUNCTION_RESULT
    return call


def _export_history(settings: Mapping[str, JsonValue]) -> JsonObject:
    if settings.get("entity_ids") != [HISTORY_ENTITIES] or settings.get("statistics"):
        raise Unsupported(
            "history: Extended OpenAI's get_history reads the entities the model names; "
            "a fixed list or statistics have no equivalent"
        )
    if settings.get("period") is not None:
        raise Unsupported("history: a fixed period has no Extended OpenAI equivalent")
    return {"type": "native", "name": "get_history"}


def _export_composite(settings: Mapping[str, JsonValue]) -> JsonObject:
    sequence: list[JsonValue] = []
    for listed in list_of(settings.get("steps", [])):
        step = object_of(listed)
        kind = str(step.get("kind"))
        if kind in ("history", "composite"):
            raise Unsupported(f"composite: a {kind} step has no Extended OpenAI equivalent")
        exported = _export_kind(kind, object_of(from_steps(step.get(kind) or {})), EMPTY_PARAMETERS)
        sequence.append({**exported, "response_variable": step.get("name")})
    result = settings.get("result")
    if isinstance(result, dict):
        if "template" not in result:
            raise Unsupported("composite: a JSON pointer result has no Extended OpenAI equivalent")
        sequence.append({"type": "template", "value_template": from_steps(result["template"])})
    return {"type": "composite", "sequence": sequence}
