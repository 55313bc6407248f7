"""A custom tool definition's problems: name patterns said in words, the schema's checks.

The editor shows every problem at once, each at its field: a refused name with its rule said
plainly (never the regular expression), and the schema checked even when other fields failed.
"""

from __future__ import annotations

from collections.abc import Mapping

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from pydantic import ValidationError

from addon.custom_tools.json_parts import object_of
from addon.text import JsonValue

NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$"
STEP_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]{0,63}$"
SECRET_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]{0,63}$"
ACTION_PATTERN = r"^[a-z0-9_]+\.[a-z0-9_]+$"
SCRIPT_PATTERN = r"^script\.[a-z0-9_]+$"
PATTERN_WORDS = {
    NAME_PATTERN: "a name starts with a letter or '_' and has at most 64 letters, digits, "
    "'_' or '-' (no spaces)",
    # Step and secret names share one pattern (and so one sentence).
    STEP_NAME_PATTERN: "a name here starts with a letter or '_' and has at most 64 letters, "
    "digits or '_' (no spaces or '-')",
    ACTION_PATTERN: "an action is 'domain.action' in lower case, such as light.turn_on",
    SCRIPT_PATTERN: "a script is 'script.name' in lower case, such as script.good_night",
}
"""What each pattern means, said in words instead of the regular expression."""


def validation_problems(err: ValidationError) -> list[tuple[str, str]]:
    """Pydantic's errors as (field path, message), a pattern's rule said in words."""
    problems = []
    for item in err.errors(include_url=False):
        path = ".".join(str(part) for part in item["loc"])
        pattern = str((item.get("ctx") or {}).get("pattern", ""))
        message = PATTERN_WORDS.get(pattern) or str(item["msg"]).removeprefix("Value error, ")
        problems.append((path, message))
    return problems


def later_problems(data: Mapping[str, JsonValue]) -> list[tuple[str, str]]:
    """The parameter schema's problems, checked although other fields failed to parse.

    So the editor shows every problem at once rather than the schema's after the rest is fixed.
    """
    parameters = data.get("parameters")
    return schema_problems(parameters) if isinstance(parameters, dict) else []


def schema_problems(schema: Mapping[str, JsonValue]) -> list[tuple[str, str]]:
    """What is wrong with a tool's parameter schema (JSON Schema, of type object)."""
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as err:
        where = ".".join(str(part) for part in ("parameters", *err.absolute_path))
        return [(where, f"not a valid JSON Schema: {err.message}")]
    if schema.get("type") != "object":
        return [("parameters.type", "the parameters are a JSON Schema of type 'object'")]
    properties = object_of(schema.get("properties", {}))
    reserved = sorted({"args", "secrets", "steps", "value", "value_json"} & set(properties))
    if reserved:
        return [("parameters.properties", f"{reserved} are template variables of their own")]
    return []
