"""The custom tool editor apart from HTTP: reading its text, placing problems, try-it forms.

The editor sends the whole definition as YAML or JSON text beside a form of the common fields
(name, description, kind, enabled, timeout). The text is the one source of truth: a field changed
in the form (the form carries each field's original value to tell) is written into the text by
:func:`apply_fields`, replacing only that key's value (:mod:`.tool_text`), and the text is what
is parsed, saved and shown back, as the user wrote it. With script the fields and the text
follow each other as they are typed (``app.js``), so both paths give the same text.

A problem the parser reports names a dotted field path (``rest.url``,
``composite.steps.1.service.action``); :func:`locate` finds the line of the deepest key of that
path present in the text, so the message can be shown at the line it concerns.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

import yaml
from jsonschema import Draft202012Validator

from addon.errors import CustomToolInvalid
from addon.text import JsonObject, JsonValue, NoAliasLoader, dump_yaml, load_yaml
from addon.web.ui import tool_text

COMMON_FIELDS = ("name", "description", "kind", "enabled", "timeout")
KINDS = ("rest", "service", "template", "script", "history", "composite")
MAX_SOURCE = 256 * 1024

NEW_TOOL_SOURCE = """\
name: get_weather
description: Current weather for a city.
parameters:
  type: object
  properties:
    city: {type: string, description: City name}
  required: [city]
kind: rest
enabled: true
timeout: 10
rest:
  method: GET
  url: "https://api.example.com/weather/{{ city | urlencode }}"
  result: {pointer: /temp}
"""


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with the editor's text: its field path, message and line (1-based)."""

    path: str
    message: str
    line: int | None

    @property
    def common_field(self) -> str | None:
        """The form field the problem belongs to, if it is one of the common fields."""
        head = self.path.split(".", 1)[0]
        return head if head in COMMON_FIELDS else None


class SourceInvalid(CustomToolInvalid):
    """The editor's text is not a definition; carries the problems already placed on lines."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__([(problem.path, problem.message) for problem in problems])
        self.placed = tuple(problems)


def parse_source(text: str) -> JsonObject:
    """The mapping written in the editor (YAML, which also reads JSON); SourceInvalid if none."""
    if len(text) > MAX_SOURCE:
        raise SourceInvalid([Problem("", f"the definition is over {MAX_SOURCE // 1024} KiB", None)])
    try:
        parsed = load_yaml(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(err, "problem", None) or str(err)
        raise SourceInvalid([Problem("", f"not valid YAML or JSON: {problem}", line)]) from err
    if not isinstance(parsed, dict):
        raise SourceInvalid([Problem("", "a definition is a mapping of its fields", 1)])
    return parsed


def apply_fields(text: str, fields: Mapping[str, str], originals: Mapping[str, str]) -> str:
    """``text`` with each common field the form changed written into it, the rest as typed.

    ``fields`` and ``originals`` hold the form's values and the values it was shown with;
    enabled is "on" or absent, as a checkbox sends it. A field the text already says is left
    alone, so a page whose script kept them together changes nothing. A changed kind also
    swaps the old kind's settings for the new kind's example (:func:`.tool_text.swap_kind`).
    A timeout that is not a number is written as text, so the parser names the field. Text
    that does not parse is returned as it is, for the parser to explain.
    """
    try:
        written = field_values(parse_source(text))
    except SourceInvalid:
        return text
    for name in COMMON_FIELDS:
        value = fields.get(name, "off" if name == "enabled" else "")
        if name == "enabled":
            value = "on" if value == "on" else "off"
        if value in (originals.get(name), written[name]):
            continue
        if name == "kind":
            text = tool_text.swap_kind(text, value)
        else:
            text = tool_text.set_field(text, name, _field_value(name, value))
    return text


def _field_value(name: str, value: str) -> JsonValue:
    if name == "enabled":
        return value == "on"
    if name == "timeout":
        try:
            return float(value) if "." in value else int(value)
        except ValueError:
            return value
    return value


def field_values(definition: Mapping[str, JsonValue]) -> dict[str, str]:
    """The common fields of a definition as the form shows them."""
    values = dict.fromkeys(COMMON_FIELDS, "")
    for name in ("name", "description", "kind"):
        value = definition.get(name)
        values[name] = value if isinstance(value, str) else ""
    values["enabled"] = "off" if definition.get("enabled", True) is False else "on"
    timeout = definition.get("timeout", 10)
    values["timeout"] = f"{timeout:g}" if isinstance(timeout, int | float) else str(timeout)
    return values


def render_source(definition: Mapping[str, JsonValue], fmt: str = "yaml") -> str:
    """A definition as editor text: block YAML or indented JSON, keys in their order."""
    if fmt == "json":
        return json.dumps(definition, indent=2, ensure_ascii=False) + "\n"
    return dump_yaml(dict(definition))


def saved_source(
    written: str | None, definition: Mapping[str, JsonValue], fmt: str = "yaml"
) -> str:
    """A saved tool's editor text: as the user wrote it, else rendered from its definition.

    ``written`` is the version's text (None when it was saved by the API or an import);
    ``fmt`` "json" always renders JSON. The tool's ``enabled`` switch is the truth about it and
    can change without a new version, so a text that says otherwise is told, in that key only.
    """
    if written is None or fmt == "json":
        return render_source(definition, fmt)
    try:
        says = field_values(parse_source(written))["enabled"]
    except SourceInvalid:
        return render_source(definition, fmt)
    enabled = definition.get("enabled", True) is not False
    if says != ("on" if enabled else "off"):
        return tool_text.set_field(written, "enabled", enabled)
    return written


def place(err: CustomToolInvalid, text: str) -> list[Problem]:
    """The problems of ``err``, each with the line of the text it concerns (None if none)."""
    if isinstance(err, SourceInvalid):
        return list(err.placed)
    placed = [Problem(path, message, locate(text, path)) for path, message in err.problems]
    # In the order of the text, as a reader meets them; one with no line comes last.
    return sorted(placed, key=lambda problem: (problem.line is None, problem.line or 0))


def locate(text: str, path: str) -> int | None:
    """The 1-based line of the deepest key of the dotted ``path`` found in the YAML/JSON text.

    Also takes a task file's paths (``tasks[0].expect.light.kitchen``), for the Evaluate page.
    """
    try:
        node = yaml.compose(text, Loader=NoAliasLoader)
    except yaml.YAMLError:
        return None
    if node is None:
        return None
    line: int | None = None
    # ``tasks[0]`` is ``tasks.0``; a key may hold dots itself (``light.kitchen``), so the
    # longest run of parts that names a key wins.
    parts = [p for p in re.sub(r"\[(\d+)\]", r".\1", path).split(".") if p]
    index = 0
    while index < len(parts):
        part = parts[index]
        if isinstance(node, yaml.MappingNode):
            keys = {getattr(key, "value", None): (key, value) for key, value in node.value}
            end = next(
                (end for end in range(len(parts), index, -1) if ".".join(parts[index:end]) in keys),
                None,
            )
            if end is None:
                break
            key_node, node = keys[".".join(parts[index:end])]
            line = key_node.start_mark.line + 1
            index = end
        elif isinstance(node, yaml.SequenceNode) and part.isdigit() and int(part) < len(node.value):
            node = node.value[int(part)]
            line = node.start_mark.line + 1
            index += 1
        else:
            break
    return line


@dataclass(frozen=True, slots=True)
class ArgumentField:
    """One input of the try-it form, made from one property of the tool's parameter schema."""

    name: str
    widget: str  # text, number, integer, boolean, enum, json
    required: bool
    description: str
    options: tuple[str, ...] = ()
    value: str = ""

    @property
    def input_name(self) -> str:
        """The form field's name; prefixed so no argument meets the page's own fields."""
        return f"arg.{self.name}"


def argument_fields(
    parameters: Mapping[str, JsonValue], values: Mapping[str, str] | None = None
) -> list[ArgumentField]:
    """The try-it inputs for a parameter schema, in the schema's order, with sent values kept."""
    properties = parameters.get("properties")
    if not isinstance(properties, Mapping):
        return []
    required = parameters.get("required")
    required_names = set(required) if isinstance(required, list) else set()
    fields = []
    for name, schema in properties.items():
        schema = schema if isinstance(schema, Mapping) else {}
        widget, options = _widget(schema)
        description = schema.get("description")
        field = ArgumentField(
            name=str(name),
            widget=widget,
            required=name in required_names,
            description=description if isinstance(description, str) else "",
            options=options,
        )
        value = (values or {}).get(field.input_name, "")
        fields.append(
            ArgumentField(field.name, widget, field.required, field.description, options, value)
        )
    return fields


def _widget(schema: Mapping[str, JsonValue]) -> tuple[str, tuple[str, ...]]:
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(item, str) for item in enum):
        return "enum", tuple(str(item) for item in enum)
    kind = schema.get("type")
    if kind in ("string", "number", "integer", "boolean"):
        return str(kind), ()
    return ("json" if kind in ("object", "array") or kind is None else "text"), ()


def read_arguments(
    fields: list[ArgumentField], parameters: Mapping[str, JsonValue]
) -> tuple[JsonObject, list[str]]:
    """The arguments the try-it form gives, and every problem with them (schema checked).

    A blank input leaves its argument out, so an optional one can be omitted.
    """
    arguments: JsonObject = {}
    problems: list[str] = []
    for field in fields:
        raw = field.value.strip()
        if not raw:
            continue
        try:
            arguments[field.name] = _argument(field.widget, raw)
        except ValueError as err:
            problems.append(f"{field.name}: {err}")
    if not problems:
        validator = Draft202012Validator(dict(parameters))
        for error in sorted(validator.iter_errors(arguments), key=lambda e: list(e.path)):
            where = ".".join(str(part) for part in error.path) or "arguments"
            problems.append(f"{where}: {error.message}")
    return arguments, problems


def _argument(widget: str, raw: str) -> JsonValue:
    if widget == "integer":
        try:
            return int(raw)
        except ValueError:
            raise ValueError("not a whole number") from None
    if widget == "number":
        try:
            return float(raw) if any(c in raw for c in ".eE") else int(raw)
        except ValueError:
            raise ValueError("not a number") from None
    if widget == "boolean":
        if raw not in ("true", "false"):
            raise ValueError("true or false")
        return raw == "true"
    if widget == "json":
        try:
            parsed: JsonValue = json.loads(raw)
        except ValueError as err:
            raise ValueError(f"not valid JSON: {err}") from None
        return parsed
    return raw


def reasons(err: CustomToolInvalid) -> str:
    """Every problem of ``err`` in one line, each with its field."""
    return "; ".join(f"{path}: {message}" if path else message for path, message in err.problems)
