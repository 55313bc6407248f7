"""The task file: a home fixture and the sentences to run against it (DOCS.md, "Task files").

The format is shared with the side-by-side harness in ``devtools/``, so a file written for one
runs in the other. Parsing is strict and reports every problem at once, each with its place in
the file (``tasks[3].expect.light.x``), as a :class:`~addon.errors.TaskFileInvalid`: a user who
pasted a file into the panel learns everything wrong with it in one round trip.

YAML 1.1 reads an unquoted ``off`` as false; states and answers take ``true``/``false`` back as
``"on"``/``"off"`` and numbers as their text, since that is what the writer meant.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)

from addon.errors import TaskFileInvalid
from addon.text import JsonObject, load_yaml

MAX_TASKS = 5000
"""More tasks than anyone reviews in one run; a bound so a pasted file cannot run for days."""

_ENTITY_ID = r"^[a-z0-9_]+\.[a-z0-9_]+$"


def _as_text(value: object) -> object:
    """YAML's booleans as Home Assistant's on/off, numbers as their text."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int | float):
        return str(value)
    return value


Text = Annotated[str, BeforeValidator(_as_text)]


def _as_said(value: object) -> object:
    """YAML 1.1's unquoted yes and no (read as booleans) as the words the writer meant."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value


Said = Annotated[str, BeforeValidator(_as_said), Field(min_length=1, max_length=200)]


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FloorSpec(_Strict):
    """A floor of the home."""

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    level: int | None = None
    aliases: list[str] = Field(default_factory=list)


class AreaSpec(_Strict):
    """An area, optionally on a floor."""

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    floor: str | None = None
    aliases: list[str] = Field(default_factory=list)


class DeviceSpec(_Strict):
    """A device (Home Assistant's device registry), optionally in an area."""

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    area: str | None = None


class EntitySpec(_Strict):
    """One entity, with its initial state; ``supported_features`` None means the usual set."""

    entity_id: str = Field(pattern=_ENTITY_ID)
    name: str | None = None
    area: str | None = None
    device: str | None = None
    aliases: list[str] = Field(default_factory=list)
    device_class: str | None = None
    exposed: bool = True
    state: Text
    attributes: JsonObject = Field(default_factory=dict)
    supported_features: int | None = Field(default=None, ge=0)

    @property
    def domain(self) -> str:
        """The part of the entity id before the dot."""
        return self.entity_id.partition(".")[0]


class HomeSpec(_Strict):
    """The home a task file runs against."""

    name: str = Field(default="Home", min_length=1)
    language: str = Field(default="en", pattern=r"^[A-Za-z]{2,3}([-_][A-Za-z0-9]+)*$")
    floors: list[FloorSpec] = Field(default_factory=list)
    areas: list[AreaSpec] = Field(default_factory=list)
    devices: list[DeviceSpec] = Field(default_factory=list)
    entities: list[EntitySpec] = Field(min_length=1)

    def entity(self, entity_id: str) -> EntitySpec | None:
        """The entity of that id, if the home has it."""
        return next((e for e in self.entities if e.entity_id == entity_id), None)


class StateSpec(_Strict):
    """A state and/or attributes: set by ``setup``, required by ``expect``."""

    state: Text | None = None
    attributes: JsonObject = Field(default_factory=dict)


class ConfirmPin(_Strict):
    """``confirm: {pin: "4711"}``: the question asks for a PIN, and this is it."""

    pin: str = Field(pattern=r"^\d{3,12}$")


class AutomationSpec(_Strict):
    """The automation a sentence should draft: triggers, conditions and actions it must have.

    Each listed item must be found in the draft, as a part of one of its items (keys and values
    given here; a time ``07:00`` is ``07:00:00``; one entity id matches a list holding it).
    """

    triggers: list[JsonObject] = Field(default_factory=list)
    conditions: list[JsonObject] = Field(default_factory=list)
    actions: list[JsonObject] = Field(default_factory=list)


class TaskSpec(_Strict):
    """One sentence, what to set first and what must hold after."""

    id: str | None = Field(default=None, min_length=1, max_length=200)
    sentence: str = Field(min_length=1, max_length=2000)
    setup: dict[str, StateSpec] = Field(default_factory=dict)
    expect: dict[str, StateSpec] = Field(default_factory=dict)
    answer: list[Text] | None = Field(default=None, min_length=1)
    tags: list[str] = Field(default_factory=list)
    then_say: list[Said] = Field(default_factory=list, max_length=5)
    """What the user says next in the same conversation ("yes" to a held action)."""
    confirm: Literal["yes"] | ConfirmPin | None = None
    """The sentence's action is held for confirmation: the runner expects the question and
    answers it as a person would ("yes", or the PIN); a question the task does not expect, or
    none where one is expected, fails the task."""

    automation: AutomationSpec | None = None
    """The sentence should draft this automation (``draft_automation``): nothing is created."""

    @field_validator("confirm", mode="before")
    @classmethod
    def _yes(cls, value: object) -> object:
        return "yes" if value is True else value


class _RawFile(_Strict):
    home: HomeSpec | str
    tasks: list[TaskSpec] = Field(min_length=1, max_length=MAX_TASKS)


class Task(_Strict):
    """A task with its id settled (given, or ``<file stem>-<number>`` counted from 1)."""

    id: str
    sentence: str
    setup: dict[str, StateSpec]
    expect: dict[str, StateSpec]
    answer: tuple[str, ...] | None
    tags: tuple[str, ...]
    then_say: tuple[str, ...] = ()
    confirm: str | None = None
    """What answers the expected question: "yes" or the PIN; None: no question is expected."""
    automation: AutomationSpec | None = None
    """The automation the sentence should draft, if it should draft one."""


class TaskFile(_Strict):
    """A parsed, checked task file: every reference in it resolves."""

    name: str
    home: HomeSpec
    tasks: tuple[Task, ...]


def load_task_file(path: Path) -> TaskFile:
    """Read and check the file at ``path``; a ``home`` given as a path is read beside it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise TaskFileInvalid([("", f"cannot read {path}: {err}")]) from err
    return parse_task_file(text, name=path.stem, base_dir=path.parent)


def parse_task_file(text: str, *, name: str = "tasks", base_dir: Path | None = None) -> TaskFile:
    """Parse task-file YAML; ``base_dir`` is where a ``home:`` path is looked up (None: refused)."""
    data = _yaml(text, "")
    try:
        raw = _RawFile.model_validate(data)
    except ValidationError as err:
        raise TaskFileInvalid(_problems(err) + _checks_of_what_parsed(data)) from err
    home = raw.home if isinstance(raw.home, HomeSpec) else _home_file(raw.home, base_dir)
    problems = _check_home(home) + _check_tasks(home, list(enumerate(raw.tasks)))
    if problems:
        raise TaskFileInvalid(problems)
    tasks = tuple(
        Task(
            id=task.id or f"{name}-{number}",
            sentence=task.sentence,
            setup=task.setup,
            expect=task.expect,
            answer=tuple(task.answer) if task.answer is not None else None,
            tags=tuple(task.tags),
            then_say=tuple(task.then_say),
            confirm=(task.confirm.pin if isinstance(task.confirm, ConfirmPin) else task.confirm),
            automation=task.automation,
        )
        for number, task in enumerate(raw.tasks, start=1)
    )
    duplicates = sorted({t.id for t in tasks if sum(u.id == t.id for u in tasks) > 1})
    if duplicates:
        raise TaskFileInvalid([("tasks", f"task ids used twice: {', '.join(duplicates)}")])
    return TaskFile(name=name, home=home, tasks=tasks)


def _yaml(text: str, where: str) -> object:
    try:
        return load_yaml(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err)
        raise TaskFileInvalid([(where, f"not valid YAML{line}: {problem}")]) from err


def _home_file(relative: str, base_dir: Path | None) -> HomeSpec:
    if base_dir is None:
        raise TaskFileInvalid(
            [("home", "a home given as a file path needs the task file on disk; inline it")]
        )
    path = (base_dir / relative).resolve()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise TaskFileInvalid([("home", f"cannot read {relative}: {err}")]) from err
    try:
        return HomeSpec.model_validate(_yaml(text, "home"))
    except ValidationError as err:
        raise TaskFileInvalid(_problems(err, prefix="home")) from err


WORDS = {
    "missing": "required, and missing",
    "extra_forbidden": "not a field here (misspelt?)",
}
"""Pydantic's messages for the commonest slips in a task file, in plainer words."""


def _problems(err: ValidationError, prefix: str = "") -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for error in err.errors():
        path = prefix
        for part in error["loc"]:
            if part in ("HomeSpec", "str"):
                continue  # the union's branch names say nothing to the user
            path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
        found.append((path, WORDS.get(error["type"], error["msg"])))
    return found


def _check_home(home: HomeSpec) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    for label, ids in (
        ("floors", [f.id for f in home.floors]),
        ("areas", [a.id for a in home.areas]),
        ("devices", [d.id for d in home.devices]),
        ("entities", [e.entity_id for e in home.entities]),
    ):
        twice = sorted({i for i in ids if ids.count(i) > 1})
        if twice:
            problems.append((f"home.{label}", f"ids used twice: {', '.join(twice)}"))
    floors = {f.id for f in home.floors}
    areas = {a.id for a in home.areas}
    devices = {d.id for d in home.devices}
    for i, area in enumerate(home.areas):
        if area.floor is not None and area.floor not in floors:
            problems.append((f"home.areas[{i}].floor", f"no floor {area.floor!r}"))
    for i, device in enumerate(home.devices):
        if device.area is not None and device.area not in areas:
            problems.append((f"home.devices[{i}].area", f"no area {device.area!r}"))
    for i, entity in enumerate(home.entities):
        if entity.area is not None and entity.area not in areas:
            problems.append((f"home.entities[{i}].area", f"no area {entity.area!r}"))
        if entity.device is not None and entity.device not in devices:
            problems.append((f"home.entities[{i}].device", f"no device {entity.device!r}"))
    return problems


def _checks_of_what_parsed(data: object) -> list[tuple[str, str]]:
    """The reference checks of the parts that did parse, when another part did not.

    So the Evaluate page lists every problem of a file at once, not the references' only after
    every field is fixed. An inline home that parses is checked, and so are the tasks that
    parse against it; a home given as a path is read only once the whole file parses.
    """
    if not isinstance(data, dict) or not isinstance(data.get("home"), dict):
        return []
    try:
        home = HomeSpec.model_validate(data["home"])
    except ValidationError:
        return []
    tasks: list[tuple[int, TaskSpec]] = []
    raw_tasks = data.get("tasks")
    for index, raw in enumerate(raw_tasks if isinstance(raw_tasks, list) else []):
        try:
            tasks.append((index, TaskSpec.model_validate(raw)))
        except ValidationError:
            continue  # its own problems are listed already
    return _check_home(home) + _check_tasks(home, tasks)


def _check_tasks(home: HomeSpec, tasks: list[tuple[int, TaskSpec]]) -> list[tuple[str, str]]:
    known = {e.entity_id for e in home.entities}
    problems: list[tuple[str, str]] = []
    for i, task in tasks:
        for part in ("setup", "expect"):
            for entity_id, spec in getattr(task, part).items():
                where = f"tasks[{i}].{part}.{entity_id}"
                if entity_id not in known:
                    problems.append((where, "no such entity in the home"))
                elif spec.state is None and not spec.attributes:
                    problems.append((where, "give a state or attributes"))
    return problems
