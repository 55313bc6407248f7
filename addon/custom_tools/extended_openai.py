"""Import of Extended OpenAI Conversation's function YAML (export: ``extended_openai_export``).

Extended OpenAI Conversation (EOC) keeps its tools as a list of ``{spec, function}`` entries:
``spec`` is the OpenAI function (name, description, parameters), ``function`` says what runs,
by ``type``: ``template``, ``script``, ``rest``, ``scrape``, ``composite``, ``sqlite`` or
``native`` (``predefined`` in old versions). Each entry becomes one definition of ours, or is
refused whole with the reason: nothing is half-imported.

What carries over, and how:

- ``template``: our ``template`` kind; both render with Home Assistant's own template engine,
  the arguments as top-level variables (a warning when it reads ``states`` directly).
- ``rest``: our ``rest`` kind. ``resource`` or ``resource_template`` becomes the URL,
  ``params`` the query, ``payload`` a text body, ``value_template`` the result template (which
  sees ``value``, ``value_json`` and the arguments, as in EOC).
- ``script``: a sequence of action calls; one call becomes our ``service`` kind, several a
  ``composite`` of them. ``response_variable: _function_result`` (EOC's way of returning the
  answer) becomes ``return_response``. Steps that are not action calls (delays, conditions) are
  refused, and so is any call into ``automation.*`` or ``config.*`` or one the gate forbids
  (``hassio.*``, ``shell_command.*``...: :data:`addon.home.actions.gate.FORBIDDEN_ACTIONS`).
- ``composite``: our ``composite``. EOC puts each step's ``response_variable`` beside the
  arguments; we give it as ``steps.NAME``, so later templates are rewritten accordingly.
- ``native``: ``get_history`` becomes our ``history`` kind over the model's ``entity_ids``.
  ``add_automation`` is refused (writing automations from model output is unsafe),
  ``execute_service`` because the built-in tools already act on exposed entities, the others
  because Home Agent has no equivalent.
- ``sqlite`` is refused (raw SQL is unsafe), ``scrape`` too (no HTML scraping here).

Export writes the same format from our definitions; a definition with no EOC equivalent is
listed with the reason instead. Secrets stay ``{{ secrets.NAME }}`` references: values are never
exported, nor is the ``secrets:`` declaration (EOC has none); an import declares the secrets its
requests name, so the tool uses those and no others.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import yaml
from jinja2 import Environment, TemplateSyntaxError

from addon.custom_tools.definition import template_warnings
from addon.custom_tools.json_parts import NotJsonError, json_value, object_of
from addon.custom_tools.secret_use import secret_references
from addon.errors import CustomToolInvalid, HomeAgentError
from addon.home.actions.gate import forbidden
from addon.text import JsonObject, JsonValue, load_yaml

Validator = Callable[[Mapping[str, JsonValue]], None]

FUNCTION_RESULT = "_function_result"
EMPTY_PARAMETERS: JsonObject = {"type": "object", "properties": {}}
STEP_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
_LITERAL_ORIGIN = re.compile(r"^https?://[^/?#{}%\s]+(?=$|[/?#])", re.IGNORECASE)
_UNSAFE_DOMAINS = ("automation", "config")
_REST_KEYS = frozenset(
    {"type", "resource", "resource_template", "method", "headers", "params", "payload"}
    | {"payload_template", "value_template", "timeout", "response_variable"}
)
_CALL_KEYS = frozenset({"service", "action", "data", "data_template", "target"})
_NATIVE_REASONS = {
    "add_automation": "writing automations from model output is unsafe",
    "execute_service": (
        "Home Agent's built-in tools (HassTurnOn, HassTurnOff, HassLightSet, ...) already "
        "act on exposed entities; an action chosen freely by the model is not imported"
    ),
    "execute_service_single": (
        "Home Agent's built-in tools already act on exposed entities; an action chosen freely "
        "by the model is not imported"
    ),
}
HISTORY_ENTITIES = "{{ entity_ids | join(',') }}"
HISTORY_START = "{{ start_time | default('', true) }}"
HISTORY_END = "{{ end_time | default('', true) }}"


@dataclass(frozen=True, slots=True)
class ImportResult:
    """The definitions made from the entries that carry over, and the others with a reason."""

    definitions: tuple[JsonObject, ...]
    refused: tuple[tuple[str, str], ...]
    warnings: tuple[tuple[str, str], ...] = ()
    """Imported entries worth a look (a template reading ``states`` directly), with why."""


class Unsupported(HomeAgentError):
    """An entry, or a definition, that cannot be carried over; the message is the reason."""


def import_functions(text: str, *, validate: Validator | None = None) -> ImportResult:
    """Convert EOC function YAML; ``validate`` (the definition parser) checks each result.

    Raises :class:`CustomToolInvalid` if the text is not YAML holding a list. An entry whose
    definition ``validate`` refuses is refused with the parser's problems as its reason.
    """
    try:
        entries = load_yaml(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise CustomToolInvalid([("", f"{where}not valid YAML: {err}")]) from err
    if entries is None:
        entries = []
    if not isinstance(entries, list):
        raise CustomToolInvalid([("", "expected a list of {spec, function} entries")])
    definitions: list[JsonObject] = []
    refused: list[tuple[str, str]] = []
    warnings: list[tuple[str, str]] = []
    for index, entry in enumerate(entries):
        name = _entry_name(entry, index)
        try:
            definition = import_entry(_entry_json(entry))
            if validate is not None:
                validate(definition)
        except Unsupported as err:
            refused.append((name, str(err)))
        except CustomToolInvalid as err:
            problems = "; ".join(f"{path or 'definition'}: {text}" for path, text in err.problems)
            refused.append((name, f"the converted definition is not valid: {problems}"))
        else:
            definitions.append(definition)
            warnings.extend((name, warning) for warning in template_warnings(definition))
    return ImportResult(tuple(definitions), tuple(refused), tuple(warnings))


def _entry_json(entry: object) -> JsonValue:
    """An entry as YAML loaded it, as JSON; :class:`Unsupported` names a part JSON cannot hold.

    YAML has values JSON has not (a date, a time, a set): such an entry is refused, saying
    where, rather than carried into a definition no store or request could hold.
    """
    try:
        return json_value(entry)
    except NotJsonError as err:
        raise Unsupported(f"{err.path or 'the entry'}: {err.reason}") from err


def import_entry(entry: JsonValue) -> JsonObject:
    """One EOC entry as our definition; :class:`Unsupported` says why it cannot be."""
    if not isinstance(entry, Mapping):
        raise Unsupported("an entry is a mapping with 'spec' and 'function'")
    spec, function = entry.get("spec"), entry.get("function")
    if not isinstance(spec, Mapping) or not isinstance(function, Mapping):
        raise Unsupported("an entry needs a 'spec' and a 'function' mapping")
    name = spec.get("name")
    if not isinstance(name, str) or not name:
        raise Unsupported("the spec has no name")
    parameters = spec.get("parameters") or EMPTY_PARAMETERS
    if not isinstance(parameters, dict):
        raise Unsupported("the spec's parameters are not a mapping")
    definition: JsonObject = {
        "name": name,
        "description": str(spec.get("description") or name).strip(),
        "parameters": dict(parameters),
    }
    kind, settings = _import_function(function, definition["parameters"])
    definition["kind"] = kind
    if isinstance(function.get("timeout"), int | float) and kind == "rest":
        definition["timeout"] = function["timeout"]
    secrets = sorted(_secrets_named(settings))
    if secrets:
        definition["secrets"] = [*secrets]
    definition[kind] = settings
    return definition


def _secrets_named(value: JsonValue) -> set[str]:
    """The secret names the converted settings' templates name (``secrets.NAME``)."""
    if isinstance(value, str):
        return secret_references(value)
    if isinstance(value, Mapping):
        return {name for item in value.values() for name in _secrets_named(item)}
    if isinstance(value, list):
        return {name for item in value for name in _secrets_named(item)}
    return set()


def _import_function(
    function: Mapping[str, JsonValue], parameters: JsonValue
) -> tuple[str, JsonObject]:
    kind = function.get("type")
    if kind == "template":
        return "template", {"template": _text(function, "value_template")}
    if kind == "rest":
        return "rest", _import_rest(function)
    if kind == "script":
        return _import_script(function.get("sequence"))
    if kind == "composite":
        return "composite", _import_composite(function.get("sequence"))
    if kind in ("native", "predefined"):
        return _import_native(function, parameters)
    if kind == "sqlite":
        raise Unsupported("sqlite: running raw SQL against the recorder's database is unsafe")
    if kind == "scrape":
        raise Unsupported(
            "scrape: Home Agent does not scrape HTML pages; use a rest tool over a JSON API"
        )
    raise Unsupported(f"function type {kind!r} has no equivalent")


def _import_rest(function: Mapping[str, JsonValue]) -> JsonObject:
    unknown = sorted(set(function) - _REST_KEYS)
    if unknown:
        raise Unsupported(f"rest: {', '.join(unknown)} cannot be carried over")
    url = function.get("resource_template") or function.get("resource")
    if not isinstance(url, str) or not _LITERAL_ORIGIN.match(url.strip()):
        raise Unsupported(
            "rest: the URL must start with a scheme and host written out; a template may fill "
            "only its path and query"
        )
    settings: JsonObject = {"method": str(function.get("method", "GET")).upper()}
    settings["url"] = url.strip()
    for ours, theirs in (("query", "params"), ("headers", "headers")):
        given = function.get(theirs)
        if isinstance(given, dict) and given:
            settings[ours] = {key: str(value) for key, value in given.items()}
        elif given:
            raise Unsupported(f"rest: '{theirs}' is not a mapping")
    payload = function.get("payload_template", function.get("payload"))
    if payload is not None:
        settings["body"] = {"type": "text", "content": str(payload)}
    if function.get("value_template") is not None:
        settings["result"] = {"template": _text(function, "value_template")}
    return settings


def _import_script(sequence: JsonValue) -> tuple[str, JsonObject]:
    calls = _service_calls(sequence, "script")
    if len(calls) == 1:
        return "service", calls[0][1]
    return "composite", {
        "steps": [{"name": name, "kind": "service", "service": call} for name, call in calls]
    }


def _service_calls(sequence: JsonValue, where: str) -> list[tuple[str, JsonObject]]:
    """The action calls of a script sequence, named; refuses anything else in it."""
    if not isinstance(sequence, list) or not sequence:
        raise Unsupported(f"{where}: the sequence is empty")
    calls = []
    for number, step in enumerate(sequence, start=1):
        if not isinstance(step, Mapping) or not ({"service", "action"} & set(step)):
            keys = ", ".join(step) if isinstance(step, Mapping) else type(step).__name__
            raise Unsupported(f"{where}: step {number} ({keys}) is not an action call")
        extra = sorted(set(step) - _CALL_KEYS - {"response_variable"})
        if extra:
            raise Unsupported(f"{where}: step {number}'s {', '.join(extra)} has no equivalent")
        action = str(step.get("action") or step.get("service"))
        pattern = forbidden(action)
        if pattern is not None:
            raise Unsupported(
                f"{where}: step {number} calls {action}, which can harm the host ({pattern})"
            )
        if action.split(".", 1)[0] in _UNSAFE_DOMAINS:
            raise Unsupported(
                f"{where}: step {number} calls {action}: changing automations or the "
                "configuration from model output is unsafe"
            )
        call: JsonObject = {"action": action}
        data = step.get("data", step.get("data_template"))
        if data:
            call["data"] = data
        if step.get("target"):
            call["target"] = step["target"]
        variable = step.get("response_variable")
        if variable == FUNCTION_RESULT:
            call["return_response"] = True
        calls.append((f"step_{number}", call))
    return calls


def _import_native(
    function: Mapping[str, JsonValue], parameters: JsonValue
) -> tuple[str, JsonObject]:
    name = function.get("name")
    if name == "get_history":
        properties = object_of(parameters.get("properties")) if isinstance(parameters, dict) else {}
        settings: JsonObject = {"entity_ids": [HISTORY_ENTITIES]}
        # Both times are optional in EOC, which fills in the day before now and the day after
        # the start; an empty rendering gives the history kind's same defaults.
        if "start_time" in properties:
            settings["start"] = HISTORY_START
        if "end_time" in properties:
            settings["end"] = HISTORY_END
        if "entity_ids" not in properties:
            raise Unsupported("native get_history: the parameters have no 'entity_ids'")
        return "history", settings
    reason = _NATIVE_REASONS.get(str(name), "Home Agent has no equivalent")
    raise Unsupported(f"native {name}: {reason}")


def _import_composite(sequence: JsonValue) -> JsonObject:
    if not isinstance(sequence, list) or not sequence:
        raise Unsupported("composite: the sequence is empty")
    steps: list[JsonValue] = []
    names: list[str] = []
    for number, step in enumerate(sequence, start=1):
        if not isinstance(step, Mapping):
            raise Unsupported(f"composite: step {number} is not a mapping")
        variable = step.get("response_variable")
        name = variable if isinstance(variable, str) else f"step_{number}"
        if not STEP_NAME.match(name):
            raise Unsupported(f"composite: step {number}'s response_variable {name!r}")
        kind, settings = _import_function(step, {"properties": {}})
        if kind == "history":
            raise Unsupported("composite: a get_history step's raw states have no equivalent")
        if kind == "composite":
            raise Unsupported(f"composite: step {number} is a multi-step script")
        steps.append({"name": name, "kind": kind, kind: _to_steps(settings, names)})
        names.append(name)
    return {"steps": steps}


def _text(function: Mapping[str, JsonValue], key: str) -> str:
    value = function.get(key)
    if not isinstance(value, str) or not value.strip():
        raise Unsupported(f"{function.get('type')}: '{key}' is missing")
    return value


def _entry_name(entry: JsonValue, index: int) -> str:
    spec = entry.get("spec") if isinstance(entry, Mapping) else None
    name = spec.get("name") if isinstance(spec, Mapping) else None
    return name if isinstance(name, str) and name else f"entry {index + 1}"


def _to_steps(value: JsonValue, names: list[str]) -> JsonValue:
    """Every template in ``value`` with earlier steps' variables read as ``steps.NAME``."""
    return _map_templates(value, lambda text: _rename(text, set(names), to_steps=True))


def from_steps(value: JsonValue) -> JsonValue:
    """Every template in ``value`` with ``steps.NAME`` read as the plain variable ``NAME``."""
    return _map_templates(value, lambda text: _rename(text, set(), to_steps=False))


def _map_templates(value: JsonValue, change: Callable[[str], str]) -> JsonValue:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, Mapping):
        return {key: _map_templates(item, change) for key, item in value.items()}
    if isinstance(value, list):
        return [_map_templates(item, change) for item in value]
    return value


def _rename(text: str, names: set[str], *, to_steps: bool) -> str:
    """Rewrite variable references through Jinja's own lexer, leaving all else byte for byte.

    Only bare names are touched: not attributes (``x.data``), keyword arguments or strings.
    """
    if "{" not in text:
        return text
    try:
        tokens = list(Environment().lex(text))
    except TemplateSyntaxError as err:
        raise Unsupported(f"a template does not parse: {err}") from err
    out: list[str] = []
    skip = 0
    for index, (_line, kind, value) in enumerate(tokens):
        if skip:
            skip -= 1
            continue
        before = _neighbour(tokens, index, -1)
        after = _neighbour(tokens, index, 1)
        if to_steps and kind == "name" and value in names and before != "." and after != "=":
            out.append(f"steps.{value}")
            continue
        if not to_steps and kind == "name" and value == "steps" and before != ".":
            following = tokens[index + 1 : index + 3]
            if len(following) == 2 and following[0][2] == "." and following[1][1] == "name":
                out.append(following[1][2])
                skip = 2
                continue
        out.append(value)
    return "".join(out)


def _neighbour(tokens: list[tuple[int, str, str]], index: int, step: int) -> str:
    index += step
    while 0 <= index < len(tokens) and tokens[index][1] == "whitespace":
        index += step
    return tokens[index][2] if 0 <= index < len(tokens) else ""
