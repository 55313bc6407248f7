"""Scoring one sentence: whether the home ended exactly as expected and the reply answered.

Pure functions over snapshots, so they are tested without Home Assistant. The rules are those of
the task format (docs/ARCHITECTURE.md, "Side-by-side harness"): a task passes only if every
expected entity ends as expected, nothing else changed, the reply is not a failure and, for
questions, the reply holds one of the answers. A wrong action is an entity that changed although
it should not have, or changed to something other than expected; each counts once per task.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from devtools.task_file import Expected, Task

BRIGHTNESS_TOLERANCE = 1.5
"""Brightness is 0-255 set from a percentage: "50% brightness" is 127 or 128 by rounding."""
RELATIVE_TOLERANCE = 0.012
"""Other numbers within 1.2% of the expected value (33 vs 33.33 for a fan step), at least 0.011,
so a thermostat at 21 fails when 22 was asked for, and a volume of 0.4 when 0.6 was."""
ABSOLUTE_FLOOR = 0.011
MISSING = "<missing>"


@dataclass(frozen=True, slots=True)
class EntityView:
    """One entity's state and attributes as ``GET /api/states`` shows them."""

    state: str
    attributes: Mapping[str, Any]


Snapshot = Mapping[str, EntityView]


@dataclass(frozen=True, slots=True)
class Reply:
    """What the agent said, and whether Home Assistant marked it a failure (``error``)."""

    text: str
    failed: bool


@dataclass(frozen=True, slots=True)
class Score:
    """The verdict on one task: pass or not, the wrong actions and every problem in words."""

    passed: bool
    wrong_actions: tuple[str, ...]
    problems: tuple[str, ...]


def same(expected: Any, actual: Any, name: str = "") -> bool:
    """Numbers within the tolerance, sequences and mappings item by item, anything else equal."""
    if _is_number(expected) and _is_number(actual):
        return abs(float(expected) - float(actual)) <= tolerance(name, float(expected))
    if isinstance(expected, list | tuple) and isinstance(actual, list | tuple):
        return len(expected) == len(actual) and all(map(same, expected, actual))
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        return expected.keys() == actual.keys() and all(
            same(value, actual[key]) for key, value in expected.items()
        )
    return bool(expected == actual)


def tolerance(name: str, expected: float) -> float:
    """How far a number named ``name`` may be from ``expected`` and still be the same."""
    if name == "brightness":
        return BRIGHTNESS_TOLERANCE
    return max(ABSOLUTE_FLOOR, RELATIVE_TOLERANCE * abs(expected))


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def changed(before: EntityView, after: EntityView, attributes: frozenset[str]) -> bool:
    """Whether the state, or one of the compared attributes, moved."""
    return before.state != after.state or not all(
        same(before.attributes.get(name), after.attributes.get(name), name) for name in attributes
    )


def mismatches(expected: Expected, after: EntityView) -> list[str]:
    """How ``after`` differs from what was expected (empty: as expected)."""
    problems: list[str] = []
    if expected.state is not None and expected.state != after.state:
        problems.append(f"state {after.state!r}, expected {expected.state!r}")
    for name, value in expected.attributes.items():
        actual = after.attributes.get(name)
        if not same(value, actual, name):
            problems.append(f"{name} {actual!r}, expected {value!r}")
    return problems


def score_task(
    task: Task,
    before: Snapshot,
    after: Snapshot,
    reply: Reply,
    compared: Mapping[str, frozenset[str]],
) -> Score:
    """Score one sentence from the home before and after it and the agent's reply."""
    missing = EntityView(MISSING, {})
    problems: list[str] = []
    wrong: list[str] = []
    for entity_id, attributes in compared.items():
        old, new = before.get(entity_id, missing), after.get(entity_id, missing)
        moved = changed(old, new, attributes)
        expected = task.expect.get(entity_id)
        if expected is None:
            if moved:
                wrong.append(entity_id)
                problems.append(f"{entity_id} changed: {_describe(old, new, attributes)}")
            continue
        differences = mismatches(expected, new)
        if differences:
            problems.append(f"{entity_id}: {'; '.join(differences)}")
            if moved:
                wrong.append(entity_id)
    if reply.failed:
        problems.append(f"failure reply: {reply.text!r}")
    if task.answer and not any(a.lower() in reply.text.lower() for a in task.answer):
        problems.append(f"reply {reply.text!r} holds none of {list(task.answer)}")
    return Score(passed=not problems, wrong_actions=tuple(wrong), problems=tuple(problems))


def _describe(old: EntityView, new: EntityView, attributes: frozenset[str]) -> str:
    parts = [f"state {old.state!r} -> {new.state!r}"] if old.state != new.state else []
    parts += [
        f"{name} {old.attributes.get(name)!r} -> {new.attributes.get(name)!r}"
        for name in sorted(attributes)
        if not same(old.attributes.get(name), new.attributes.get(name), name)
    ]
    return ", ".join(parts)
