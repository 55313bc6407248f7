"""A custom tool's definition: the mapping users edit as YAML or JSON, parsed and checked.

The shape is fixed by the feature's contract (name, description, parameters, kind, enabled,
timeout, acts, and the kind's settings under a key named like the kind). Parsing collects every
problem at once into one :class:`~addon.errors.CustomToolInvalid`, each with the dotted path of
the field it concerns (``rest.url``, ``composite.steps.1.service.action``), so an editor can show
all of them inline. Models are frozen: a definition is a value, compared and cached as one.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Mapping
from functools import cached_property
from typing import Annotated, Literal
from urllib.parse import unquote

import yarl
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from addon.custom_tools.json_parts import list_of
from addon.custom_tools.problems import (
    ACTION_PATTERN,
    NAME_PATTERN,
    SCRIPT_PATTERN,
    SECRET_NAME_PATTERN,
    STEP_NAME_PATTERN,
    later_problems,
    schema_problems,
    validation_problems,
)
from addon.custom_tools.secret_use import secret_problems, secret_references, settings_texts
from addon.errors import CustomToolInvalid
from addon.home.actions.gate import forbidden
from addon.text import JsonArray, JsonObject, JsonValue

KINDS = ("rest", "service", "template", "script", "history", "composite")
Kind = Literal["rest", "service", "template", "script", "history", "composite"]
StepKind = Literal["rest", "service", "template", "script", "history"]
DEFAULT_MAX_BYTES = 1024 * 1024
MAX_STEPS = 10
_TEMPLATE_MARK = re.compile(r"\{\{|\{%|\{#")
_LITERAL_ORIGIN = re.compile(r"^(https?)://([^/?#{}%\s]+)(?=$|[/?#])", re.IGNORECASE)
_READS_STATES = re.compile(r"(?<![\w.])states\b(?!\s*\()")
_PERIOD = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_PERIOD_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
MAX_PERIOD_S = 366 * 86400
"""The longest history a tool reads, as ``period`` or as ``start`` to ``end``: a year."""
EMPTY_PARAMETERS: JsonObject = {"type": "object", "properties": {}}
MAX_SECRETS = 20


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ResultSpec(_Frozen):
    """How the model's result is taken from an answer: a template, or a JSON pointer."""

    template: str | None = None
    pointer: str | None = None

    @model_validator(mode="after")
    def _one_of(self) -> ResultSpec:
        if (self.template is None) == (self.pointer is None):
            raise ValueError("give exactly one of 'template' or 'pointer'")
        if self.pointer is not None and self.pointer and not self.pointer.startswith("/"):
            raise ValueError("a JSON pointer is empty or starts with '/'")
        return self


class BodySpec(_Frozen):
    """A request body: JSON, form fields or text; ``content`` is a template or a mapping of them."""

    type: Literal["json", "form", "text"] = "json"
    content: str | JsonObject | JsonArray

    @model_validator(mode="after")
    def _shape(self) -> BodySpec:
        if self.type == "form" and not isinstance(self.content, dict):
            raise ValueError("a form body's content is a mapping of field names to templates")
        if self.type == "text" and not isinstance(self.content, str):
            raise ValueError("a text body's content is one template")
        return self


class RestSettings(_Frozen):
    """An HTTP request. The URL's scheme, host and port are literal: arguments never change them."""

    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"] = "GET"
    url: str
    query: dict[str, str | int | float | bool] = Field(default_factory=dict)
    headers: dict[str, str] = Field(default_factory=dict)
    body: BodySpec | None = None
    max_bytes: int = Field(default=DEFAULT_MAX_BYTES, ge=1, le=16 * 1024 * 1024)
    result: ResultSpec | None = None

    @field_validator("url")
    @classmethod
    def _literal_origin(cls, url: str) -> str:
        # A field validator, so the problem names ``rest.url`` and the editor marks that line.
        origin_of(url)
        return url

    @model_validator(mode="after")
    def _no_body(self) -> RestSettings:
        if self.body is not None and self.method in ("GET", "DELETE"):
            raise ValueError(f"a {self.method} request has no body")
        return self

    @cached_property
    def origin(self) -> yarl.URL:
        """The URL's literal origin (see :func:`origin_of`), worked out once per definition."""
        return origin_of(self.url)

    @cached_property
    def path_prefix(self) -> tuple[str, bool]:
        """The URL's literal path, pinned like its origin: (prefix, whether the path is exact).

        The path written before the first template markup, decoded and with dot segments
        resolved. When no template reaches the path (none at all, or the first after ``?``),
        the rendered path must equal it; otherwise it must start with it.
        """
        text = self.url.strip()
        match = _LITERAL_ORIGIN.match(text)
        rest = text[match.end() :] if match is not None else ""
        mark = _TEMPLATE_MARK.search(rest)
        literal = rest if mark is None else rest[: mark.start()]
        cut = min((i for i in (literal.find("?"), literal.find("#")) if i >= 0), default=-1)
        exact = mark is None or cut >= 0
        path = literal[:cut] if cut >= 0 else literal
        return resolved_path(path), exact


def origin_of(url: str) -> yarl.URL:
    """The literal ``scheme://host[:port]`` the URL template starts with; rendering must keep it.

    Raises ValueError when the URL does not start with one written out in full (no template in
    the scheme, host or port), which is what keeps model arguments to the path, query and body.
    """
    match = _LITERAL_ORIGIN.match(url.strip())
    if match is None:
        raise ValueError(
            "the URL must start with http:// or https:// and a host written out, followed by "
            "'/', '?' or the end; templates may fill only the path and the query"
        )
    try:
        origin = yarl.URL(match.group(0))
    except ValueError as err:
        raise ValueError(f"the URL's host is not valid: {err}") from err
    if not origin.host or origin.user is not None:
        raise ValueError("the URL needs a host, without user or password (use headers instead)")
    return origin


def resolved_path(path: str) -> str:
    """``path`` percent-decoded (``%2F`` and ``%2e`` included), its dot segments resolved.

    What a server may end up serving, whichever decoding it does: the pin compares this.
    """
    segments: list[str] = []
    parts = unquote(path).split("/")
    for index, segment in enumerate(parts):
        last = index == len(parts) - 1
        if segment == "..":
            if segments:
                segments.pop()
            if last:
                segments.append("")
        elif segment == ".":
            if last:
                segments.append("")
        elif segment or last:
            segments.append(segment)
    return "/" + "/".join(segments)


class ServiceSettings(_Frozen):
    """A Home Assistant action with templated data and target."""

    action: str = Field(pattern=ACTION_PATTERN)
    data: JsonObject = Field(default_factory=dict)
    target: JsonObject = Field(default_factory=dict)
    return_response: bool = False
    result: ResultSpec | None = None

    @model_validator(mode="after")
    def _target_keys(self) -> ServiceSettings:
        pattern = forbidden(self.action)
        if pattern is not None:
            raise ValueError(f"{self.action} can harm the host ({pattern}); no tool may call it")
        allowed = {"entity_id", "device_id", "area_id", "floor_id", "label_id"}
        unknown = sorted(set(self.target) - allowed)
        if unknown:
            raise ValueError(f"unknown target keys {unknown}; use {sorted(allowed)}")
        return self


class TemplateSettings(_Frozen):
    """A template Home Assistant renders itself, with its live states."""

    template: str = Field(min_length=1)


class ScriptSettings(_Frozen):
    """A script entity run with the arguments as its variables."""

    entity_id: str = Field(pattern=SCRIPT_PATTERN)


class HistorySettings(_Frozen):
    """Recorded states or long-term statistics of entities over a period back from now."""

    entity_ids: list[str] = Field(min_length=1, max_length=20)
    period: str | None = None
    start: str | None = None
    end: str | None = None
    statistics: bool = False

    @model_validator(mode="after")
    def _window(self) -> HistorySettings:
        if self.period is not None and self.start is not None:
            raise ValueError("give either 'period' or 'start' (and 'end'), not both")
        if self.period is not None:
            period_seconds(self.period)
        return self

    @property
    def lookback(self) -> float:
        """Seconds back from now when no ``start`` is given (default one day)."""
        return period_seconds(self.period or "24h")


def period_seconds(text: str) -> float:
    """``30m``, ``24h``, ``7d`` as seconds; ValueError for anything else."""
    match = _PERIOD.match(text)
    if match is None:
        raise ValueError(f"period {text!r} is not a duration such as 30m, 24h or 7d")
    seconds = float(match.group(1)) * _PERIOD_SECONDS[match.group(2)]
    if not 0 < seconds <= MAX_PERIOD_S:
        raise ValueError(f"period {text!r} must be more than 0 and at most a year")
    return seconds


class CompositeStep(_Frozen):
    """One step of a composite: a name later steps use, a kind and its settings."""

    name: str = Field(pattern=STEP_NAME_PATTERN)
    kind: StepKind
    acts: bool | None = None
    rest: RestSettings | None = None
    service: ServiceSettings | None = None
    template: TemplateSettings | None = None
    script: ScriptSettings | None = None
    history: HistorySettings | None = None

    @model_validator(mode="after")
    def _settings(self) -> CompositeStep:
        _check_settings(self, self.kind, ("rest", "service", "template", "script", "history"))
        return self

    @property
    def settings(self) -> BaseModel:
        """The settings of this step's kind."""
        return _kind_settings(self, self.kind)

    @property
    def resolved_acts(self) -> bool:
        """Whether the step changes something (see :func:`default_acts`)."""
        return self.acts if self.acts is not None else default_acts(self.kind, self.settings)


class CompositeSettings(_Frozen):
    """Steps run in order; each one's result is ``steps.NAME`` to later steps and the result."""

    steps: list[CompositeStep] = Field(min_length=1, max_length=MAX_STEPS)
    result: ResultSpec | None = None

    @model_validator(mode="after")
    def _unique_names(self) -> CompositeSettings:
        names = [step.name for step in self.steps]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"step names must be unique; repeated: {repeated}")
        return self


class ToolDefinition(_Frozen):
    """One custom tool as stored, exported and offered to the model."""

    name: str = Field(pattern=NAME_PATTERN)
    description: str = Field(min_length=1, max_length=2000)
    parameters: JsonObject = Field(default_factory=lambda: dict(EMPTY_PARAMETERS))
    kind: Kind
    enabled: bool = True
    timeout: float = Field(default=10.0, ge=0.1, le=120.0)
    acts: bool | None = None
    secrets: list[Annotated[str, Field(pattern=SECRET_NAME_PATTERN)]] | None = Field(
        default=None, max_length=MAX_SECRETS
    )
    rest: RestSettings | None = None
    service: ServiceSettings | None = None
    template: TemplateSettings | None = None
    script: ScriptSettings | None = None
    history: HistorySettings | None = None
    composite: CompositeSettings | None = None

    @model_validator(mode="after")
    def _settings(self) -> ToolDefinition:
        _check_settings(self, self.kind, KINDS)
        return self

    @property
    def settings(self) -> BaseModel:
        """The settings of this tool's kind."""
        return _kind_settings(self, self.kind)

    @cached_property
    def secret_names(self) -> frozenset[str]:
        """The secrets the tool may use: those declared, else those its requests name.

        A definition without ``secrets:`` (every one saved before the field existed) uses the
        secrets its ``rest`` requests name literally (``secrets.NAME``, ``secrets['NAME']``).
        """
        if self.secrets is not None:
            return frozenset(self.secrets)
        return frozenset(
            name
            for _path, text, request in template_texts(self)
            if request
            for name in secret_references(text)
        )

    @property
    def resolved_acts(self) -> bool:
        """Whether calling the tool changes something; decides what a dry run sends."""
        if self.acts is not None:
            return self.acts
        if self.composite is not None:
            return any(step.resolved_acts for step in self.composite.steps)
        return default_acts(self.kind, self.settings)


def default_acts(kind: str, settings: BaseModel) -> bool:
    """A ``rest`` GET, ``template`` and ``history`` only read; everything else acts."""
    if isinstance(settings, RestSettings):
        return settings.method != "GET"
    return kind not in ("template", "history")


def _kind_settings(model: BaseModel, kind: str) -> BaseModel:
    """The settings ``model`` holds under ``kind`` (present once :func:`_check_settings` passed)."""
    value = getattr(model, kind)
    assert isinstance(value, BaseModel)
    return value


def _check_settings(model: BaseModel, kind: str, kinds: tuple[str, ...]) -> None:
    if getattr(model, kind) is None:
        raise ValueError(f"a '{kind}' tool needs its settings under '{kind}:'")
    others = [other for other in kinds if other != kind and getattr(model, other) is not None]
    if others:
        raise ValueError(f"settings for {others} do not belong to a '{kind}' tool")


def parse_definition(data: Mapping[str, JsonValue], *, reserved: Collection[str]) -> ToolDefinition:
    """Parse and check ``data``; raise CustomToolInvalid listing every problem with its path.

    ``reserved`` holds the built-in tool names a custom tool may not take.
    """
    if not isinstance(data, Mapping):
        raise CustomToolInvalid([("", "a definition is a mapping of fields")])
    try:
        definition = ToolDefinition.model_validate(dict(data))
    except ValidationError as err:
        problems = validation_problems(err)
        parsed = {path for path, _message in problems}
        later = [p for p in later_problems(data) if "parameters" not in parsed]
        raise CustomToolInvalid(problems + later) from err
    problems = []
    if definition.name in reserved:
        problems.append(("name", f"'{definition.name}' is the name of a built-in tool"))
    problems.extend(schema_problems(definition.parameters))
    problems.extend(secret_problems(template_texts(definition), definition.secrets))
    if problems:
        raise CustomToolInvalid(problems)
    return definition


def template_texts(definition: ToolDefinition) -> Iterator[tuple[str, str, bool]]:
    """Every string of the kind's settings: (path, text, whether it is part of a rest request)."""
    if definition.composite is not None:
        for index, step in enumerate(definition.composite.steps):
            yield from settings_texts(
                step.settings.model_dump(), f"composite.steps.{index}.{step.kind}", step.kind
            )
        if definition.composite.result is not None:
            yield from settings_texts(
                definition.composite.result.model_dump(), "composite.result", ""
            )
        return
    yield from settings_texts(definition.settings.model_dump(), definition.kind, definition.kind)


def reads_states(template: str) -> bool:
    """Whether a Home Assistant template reads ``states`` directly, not as ``states('x')``.

    ``states[x]``, ``states.lock`` and ``states | …`` can read any entity; the gate refuses the
    result when it read one that is not exposed, so the editor and the import warn.
    """
    return _READS_STATES.search(template) is not None


def template_warnings(definition: Mapping[str, JsonValue]) -> list[str]:
    """Warnings for a definition's Home Assistant templates (the plain mapping, saved or not)."""
    templates: list[tuple[str, JsonValue]] = []
    kind, template = definition.get("kind"), definition.get("template")
    if kind == "template" and isinstance(template, dict):
        templates.append(("template.template", template.get("template")))
    composite = definition.get("composite")
    if kind == "composite" and isinstance(composite, dict):
        for index, step in enumerate(list_of(composite.get("steps"))):
            step_template = step.get("template") if isinstance(step, dict) else None
            if isinstance(step_template, dict):
                where = f"composite.steps.{index}.template.template"
                templates.append((where, step_template.get("template")))
    return [
        f"{where}: the template reads 'states' directly; its result is refused whenever it "
        "reads an entity not exposed to Assist (use states('entity_id') on exposed entities)"
        for where, text in templates
        if isinstance(text, str) and reads_states(text)
    ]


def has_template(text: str) -> bool:
    """Whether ``text`` contains Jinja markup (so it is not a literal the user wrote)."""
    return _TEMPLATE_MARK.search(text) is not None
