"""Tests saved from turns: the draft "Save as test" offers, and the user's suite of them.

A draft is a task file's task written from a stored turn, for the user to edit before saving:
the sentence; as ``setup``, the states of the entities the turn acted on before it acted (as
the agent noted them, ``addon.agent.state_record``); as ``expect``, the states they ended in
(the outcome check's reading of the live home, else the virtual executor's); for a question
(a turn that acted on nothing) the numbers of the reply as the words the answer must hold, and
the entities its tools reported on, as they are now, as ``setup``.

The suite is the exposed home as it is now (``suite.exposed_home``) with the saved tasks; a
saved task naming an entity that is no longer exposed is left out, and said so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import yaml

from addon.eval.suite import exposed_home
from addon.home.model.live import HomeModel
from addon.text import JsonObject, JsonValue

_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)?")
SAVED_TAG = "saved"


@dataclass(frozen=True, slots=True)
class TurnFacts:
    """What a draft is written from: the stored turn's words, states and tool results."""

    sentence: str
    reply: str
    states: Mapping[str, JsonValue] | None
    outcome_detail: Mapping[str, JsonValue]
    tool_results: Sequence[Mapping[str, JsonValue]]


def _object(value: JsonValue | None) -> JsonObject:
    """``value`` if it is a JSON object, else empty (a part the stored turn does not have)."""
    return value if isinstance(value, dict) else {}


def _array(value: JsonValue | None) -> list[JsonValue]:
    """``value`` if it is a JSON array, else empty."""
    return value if isinstance(value, list) else []


def draft_task(turn: TurnFacts, home: HomeModel | None) -> JsonObject:
    """The task a turn amounts to, as a task file writes it."""
    task: JsonObject = {"sentence": turn.sentence}
    states = turn.states or {}
    before = _object(states.get("before"))
    after = _object(states.get("after"))
    if before:
        checked = {
            str(entry.get("entity_id")): str(entry["actual"])
            for entry in _array(turn.outcome_detail.get("entities"))
            if isinstance(entry, dict) and entry.get("actual") is not None
        }
        setup: JsonObject = {entity_id: dict(_object(state)) for entity_id, state in before.items()}
        task["setup"] = setup
        expect: JsonObject = {}
        for entity_id in before:
            if entity_id in checked:
                expect[entity_id] = {"state": checked[entity_id]}
            elif entity_id in after:
                expect[entity_id] = dict(_object(after[entity_id]))
        if expect:
            task["expect"] = expect
    else:
        involved = _reported(turn.tool_results)
        if home is not None and involved:
            task["setup"] = {
                entity_id: {"state": state.state}
                for entity_id in involved
                if (state := home.state(entity_id)) is not None
            }
        task["answer"] = list(dict.fromkeys(_NUMBER.findall(turn.reply)))
    task["tags"] = [SAVED_TAG]
    return task


def task_yaml(task: Mapping[str, JsonValue]) -> str:
    """A task as the text the user edits."""
    return yaml.safe_dump(dict(task), sort_keys=False, allow_unicode=True, width=100)


def saved_suite(
    home: HomeModel,
    tasks: Iterable[tuple[int, Mapping[str, JsonValue]]],
    *,
    name: str = "Your tests",
) -> tuple[str, list[int]]:
    """The task file of the saved tests ``(id, task)``, and the ids left out (gone entities)."""
    section = exposed_home(home, name=name)
    known = {str(_object(entity).get("entity_id")) for entity in _array(section["entities"])}
    kept: list[JsonObject] = []
    left_out: list[int] = []
    for task_id, task in tasks:
        named = {*_object(task.get("setup")), *_object(task.get("expect"))}
        if not named <= known:
            left_out.append(task_id)
            continue
        kept.append({"id": f"saved-{task_id}", **task})
    text = yaml.safe_dump(
        {"home": section, "tasks": kept}, sort_keys=False, allow_unicode=True, width=100
    )
    return text, left_out


def _reported(results: Iterable[Mapping[str, JsonValue]]) -> list[str]:
    """Entity ids an intent's answer reported on (``data.success``), in order."""
    found: list[str] = []
    for result in results:
        data = result.get("data")
        for target in _array(_object(data).get("success")):
            entity_id = target.get("id", "") if isinstance(target, dict) else ""
            if (
                isinstance(target, dict)
                and target.get("type") == "entity"
                and isinstance(entity_id, str)
                and "." in entity_id
            ):
                found.append(entity_id)
    return list(dict.fromkeys(found))
