"""Scoring as the task format defines it: pass, wrong action, answer, failure reply."""

from __future__ import annotations

from addon.eval.scoring import EntityView, compared_attributes, same, score
from addon.eval.tasks import TaskFile, parse_task_file
from tests.eval.tasks import TASKS_YAML

FILE: TaskFile = parse_task_file(TASKS_YAML)
COMPARED = compared_attributes(FILE.home, FILE.tasks)
BEFORE = {
    "light.kitchen_ceiling": EntityView("off", {"brightness": None}),
    "switch.kettle": EntityView("off", {}),
    "lock.front_door": EntityView("locked", {}),
}


def _after(**changes: EntityView) -> dict[str, EntityView]:
    return {**BEFORE, **{key.replace("__", "."): value for key, value in changes.items()}}


def test_expected_change_alone_passes() -> None:
    """The kettle on and nothing else changed: a pass, no wrong action."""
    verdict = score(
        FILE.tasks[1],
        before=BEFORE,
        after=_after(switch__kettle=EntityView("on", {})),
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
        after=_after(
            switch__kettle=EntityView("on", {}), lock__front_door=EntityView("unlocked", {})
        ),
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
        after=_after(light__kitchen_ceiling=EntityView("on", {"brightness": 127})),
        compared=COMPARED,
        reply="Brightness set",
        failed=False,
    )
    assert verdict.passed
    assert same(128, 126.5, "brightness")
    assert not same(128, 126, "brightness")


def test_expected_entity_changed_wrongly_is_a_wrong_action() -> None:
    """The light on at full brightness instead of half: failed, and a wrong action."""
    verdict = score(
        FILE.tasks[2],
        before=BEFORE,
        after=_after(light__kitchen_ceiling=EntityView("on", {"brightness": 255})),
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
        after=_after(switch__kettle=EntityView("on", {})),
        compared=COMPARED,
        reply="Sorry, something went wrong",
        failed=True,
    )
    assert not verdict.passed
    assert verdict.wrong_actions == ()
    assert "the reply was a failure" in verdict.problems


def test_a_compared_attribute_change_is_a_wrong_action() -> None:
    """A brightness change nobody asked for counts, though the state stayed "on"."""
    before = {**BEFORE, "light.kitchen_ceiling": EntityView("on", {"brightness": 100})}
    after = {**before, "light.kitchen_ceiling": EntityView("on", {"brightness": 200})}
    verdict = score(
        FILE.tasks[1],
        before=before,
        after={**after, "switch.kettle": EntityView("on", {})},
        compared=COMPARED,
        reply="Done",
        failed=False,
    )
    assert verdict.wrong_actions == ("light.kitchen_ceiling",)


def test_states_compare_as_exact_strings() -> None:
    """A state of "21" is not the expected "20", though both read as numbers."""
    task = parse_task_file(
        TASKS_YAML + '  - sentence: set it\n    expect: {switch.kettle: {state: "20"}}\n'
    ).tasks[3]
    verdict = score(
        task,
        before=BEFORE,
        after=_after(switch__kettle=EntityView("21", {})),
        compared=COMPARED,
        reply="Done",
        failed=False,
    )
    assert not verdict.passed


def test_small_scales_are_not_swallowed_by_the_brightness_tolerance() -> None:
    """A volume of 0.4 is not 0.6, 21 degrees is not 22; a fan at 33 is its 33.33 step."""
    assert not same(0.6, 0.4, "volume_level")
    assert not same(22, 21, "temperature")
    assert same(33.33, 33, "percentage")
    assert same(128, 127, "brightness")


def test_sequences_and_mappings_compare_item_by_item() -> None:
    """A colour a rounding off is the same colour; a list of another length is not."""
    assert same([255, 128, 0], [255, 127, 0], "rgb_color")
    assert same({"temperature": 21.0}, {"temperature": 21.1})
    assert not same([1, 2], [1, 2, 3])
    assert not same({"a": 1}, {"b": 1})
