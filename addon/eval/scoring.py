"""Whether a task passed, and which actions were wrong, exactly as the task format defines it.

A task passes only if every entity in ``expect`` ends as given, no other entity changed (its
state, or an attribute the fixture or any task's ``expect`` names for it), the reply is not a
failure, and, when answers are given, the reply holds one of them. A wrong action is an entity
outside ``expect`` that changed, or one in ``expect`` that changed to something else; each counts
once per task. The side-by-side harness in ``devtools/`` scores the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from addon.eval.tasks import HomeSpec, StateSpec, Task

TOLERANCE = 1.5
"""How far numbers may be off: "50% brightness" is 127 or 128 of 255, both right."""

Snapshot = Mapping[str, tuple[str, Mapping[str, Any]]]
"""Every entity's state and attributes at one moment."""


@dataclass(frozen=True, slots=True)
class Score:
    """The verdict on one task."""

    passed: bool
    wrong_actions: tuple[str, ...]
    """The entities acted on wrongly, each once."""
    problems: tuple[str, ...]
    """Why it failed, one line each, for the results table."""


def compared_attributes(home: HomeSpec, tasks: tuple[Task, ...]) -> dict[str, frozenset[str]]:
    """Per entity, the attributes whose change counts: named in the fixture or any expect."""
    named: dict[str, set[str]] = {e.entity_id: set(e.attributes) for e in home.entities}
    for task in tasks:
        for entity_id, spec in task.expect.items():
            named.setdefault(entity_id, set()).update(spec.attributes)
    return {entity_id: frozenset(keys) for entity_id, keys in named.items()}


def same(expected: Any, actual: Any) -> bool:
    """Numbers within :data:`TOLERANCE` (numeric text too), everything else exactly."""
    left, right = _number(expected), _number(actual)
    if left is not None and right is not None:
        return abs(left - right) <= TOLERANCE
    if isinstance(expected, list | tuple) and isinstance(actual, list | tuple):
        return len(expected) == len(actual) and all(map(same, expected, actual))
    return bool(expected == actual)


def score(
    task: Task,
    *,
    before: Snapshot,
    after: Snapshot,
    compared: Mapping[str, frozenset[str]],
    reply: str,
    failed: bool,
) -> Score:
    """Judge one task from the home before and after its sentence and the reply it got."""
    problems: list[str] = []
    wrong: list[str] = []
    for entity_id in sorted(set(before) | set(after)):
        old, new = before.get(entity_id), after.get(entity_id)
        keys = compared.get(entity_id, frozenset())
        changed = _changed(old, new, keys)
        spec = task.expect.get(entity_id)
        if spec is None:
            if changed:
                wrong.append(entity_id)
                problems.append(f"{entity_id} changed: {_describe(new, keys)}")
            continue
        mismatch = _mismatch(spec, new)
        if mismatch:
            problems.append(f"{entity_id}: {mismatch}")
            if changed:
                wrong.append(entity_id)
    if failed:
        problems.append("the reply was a failure")
    if task.answer is not None:
        said = reply.casefold()
        if not any(answer.casefold() in said for answer in task.answer):
            problems.append(f"the reply holds none of: {', '.join(task.answer)}")
    return Score(passed=not problems, wrong_actions=tuple(wrong), problems=tuple(problems))


def _changed(
    old: tuple[str, Mapping[str, Any]] | None,
    new: tuple[str, Mapping[str, Any]] | None,
    keys: frozenset[str],
) -> bool:
    if old is None or new is None:
        return old is not new
    if old[0] != new[0]:
        return True
    return any(not same(old[1].get(key), new[1].get(key)) for key in keys)


def _mismatch(spec: StateSpec, new: tuple[str, Mapping[str, Any]] | None) -> str:
    if new is None:
        return "has no state"
    state, attributes = new
    wrong: list[str] = []
    if spec.state is not None and not same(spec.state, state):
        wrong.append(f"state is {state!r}, expected {spec.state!r}")
    for key, value in spec.attributes.items():
        if not same(value, attributes.get(key)):
            wrong.append(f"{key} is {attributes.get(key)!r}, expected {value!r}")
    return "; ".join(wrong)


def _describe(new: tuple[str, Mapping[str, Any]] | None, keys: frozenset[str]) -> str:
    if new is None:
        return "removed"
    shown = ", ".join(f"{key}={new[1].get(key)!r}" for key in sorted(keys))
    return f"state {new[0]!r}" + (f" ({shown})" if shown else "")


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None
