"""Scoring as the task format defines it: pass, wrong action, answer, failure reply."""

from __future__ import annotations

from typing import Any

from addon.eval.scoring import compared_attributes, same, score
from addon.eval.tasks import TaskFile, parse_task_file
from tests.eval.tasks import TASKS_YAML

FILE: TaskFile = parse_task_file(TASKS_YAML)
COMPARED = compared_attributes(FILE.home, FILE.tasks)
BEFORE: dict[str, tuple[str, dict[str, Any]]] = {
    "light.kitchen_ceiling": ("off", {"brightness": None}),
    "switch.kettle": ("off", {}),
    "lock.front_door": ("locked", {}),
}


def _after(**changes: tuple[str, dict[str, Any]]) -> dict[str, tuple[str, dict[str, Any]]]:
    return {**BEFORE, **{key.replace("__", "."): value for key, value in changes.items()}}


def test_expected_change_alone_passes() -> None:
    """The kettle on and nothing else changed: a pass, no wrong action."""
    verdict = score(
        FILE.tasks[1],
        before=BEFORE,
        after=_after(switch__kettle=("on", {})),
        compared=COMPARED,
        reply="Turned on the switch",
        failed=False,
    )
    assert verdict.passed
    assert verdict.wrong_actions == ()


def test_other_entity_changed_is_a_wrong_action() -> None:
    """Unlocking the door as well fails the task and counts one wrong action."""
    verdict = score(
        FILE.tasks[1],
        before=BEFORE,
        after=_after(switch__kettle=("on", {}), lock__front_door=("unlocked", {})),
        compared=COMPARED,
        reply="Done",
        failed=False,
    )
    assert not verdict.passed
    assert verdict.wrong_actions == ("lock.front_door",)


def test_brightness_within_tolerance_passes() -> None:
    """127 for "50%" is as right as 128."""
    verdict = score(
        FILE.tasks[2],
        before=BEFORE,
        after=_after(light__kitchen_ceiling=("on", {"brightness": 127})),
        compared=COMPARED,
        reply="Brightness set",
        failed=False,
    )
    assert verdict.passed
    assert same(128, 126.5)
    assert not same(128, 126)


def test_expected_entity_changed_wrongly_is_a_wrong_action() -> None:
    """The light on at full brightness instead of half: failed, and a wrong action."""
    verdict = score(
        FILE.tasks[2],
        before=BEFORE,
        after=_after(light__kitchen_ceiling=("on", {"brightness": 255})),
        compared=COMPARED,
        reply="Done",
        failed=False,
    )
    assert not verdict.passed
    assert verdict.wrong_actions == ("light.kitchen_ceiling",)


def test_unchanged_expected_entity_fails_without_a_wrong_action() -> None:
    """Doing nothing fails the task but acts on nothing wrongly."""
    verdict = score(
        FILE.tasks[1], before=BEFORE, after=BEFORE, compared=COMPARED, reply="OK", failed=False
    )
    assert not verdict.passed
    assert verdict.wrong_actions == ()


def test_answer_must_be_in_the_reply() -> None:
    """A question passes when the reply holds one of the answers, whatever its case."""
    question = parse_task_file(
        TASKS_YAML + '  - sentence: is the front door locked\n    answer: [locked, "yes"]\n'
    ).tasks[3]
    right = score(
        question, before=BEFORE, after=BEFORE, compared=COMPARED, reply="Yes, it is", failed=False
    )
    wrong = score(
        question, before=BEFORE, after=BEFORE, compared=COMPARED, reply="No", failed=False
    )
    assert right.passed
    assert not wrong.passed


def test_failure_reply_fails_even_with_the_right_change() -> None:
    """A failure reply counts as a failure although the kettle went on."""
    verdict = score(
        FILE.tasks[1],
        before=BEFORE,
        after=_after(switch__kettle=("on", {})),
        compared=COMPARED,
        reply="Sorry, something went wrong",
        failed=True,
    )
    assert not verdict.passed
    assert "the reply was a failure" in verdict.problems
