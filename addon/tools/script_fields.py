"""A script's fields as the JSON schema, description and arguments Home Assistant's Assist API uses.

Ported from Home Assistant 2025.4's ``helpers/llm.py``: ``_get_cached_action_parameters`` builds
a voluptuous schema from the script's service description (each field's ``description``, else its
``name``; ``required``; its selector, else a plain string), ``_selector_serializer`` turns each
selector into JSON schema, and ``ActionTool.async_call`` replaces area and floor names with ids
before it calls the script. The schema must be the JSON Home Assistant sends, so that a model
behaves here as it does behind Home Assistant's own agents; ``tests/tools/test_script_contract.py``
checks it against the real code.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from addon.errors import ToolError
from addon.home.model.entities import Entity
from addon.home.model.live import HomeModel
from addon.home.model.records import ScriptField, ScriptService
from addon.llm.outside_text import as_data
from addon.text import JsonObject, JsonValue

# voluptuous_openapi's conversion of the fixed schemas some selectors validate with
# (``cv.time_period_dict``, ``LocationSelector.DATA_SCHEMA``, ``MediaSelector.DATA_SCHEMA``,
# ``cv.TARGET_SERVICE_FIELDS``, ``cv.CONDITIONS_SCHEMA``), as Home Assistant 2025.4.4 produces it.
_NUMBER: JsonValue = {"type": "number"}
_DURATION: JsonObject = {
    "type": "object",
    "properties": dict.fromkeys(("days", "hours", "minutes", "seconds", "milliseconds"), _NUMBER),
    "required": [],
}
_LOCATION: JsonObject = {
    "type": "object",
    "properties": {"latitude": _NUMBER, "longitude": _NUMBER, "radius": _NUMBER},
    "required": ["latitude", "longitude"],
}
_MEDIA: JsonObject = {
    "type": "object",
    "properties": {
        "entity_id": {"type": "string"},
        "media_content_id": {"type": "string"},
        "media_content_type": {"type": "string"},
        "metadata": {"type": "object", "additionalProperties": True},
    },
    "required": ["entity_id", "media_content_id", "media_content_type"],
}
_IDS: JsonValue = {
    "anyOf": [
        {"type": "string", "enum": ["none"]},
        {"type": "array", "items": {"nullable": True, "type": "string"}},
    ]
}
_TARGET: JsonObject = {
    "type": "object",
    "properties": {
        "entity_id": {
            "anyOf": [
                {"format": "lower", "type": "string", "enum": ["none", "all"]},
                {"type": "string", "nullable": True},
                {"type": "array", "items": {"type": "string"}},
            ]
        },
        **dict.fromkeys(("device_id", "area_id", "floor_id", "label_id"), _IDS),
    },
    "required": [],
}
_CONDITIONS: JsonObject = {"type": "array", "items": {"nullable": True, "type": "string"}}
_FIXED: dict[str, JsonObject] = {
    "backup_location": {"type": "string", "pattern": "^(?:\\/backup|\\w+)$"},
    "boolean": {"type": "boolean"},
    "color_rgb": {
        "type": "array",
        "items": _NUMBER,
        "minItems": 3,
        "maxItems": 3,
        "format": "RGB",
    },
    "condition": _CONDITIONS,
    "date": {"type": "string", "format": "date"},
    "datetime": {"type": "string", "format": "date-time"},
    "duration": _DURATION,
    "location": _LOCATION,
    "media": _MEDIA,
    "object": {"type": "object", "additionalProperties": True},
    "target": _TARGET,
    "template": {"type": "string", "format": "jinja2"},
    "time": {"type": "string", "format": "time"},
    "trigger": {"type": "array", "items": {"type": "string"}},
}


def _copy(schema: JsonObject) -> JsonObject:
    """A deep copy, so a caller changing a tool's schema cannot change the shared constants."""
    return {key: _copy_value(value) for key, value in schema.items()}


def _copy_value(value: JsonValue) -> JsonValue:
    if isinstance(value, dict):
        return _copy(value)
    if isinstance(value, list):
        return [_copy_value(item) for item in value]
    return value


def _constant_schema(value: JsonValue) -> JsonObject:
    # voluptuous_openapi's conversion of ``vol.Schema(value)`` for a literal.
    if isinstance(value, bool):
        return {"type": "boolean", "enum": [value]}
    if isinstance(value, int):
        return {"type": "integer", "enum": [value]}
    if isinstance(value, float):
        return {"type": "number", "enum": [value]}
    return {"type": "string", "enum": [value]}


def _bounded_number(
    config: Mapping[str, JsonValue], low: tuple[str, ...], high: tuple[str, ...]
) -> JsonObject:
    schema: JsonObject = {"type": "number"}
    for key, names in (("minimum", low), ("maximum", high)):
        for name in names:
            if name in config:
                schema[key] = config[name]
                break
    return schema


def selector_schema(selector: str | None, config: Mapping[str, JsonValue]) -> JsonObject:
    """``_selector_serializer``: the JSON schema for a value this selector accepts.

    A field without a selector is ``cv.string``; a selector Home Assistant 2025.4 does not know
    (a newer release's) gets the same treatment as its unlisted ones: a string, or a list of
    strings when ``multiple``.
    """
    if selector is None:
        return {"type": "string"}
    if selector in _FIXED:
        return _copy(_FIXED[selector])
    if selector == "constant":
        return _constant_schema(config.get("value"))
    if selector == "number":
        return _bounded_number(config, ("min",), ("max",))
    if selector == "color_temp":
        return _bounded_number(config, ("min", "min_mireds"), ("max", "max_mireds"))
    if selector == "entity":
        entity: JsonObject = {"type": "string", "format": "entity_id"}
        return {"type": "array", "items": entity} if config.get("multiple") else entity
    if selector in ("country", "language"):
        choices = config.get("countries" if selector == "country" else "languages")
        if isinstance(choices, list) and choices:
            return {"type": "string", "enum": list(choices)}
        fmt = "ISO 3166-1 alpha-2" if selector == "country" else "RFC 5646"
        return {"type": "string", "format": fmt}
    if selector == "select":
        listed = config.get("options")
        options: list[JsonValue] = [
            option["value"] if isinstance(option, dict) else option
            for option in (listed if isinstance(listed, list) else ())
        ]
        if config.get("multiple"):
            return {
                "type": "array",
                "items": {"type": "string", "enum": options},
                "uniqueItems": True,
            }
        return {"type": "string", "enum": options}
    if config.get("multiple"):
        return {"type": "array", "items": {"type": "string"}}
    return {"type": "string"}


def script_parameters(fields: Iterable[ScriptField]) -> JsonObject:
    """The ``parameters`` object schema Home Assistant gives a model for a script's fields."""
    properties: JsonObject = {}
    required: list[JsonValue] = []
    for script_field in fields:
        schema = selector_schema(script_field.selector, script_field.selector_config)
        description = script_field.description or script_field.name
        if description:
            schema["description"] = description
        properties[script_field.key] = schema
        if script_field.required:
            required.append(script_field.key)
    return {"type": "object", "properties": properties, "required": required}


def script_description(service: ScriptService | None, entity: Entity) -> str:
    """The script's description followed by its registry name and aliases, as Home Assistant has it.

    Home Assistant sends no description at all for a script with neither a description nor
    aliases; we send its name then, because a small model picks a tool by what it reads here.
    Names and descriptions come from the home's setup, so tool-call markup in them is broken.
    """
    entry = entity.entry
    aliases = [name for name in (entry.name if entry else None, *entity.aliases) if name]
    if service is not None and service.description:
        if aliases:
            return as_data(service.description + ". Aliases: " + str(aliases))
        return as_data(service.description)
    others = [alias for alias in aliases if alias != entity.name]
    return as_data(entity.name + ". Aliases: " + str(others) if others else entity.name)


def resolve_places(
    arguments: JsonObject, fields: Iterable[ScriptField], model: HomeModel
) -> JsonObject:
    """Arguments with area and floor names turned into ids, as ``ActionTool.async_call`` does.

    A script with an area or floor selector expects ids, but a model only knows the names the
    prompt shows; an unknown name is an error the model can correct.
    """
    resolved = dict(arguments)
    for script_field in fields:
        kind = script_field.selector or ""
        if kind not in ("area", "floor") or script_field.key not in resolved:
            continue
        value = resolved[script_field.key]
        if script_field.selector_config.get("multiple"):
            names = value if isinstance(value, list) else [value]
            ids: list[JsonValue] = [
                place for name in names for place in _place_ids(kind, str(name), model)
            ]
            resolved[script_field.key] = list(dict.fromkeys(ids))
        else:
            found = _place_ids(kind, str(value), model)
            if not found:
                raise ToolError(f"{kind.capitalize()} '{value}' does not exist")
            resolved[script_field.key] = found[0]
    return resolved


def _place_ids(kind: str, name: str, model: HomeModel) -> list[str]:
    if kind == "area":
        return [area.area_id for area in model.find_areas(name, loose=True)]
    return [floor.floor_id for floor in model.find_floors(name, loose=True)]
