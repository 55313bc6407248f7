"""Scoring a sentence of the side-by-side harness, and reading task files, without HA."""

from __future__ import annotations

from pathlib import Path

import pytest

from devtools.scoring import EntityView, Reply, same, score_task
from devtools.side_by_side import default_files
from devtools.task_file import Expected, Task, TaskFileError, load_task_file

OK = Reply("Turned on the light", failed=False)
COMPARED = {"light.kitchen": frozenset({"brightness"}), "lock.door": frozenset()}
BEFORE = {
    "light.kitchen": EntityView("off", {"brightness": None}),
    "lock.door": EntityView("locked", {}),
}


def task(expect: dict[str, Expected] | None = None, answer: tuple[str, ...] = ()) -> Task:
    return Task("t", "sentence", {}, expect or {}, answer, ())


def after(**changes: EntityView) -> dict[str, EntityView]:
    return {**BEFORE, **{key.replace("__", "."): value for key, value in changes.items()}}


def test_the_expected_change_alone_passes() -> None:
    """The light on at the expected brightness, nothing else moved: a pass."""
    expect = {"light.kitchen": Expected("on", {"brightness": 128})}
    home = after(light__kitchen=EntityView("on", {"brightness": 128}))
    score = score_task(task(expect), BEFORE, home, OK, COMPARED)
    assert (score.passed, score.wrong_actions) == (True, ())


def test_numbers_compare_within_the_tolerance() -> None:
    """127 for "50%" (expected 128) still passes; 120 does not."""
    expect = {"light.kitchen": Expected("on", {"brightness": 128})}
    near = after(light__kitchen=EntityView("on", {"brightness": 127}))
    far = after(light__kitchen=EntityView("on", {"brightness": 120}))
    assert score_task(task(expect), BEFORE, near, OK, COMPARED).passed
    assert not score_task(task(expect), BEFORE, far, OK, COMPARED).passed


def test_a_failure_reply_fails_even_when_the_home_is_right() -> None:
    """The state is as expected, but Home Assistant marked the reply an error."""
    expect = {"light.kitchen": Expected("on", {})}
    home = after(light__kitchen=EntityView("on", {"brightness": 255}))
    score = score_task(task(expect), BEFORE, home, Reply("Sorry", failed=True), COMPARED)
    assert not score.passed
    assert score.wrong_actions == ()


def test_an_unexpected_change_is_a_wrong_action() -> None:
    """Unlocking the door while turning on the light fails and counts one wrong action."""
    expect = {"light.kitchen": Expected("on", {})}
    home = after(
        light__kitchen=EntityView("on", {"brightness": 255}), lock__door=EntityView("unlocked", {})
    )
    score = score_task(task(expect), BEFORE, home, OK, COMPARED)
    assert (score.passed, score.wrong_actions) == (False, ("lock.door",))


def test_a_compared_attribute_change_is_a_wrong_action() -> None:
    """A brightness change nobody asked for counts, though the state stayed."""
    before = {**BEFORE, "light.kitchen": EntityView("on", {"brightness": 100})}
    home = {**before, "light.kitchen": EntityView("on", {"brightness": 200})}
    score = score_task(task(), before, home, OK, COMPARED)
    assert score.wrong_actions == ("light.kitchen",)


def test_an_expected_entity_changed_wrongly_is_a_wrong_action() -> None:
    """Asked for 50%, the light came on at full: a fail and a wrong action."""
    expect = {"light.kitchen": Expected("on", {"brightness": 128})}
    home = after(light__kitchen=EntityView("on", {"brightness": 255}))
    score = score_task(task(expect), BEFORE, home, OK, COMPARED)
    assert (score.passed, score.wrong_actions) == (False, ("light.kitchen",))


def test_an_expected_entity_left_alone_fails_without_a_wrong_action() -> None:
    """Nothing happened: the task fails, but nothing was done wrong."""
    expect = {"light.kitchen": Expected("on", {})}
    score = score_task(task(expect), BEFORE, BEFORE, OK, COMPARED)
    assert (score.passed, score.wrong_actions) == (False, ())


def test_a_question_needs_one_of_the_answers() -> None:
    """The reply must hold one answer, case-insensitively."""
    question = task(answer=("yes", "is locked"))
    assert score_task(question, BEFORE, BEFORE, Reply("Yes", False), COMPARED).passed
    assert not score_task(question, BEFORE, BEFORE, Reply("It is open", False), COMPARED).passed


def test_a_task_file_reads_yaml_booleans_as_states(tmp_path: Path) -> None:
    """``state: off`` unquoted is the state "off"; ids default to stem-index."""
    (tmp_path / "home.yaml").write_text(
        "name: Tiny\nentities:\n  - {entity_id: light.a, state: off}\n", "utf-8"
    )
    path = tmp_path / "tiny.yaml"
    path.write_text(
        "home: home.yaml\ntasks:\n  - {sentence: turn on a, expect: {light.a: {state: on}}}\n",
        "utf-8",
    )
    loaded = load_task_file(path)
    assert loaded.home["entities"][0]["state"] == "off"
    assert (loaded.tasks[0].id, loaded.tasks[0].expect["light.a"].state) == ("tiny-0", "on")


def test_a_task_naming_an_unknown_entity_is_refused(tmp_path: Path) -> None:
    """An expect for an entity the home lacks is a mistake in the file."""
    path = tmp_path / "bad.yaml"
    path.write_text(
        "home: {entities: [{entity_id: light.a}]}\n"
        "tasks: [{sentence: x, expect: {light.b: {state: 'on'}}}]\n",
        "utf-8",
    )
    with pytest.raises(TaskFileError, match=r"light\.b"):
        load_task_file(path)


def test_every_shipped_home_loads() -> None:
    """The homes under devtools/homes are valid task files: 6+ homes, 400+ sentences, German too."""
    files = [load_task_file(path) for path in default_files()]
    assert len(files) >= 6
    assert sum(len(f.tasks) for f in files) >= 400
    assert "de" in {f.language for f in files}


def test_small_scales_are_not_swallowed_by_the_brightness_tolerance() -> None:
    """A volume of 0.4 is not 0.6, a thermostat at 21 is not 22; a fan at 33 is its 33.33 step."""
    assert not same(0.6, 0.4, "volume_level")
    assert not same(22, 21, "temperature")
    assert same(33.33, 33, "percentage")
    assert same(128, 127, "brightness")
