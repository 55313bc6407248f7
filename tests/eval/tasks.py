"""A small task file shared by the evaluation tests."""

from __future__ import annotations

from pathlib import Path

TASKS_YAML = """\
home:
  name: Flat on Elm Street
  language: en
  floors:
    - {id: ground, name: Ground floor, level: 0}
  areas:
    - {id: kitchen, name: Kitchen, floor: ground}
    - {id: hall, name: Hall, floor: ground}
  entities:
    - {entity_id: light.kitchen_ceiling, name: Kitchen ceiling light, area: kitchen, state: "off",
       attributes: {brightness: null}}
    - {entity_id: switch.kettle, name: Kettle, area: kitchen, state: off}
    - {entity_id: lock.front_door, name: Front door, area: hall, state: locked}
tasks:
  - id: light-on
    sentence: turn on the kitchen ceiling light
    expect: {light.kitchen_ceiling: {state: "on"}}
    tags: [name-only, light]
  - id: kettle-on
    sentence: turn on the kettle
    setup: {switch.kettle: {state: "off"}}
    expect: {switch.kettle: {state: "on"}}
  - id: dim
    sentence: set the kitchen ceiling light to 50%
    expect: {light.kitchen_ceiling: {state: "on", attributes: {brightness: 128}}}
"""


def write_tasks(directory: Path, text: str = TASKS_YAML) -> Path:
    """The task file written to ``directory``."""
    path = directory / "flat.yaml"
    path.write_text(text, encoding="utf-8")
    return path
