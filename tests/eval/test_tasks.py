"""The task file parser: what it accepts, and the problems it names."""

from __future__ import annotations

from pathlib import Path

import pytest

from addon.errors import TaskFileInvalid
from addon.eval.home import build_model, initial_states
from addon.eval.tasks import load_task_file, parse_task_file
from tests.eval.tasks import TASKS_YAML, write_tasks


def test_parses_home_and_tasks_with_default_ids() -> None:
    """Tasks without an id are named after the file and their number, counted from 1."""
    text = TASKS_YAML.replace("  - id: kettle-on\n    sentence", "  - sentence")
    parsed = parse_task_file(text, name="flat")
    assert [task.id for task in parsed.tasks] == ["light-on", "flat-2", "dim"]
    assert parsed.home.language == "en"


def test_unquoted_off_is_read_as_off() -> None:
    """YAML's false for an unquoted ``off`` state is taken back as "off"."""
    parsed = parse_task_file(TASKS_YAML)
    assert parsed.home.entity("switch.kettle") is not None
    assert parsed.home.entity("switch.kettle").state == "off"  # type: ignore[union-attr]


def test_unknown_entity_in_expect_is_named() -> None:
    """An expect naming an entity the home lacks is refused with its place in the file."""
    text = TASKS_YAML.replace("expect: {switch.kettle:", "expect: {switch.kettel:")
    with pytest.raises(TaskFileInvalid) as raised:
        parse_task_file(text)
    assert ("tasks[1].expect.switch.kettel", "no such entity in the home") in raised.value.problems


def test_malformed_yaml_names_the_line() -> None:
    """Broken YAML is one problem saying where."""
    with pytest.raises(TaskFileInvalid, match=r"YAML \(line \d+\)"):
        parse_task_file("home:\n  entities: [\n")


def test_every_schema_problem_is_reported_at_once() -> None:
    """A missing sentence and an unknown key are both listed, each with its path."""
    text = TASKS_YAML + "  - sentense: typo\n"
    with pytest.raises(TaskFileInvalid) as raised:
        parse_task_file(text)
    paths = {path for path, _message in raised.value.problems}
    assert {"tasks[3].sentence", "tasks[3].sentense"} <= paths


def test_a_schema_problem_does_not_hide_an_unknown_entity() -> None:
    """A misspelt key in one task and an unknown entity in another come back together."""
    text = TASKS_YAML.replace("expect: {switch.kettle:", "expect: {switch.kettel:")
    with pytest.raises(TaskFileInvalid) as raised:
        parse_task_file(text + "  - sentense: typo\n")
    paths = {path for path, _message in raised.value.problems}
    assert {"tasks[3].sentense", "tasks[1].expect.switch.kettel"} <= paths


def test_home_may_be_a_file_beside_the_tasks(tmp_path: Path) -> None:
    """``home: flat_home.yaml`` is read relative to the task file."""
    home, tasks = TASKS_YAML.split("tasks:\n")
    home_body = "\n".join(line[2:] for line in home.splitlines()[1:])
    (tmp_path / "flat_home.yaml").write_text(home_body, encoding="utf-8")
    path = write_tasks(tmp_path, "home: flat_home.yaml\ntasks:\n" + tasks)
    assert load_task_file(path).home.name == "Flat on Elm Street"


def test_fixture_home_builds_a_model_with_names_areas_and_exposure() -> None:
    """The fixture becomes a HomeModel the agent matches names and areas in."""
    model = build_model(parse_task_file(TASKS_YAML).home)
    entity = model.entity("light.kitchen_ceiling")
    assert entity is not None
    assert entity.name == "Kitchen ceiling light"
    assert entity.area_id == "kitchen"
    assert model.areas["kitchen"].floor_id == "ground"
    assert model.is_exposed("lock.front_door")
    state = model.state("lock.front_door")
    assert state is not None
    assert state.attributes["supported_features"] == 1


def test_unquoted_on_and_off_in_a_home_file_and_an_expect(tmp_path: Path) -> None:
    """Unquoted off in a home file and on in an expect are those strings; ids count from 1."""
    (tmp_path / "home.yaml").write_text(
        "name: Tiny\nentities:\n  - {entity_id: light.a, state: off}\n", encoding="utf-8"
    )
    path = tmp_path / "tiny.yaml"
    path.write_text(
        "home: home.yaml\ntasks:\n  - {sentence: turn on a, expect: {light.a: {state: on}}}\n",
        encoding="utf-8",
    )
    loaded = load_task_file(path)
    assert loaded.home.entities[0].state == "off"
    assert (loaded.tasks[0].id, loaded.tasks[0].expect["light.a"].state) == ("tiny-1", "on")


def test_fixture_light_reads_as_the_harness_reads_it() -> None:
    """An off light's fixture brightness shows as None, as in HA; a light is a colour light."""
    home = parse_task_file(
        "home:\n  entities:\n"
        "    - {entity_id: light.lamp, state: 'off', attributes: {brightness: 200}}\n"
        "    - {entity_id: light.spot, state: 'on'}\n"
        "tasks: [{sentence: x}]\n"
    ).home
    states = initial_states(home)
    lamp, spot = states["light.lamp"][1], states["light.spot"][1]
    assert (lamp["brightness"], lamp["color_mode"]) == (None, None)
    assert spot["supported_color_modes"] == ["hs", "color_temp"]
    assert (spot["brightness"], spot["color_mode"]) == (255, "hs")
