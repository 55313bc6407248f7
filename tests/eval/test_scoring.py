"""Scoring as the task format defines it: pass, wrong action, answer, failure reply, tolerance."""

from __future__ import annotations

from collections.abc import Mapping

from addon.eval.scoring import EntityView, Score, compared_attributes, holds_answer, same, score
from addon.eval.tasks import Task, TaskFile, parse_task_file
from tests.eval.tasks import TASKS_YAML

FILE: TaskFile = parse_task_file(TASKS_YAML)
COMPARED = compared_attributes(FILE.home, FILE.tasks)
BEFORE = {
    "light.kitchen_ceiling": EntityView("off", {"brightness": None}),
    "switch.kettle": EntityView("off", {}),
    "lock.front_door": EntityView("locked", {}),
}
KETTLE_ON, DIM = FILE.tasks[1], FILE.tasks[2]


def _after(**changes: EntityView) -> dict[str, EntityView]:
    return {**BEFORE, **{key.replace("__", "."): value for key, value in changes.items()}}


def _judge(
    task: Task,
    after: Mapping[str, EntityView],
    *,
    reply: str = "Done",
    failed: bool = False,
    before: Mapping[str, EntityView] = BEFORE,
) -> Score:
    return score(task, before=before, after=after, compared=COMPARED, reply=reply, failed=failed)


def _with_task(text: str) -> Task:
    """The shared file with one more task appended (the fourth)."""
    return parse_task_file(TASKS_YAML + text).tasks[3]


def test_expected_change_alone_passes() -> None:
    """The kettle on and nothing else changed: a pass, no wrong action."""
    verdict = _judge(KETTLE_ON, _after(switch__kettle=EntityView("on", {})))
    assert verdict.passed
    assert verdict.wrong_actions == ()


def test_other_entity_changed_is_a_wrong_action() -> None:
    """Unlocking the door as well fails the task and counts one wrong action."""
    after = _after(switch__kettle=EntityView("on", {}), lock__front_door=EntityView("unlocked", {}))
    verdict = _judge(KETTLE_ON, after)
    assert not verdict.passed
    assert verdict.wrong_actions == ("lock.front_door",)


def test_brightness_within_tolerance_passes() -> None:
    """127 for "50%" is as right as 128; 126 is not."""
    assert _judge(DIM, _after(light__kitchen_ceiling=EntityView("on", {"brightness": 127}))).passed
    assert same(128, 126.5, "brightness")
    assert not same(128, 126, "brightness")


def test_expected_entity_changed_wrongly_is_a_wrong_action() -> None:
    """The light on at full brightness instead of half: failed, and a wrong action."""
    verdict = _judge(DIM, _after(light__kitchen_ceiling=EntityView("on", {"brightness": 255})))
    assert not verdict.passed
    assert verdict.wrong_actions == ("light.kitchen_ceiling",)


def test_unchanged_expected_entity_fails_without_a_wrong_action() -> None:
    """Doing nothing fails the task but acts on nothing wrongly."""
    verdict = _judge(KETTLE_ON, BEFORE, reply="OK")
    assert not verdict.passed
    assert verdict.wrong_actions == ()


def test_answer_must_be_in_the_reply() -> None:
    """A question passes when the reply holds one of the answers, whatever its case."""
    question = _with_task('  - sentence: is the front door locked\n    answer: [locked, "yes"]\n')
    assert _judge(question, BEFORE, reply="Yes, it is").passed
    assert not _judge(question, BEFORE, reply="No").passed


def test_failure_reply_fails_even_with_the_right_change() -> None:
    """A failure reply counts as a failure although the kettle went on."""
    verdict = _judge(
        KETTLE_ON,
        _after(switch__kettle=EntityView("on", {})),
        reply="Sorry, something went wrong",
        failed=True,
    )
    assert not verdict.passed
    assert verdict.wrong_actions == ()
    assert "the reply was a failure" in verdict.problems


def test_a_compared_attribute_change_is_a_wrong_action() -> None:
    """A brightness change nobody asked for counts, though the state stayed "on"."""
    before = {**BEFORE, "light.kitchen_ceiling": EntityView("on", {"brightness": 100})}
    after = {
        **before,
        "light.kitchen_ceiling": EntityView("on", {"brightness": 200}),
        "switch.kettle": EntityView("on", {}),
    }
    assert _judge(KETTLE_ON, after, before=before).wrong_actions == ("light.kitchen_ceiling",)


def test_states_compare_as_exact_strings() -> None:
    """A state of "21" is not the expected "20", though both read as numbers."""
    task = _with_task('  - sentence: set it\n    expect: {switch.kettle: {state: "20"}}\n')
    assert not _judge(task, _after(switch__kettle=EntityView("21", {}))).passed


def test_small_scales_are_not_swallowed_by_the_brightness_tolerance() -> None:
    """A volume of 0.4 is not 0.6, 21 degrees is not 22; a fan at 33 is its 33.33 step."""
    assert not same(0.6, 0.4, "volume_level")
    assert not same(22, 21, "temperature")
    assert same(33.33, 33, "percentage")
    assert same(128, 127, "brightness")


def test_sequences_and_mappings_compare_item_by_item() -> None:
    """A colour one step off by rounding is the same colour; a longer list is not the same."""
    assert same([255, 128, 0], [255, 127, 0], "rgb_color")
    assert same({"temperature": 21.0}, {"temperature": 21.1})
    assert not same([1, 2], [1, 2, 3])
    assert not same({"a": 1}, {"b": 1})


def test_whole_word_answers_are_not_found_inside_longer_numbers_or_words() -> None:
    """With whole words, "7" is not in "17" or "7.5" and "on" is not in "front"."""
    assert holds_answer("It is 7 °C outside", ["7"], whole_words=True)
    assert not holds_answer("It is 17 °C", ["7"], whole_words=True)
    assert not holds_answer("It is 7.5 °C", ["7"], whole_words=True)
    assert not holds_answer("the front door", ["on"], whole_words=True)
    assert holds_answer("No, closed", ["no,"], whole_words=True)
    assert holds_answer("Draußen sind es 21,5 Grad", ["21,5"], whole_words=True)
