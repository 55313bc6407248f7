"""Task files: a home fixture and the sentences to run against it (format: docs/ARCHITECTURE.md).

The side-by-side harness loads them here; the product's evaluation (``addon.eval``) reads the same
format. Values are normalised on the way in, so YAML's ``off`` (False) is the state ``"off"``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml


class TaskFileError(ValueError):
    """A task file that cannot be run; the message names the file and the entry."""


@dataclass(frozen=True, slots=True)
class Expected:
    """What one entity must be after a sentence (``state`` None: any state)."""

    state: str | None
    attributes: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Task:
    """One sentence, the setup before it, the changes it must make and the answer it must give."""

    id: str
    sentence: str
    setup: Mapping[str, Expected]
    expect: Mapping[str, Expected]
    answer: tuple[str, ...]
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TaskFile:
    """A home (the fixture mapping, as the synthetic_home integration reads it) and its tasks."""

    path: Path
    home: Mapping[str, Any]
    tasks: tuple[Task, ...]

    @property
    def name(self) -> str:
        """The home's name, else the file's stem."""
        return str(self.home.get("name") or self.path.stem)

    @property
    def language(self) -> str:
        """The language the sentences are in."""
        return str(self.home.get("language") or "en")

    @property
    def entity_ids(self) -> tuple[str, ...]:
        """Every fixture entity, in fixture order."""
        return tuple(str(spec["entity_id"]) for spec in self.home["entities"])

    def compared_attributes(self) -> dict[str, frozenset[str]]:
        """Per entity, the attributes a change of which counts: the fixture's and any expected."""
        names: dict[str, set[str]] = {
            str(spec["entity_id"]): set((spec.get("attributes") or {}).keys())
            for spec in self.home["entities"]
        }
        for task in self.tasks:
            for entity_id, expected in task.expect.items():
                names.setdefault(entity_id, set()).update(expected.attributes)
        return {entity_id: frozenset(attrs) for entity_id, attrs in names.items()}


def text_state(value: Any) -> str:
    """A state as Home Assistant shows it: YAML's booleans back to ``on``/``off``."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def load_task_file(path: Path) -> TaskFile:
    """Read and check one task file; ``home`` may be inline or a path relative to the file."""
    data = _yaml(path)
    home = data.get("home")
    if isinstance(home, str):
        home = _yaml(path.parent / home)
    if not isinstance(home, dict) or not isinstance(home.get("entities"), list):
        raise TaskFileError(f"{path}: 'home' must be a mapping with an 'entities' list")
    home = {**home, "entities": [_entity(path, spec) for spec in home["entities"]]}
    known = {spec["entity_id"] for spec in home["entities"]}
    raw_tasks = data.get("tasks") or []
    if not isinstance(raw_tasks, list):
        raise TaskFileError(f"{path}: 'tasks' must be a list")
    tasks = tuple(_task(path, index, raw, known) for index, raw in enumerate(raw_tasks))
    ids = [task.id for task in tasks]
    if len(ids) != len(set(ids)):
        raise TaskFileError(f"{path}: task ids repeat")
    return TaskFile(path=path, home=home, tasks=tasks)


def _yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text("utf-8"))
    except (OSError, yaml.YAMLError) as err:
        raise TaskFileError(f"{path}: {err}") from err
    if not isinstance(data, dict):
        raise TaskFileError(f"{path}: the top level must be a mapping")
    return data


def _entity(path: Path, spec: Any) -> dict[str, Any]:
    if not isinstance(spec, dict) or "." not in str(spec.get("entity_id", "")):
        raise TaskFileError(f"{path}: every entity needs an entity_id like light.kitchen: {spec}")
    return {**spec, "state": text_state(spec.get("state", "unknown"))}


def _changes(path: Path, where: str, raw: Any, known: set[str]) -> dict[str, Expected]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise TaskFileError(f"{path}: {where} must map entity ids to {{state, attributes}}")
    changes: dict[str, Expected] = {}
    for entity_id, change in raw.items():
        if entity_id not in known:
            raise TaskFileError(f"{path}: {where} names {entity_id}, which the home lacks")
        if not isinstance(change, dict):
            raise TaskFileError(f"{path}: {where}.{entity_id} must be {{state, attributes}}")
        state = change.get("state")
        changes[entity_id] = Expected(
            state=None if state is None else text_state(state),
            attributes=dict(change.get("attributes") or {}),
        )
    return changes


def _task(path: Path, index: int, raw: Any, known: set[str]) -> Task:
    if not isinstance(raw, dict) or not str(raw.get("sentence", "")).strip():
        raise TaskFileError(f"{path}: task {index} needs a sentence")
    task_id = str(raw.get("id") or f"{path.stem}-{index}")
    answer = raw.get("answer") or ()
    return Task(
        id=task_id,
        sentence=str(raw["sentence"]),
        setup=_changes(path, f"{task_id}.setup", raw.get("setup"), known),
        expect=_changes(path, f"{task_id}.expect", raw.get("expect"), known),
        answer=tuple(str(a) for a in ([answer] if isinstance(answer, str | int) else answer)),
        tags=tuple(str(tag) for tag in raw.get("tags") or ()),
    )
