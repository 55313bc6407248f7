"""Whether a task passed, and which actions were wrong, exactly as the task format defines it.

A task passes only if every entity in ``expect`` ends as given, no other entity changed (its
state, or an attribute the fixture or any task's ``expect`` names for it), the reply is not a
failure, and, when answers are given, the reply holds one of them. A wrong action is an entity
outside ``expect`` that changed, or one in ``expect`` that changed to something else; each counts
once per task. This is the one scorer: the side-by-side harness in ``devtools/`` uses it too, so
the product's evaluation and the comparison with Home Assistant's agent cannot drift apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeIs

from addon.eval.tasks import AutomationSpec, HomeSpec, StateSpec, Task
from addon.text import JsonValue

BRIGHTNESS_TOLERANCE = 1.5
"""Brightness is 0-255 set from a percentage: "50% brightness" is 127 or 128 by rounding."""
RELATIVE_TOLERANCE = 0.012
"""Other numbers within 1.2% of the expected value, so a fan at 33 is its 33.33 step ..."""
ABSOLUTE_TOLERANCE = 0.011
"""... and at least this, while a volume of 0.4 is not 0.6 and a thermostat at 21 is not 22."""


@dataclass(frozen=True, slots=True)
class EntityView:
    """One entity's state and attributes at one moment, as Home Assistant shows them."""

    state: str
    attributes: Mapping[str, JsonValue]


Snapshot = Mapping[str, EntityView]
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


def same(expected: object, actual: object, name: str = "") -> bool:
    """Numbers within :func:`tolerance`, sequences and mappings item by item, the rest exactly."""
    if _is_number(expected) and _is_number(actual):
        return abs(float(expected) - float(actual)) <= tolerance(name, float(expected))
    if isinstance(expected, list | tuple) and isinstance(actual, list | tuple):
        return len(expected) == len(actual) and all(
            same(left, right, name) for left, right in zip(expected, actual, strict=True)
        )
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        return expected.keys() == actual.keys() and all(
            same(value, actual[key], key) for key, value in expected.items()
        )
    return bool(expected == actual)


def tolerance(name: str, expected: float) -> float:
    """How far a number in the attribute ``name`` may be from ``expected`` and still be it."""
    if name == "brightness":
        return BRIGHTNESS_TOLERANCE
    return max(ABSOLUTE_TOLERANCE, RELATIVE_TOLERANCE * abs(expected))


def score(
    task: Task,
    *,
    before: Snapshot,
    after: Snapshot,
    compared: Mapping[str, frozenset[str]],
    reply: str,
    failed: bool,
    whole_words: bool = False,
) -> Score:
    """Judge one task from the home before and after its sentence and the reply it got.

    ``whole_words``: an answer counts only as whole words of the reply ("7" is not in "17" or
    "7.5"), as the side-by-side harness's questions section scores them.
    """
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
                problems.append(f"{entity_id} changed: {_describe(old, new, keys)}")
            continue
        mismatch = _mismatch(spec, new)
        if mismatch:
            problems.append(f"{entity_id}: {mismatch}")
            if changed:
                wrong.append(entity_id)
    if failed:
        problems.append("the reply was a failure")
    if task.answer is not None and not holds_answer(reply, task.answer, whole_words=whole_words):
        problems.append(f"the reply holds none of: {', '.join(task.answer)}")
    return Score(passed=not problems, wrong_actions=tuple(wrong), problems=tuple(problems))


def holds_answer(reply: str, answers: Sequence[str], *, whole_words: bool = False) -> bool:
    """Whether ``reply`` holds one of ``answers``, ignoring case (as whole words, if asked).

    A whole word is not part of a longer word or number: "7" is in "it is 7 °C" but not in
    "17" or "7.5", and "on" is not in "front".
    """
    said = reply.casefold()
    if not whole_words:
        return any(answer.casefold() in said for answer in answers)
    return any(
        re.search(rf"(?<![\w])(?<!\d[.,]){re.escape(answer.casefold())}(?![\w])(?![.,]\d)", said)
        for answer in answers
    )


def _changed(old: EntityView | None, new: EntityView | None, keys: frozenset[str]) -> bool:
    if old is None or new is None:
        return old is not new
    if old.state != new.state:
        return True
    return any(not same(old.attributes.get(key), new.attributes.get(key), key) for key in keys)


def _mismatch(spec: StateSpec, new: EntityView | None) -> str:
    if new is None:
        return "has no state"
    wrong: list[str] = []
    if spec.state is not None and spec.state != new.state:
        wrong.append(f"state is {new.state!r}, expected {spec.state!r}")
    for key, value in spec.attributes.items():
        actual = new.attributes.get(key)
        if not same(value, actual, key):
            wrong.append(f"{key} is {actual!r}, expected {value!r}")
    return "; ".join(wrong)


def _describe(old: EntityView | None, new: EntityView | None, keys: frozenset[str]) -> str:
    if new is None:
        return "removed"
    if old is None:
        return f"appeared as {new.state!r}"
    parts = [f"state {old.state!r} -> {new.state!r}"] if old.state != new.state else []
    parts += [
        f"{key} {old.attributes.get(key)!r} -> {new.attributes.get(key)!r}"
        for key in sorted(keys)
        if not same(old.attributes.get(key), new.attributes.get(key), key)
    ]
    return ", ".join(parts)


def _is_number(value: object) -> TypeIs[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def automation_problems(
    expected: AutomationSpec | None, drafted: Sequence[Mapping[str, JsonValue]]
) -> list[str]:
    """Why the drafted automations miss what the task expects; empty when one has it all.

    Each expected trigger, condition and action must be part of one of the draft's (see
    :class:`~addon.eval.tasks.AutomationSpec`); no draft at all is a problem of its own.
    """
    if expected is None:
        return []
    if not drafted:
        return ["no automation was drafted"]
    best: list[str] | None = None
    for config in drafted:
        missing = [
            f"the draft has no {part[:-1]} like {_compact(item)}"
            for part in ("triggers", "conditions", "actions")
            for item in getattr(expected, part)
            if not any(_contains(got, item) for got in _listed(config.get(part)))
        ]
        if best is None or len(missing) < len(best):
            best = missing
    return best or []


def _listed(value: JsonValue | None) -> list[JsonValue]:
    """A draft's triggers, conditions or actions: a list, or none (nothing else holds an item)."""
    return value if isinstance(value, list) else []


def _contains(got: object, expected: object) -> bool:
    """Whether ``got`` has every key and value ``expected`` names (lists: each item somewhere)."""
    if isinstance(expected, Mapping):
        return isinstance(got, Mapping) and all(
            key in got and _contains(got[key], value) for key, value in expected.items()
        )
    if isinstance(expected, list):
        items = got if isinstance(got, list) else [got]
        return all(any(_contains(have, want) for have in items) for want in expected)
    if isinstance(got, list):
        return any(_contains(have, expected) for have in got)
    return bool(_plain(got) == _plain(expected))


_TIME = re.compile(r"^\d{1,2}:\d{2}$")


def _plain(value: object) -> object:
    """A value as compared: text in lower case, ``7:00`` as ``07:00:00``."""
    if isinstance(value, str):
        text = value.strip().lower()
        if _TIME.match(text):
            hours, minutes = text.split(":")
            return f"{int(hours):02d}:{minutes}:00"
        return text
    return value


def _compact(item: Mapping[str, JsonValue]) -> str:
    return json.dumps(item, sort_keys=True, ensure_ascii=False)
