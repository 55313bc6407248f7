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
from typing import Any

import yaml

from addon.eval.suite import exposed_home
from addon.home.model.live import HomeModel
from addon.text import JsonObject

_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)?")
SAVED_TAG = "saved"


@dataclass(frozen=True, slots=True)
class TurnFacts:
    """What a draft is written from: the stored turn's words, states and tool results."""

    sentence: str
    reply: str
    states: Mapping[str, Any] | None
    outcome_detail: Mapping[str, Any]
    tool_results: Sequence[Mapping[str, Any]]


def draft_task(turn: TurnFacts, home: HomeModel | None) -> JsonObject:
    """The task a turn amounts to, as a task file writes it."""
    task: JsonObject = {"sentence": turn.sentence}
    states = turn.states or {}
    before: Mapping[str, Any] = states.get("before") or {}
    after: Mapping[str, Any] = states.get("after") or {}
    if before:
        checked = {
            str(entry.get("entity_id")): str(entry["actual"])
            for entry in turn.outcome_detail.get("entities", [])
            if isinstance(entry, dict) and entry.get("actual") is not None
        }
        task["setup"] = {entity_id: dict(state) for entity_id, state in before.items()}
        expect: JsonObject = {}
        for entity_id in before:
            if entity_id in checked:
                expect[entity_id] = {"state": checked[entity_id]}
            elif entity_id in after:
                expect[entity_id] = dict(after[entity_id])
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


def task_yaml(task: Mapping[str, Any]) -> str:
    """A task as the text the user edits."""
    return yaml.safe_dump(dict(task), sort_keys=False, allow_unicode=True, width=100)


def saved_suite(
    home: HomeModel, tasks: Iterable[tuple[int, Mapping[str, Any]]], *, name: str = "Your tests"
) -> tuple[str, list[int]]:
    """The task file of the saved tests ``(id, task)``, and the ids left out (gone entities)."""
    section = exposed_home(home, name=name)
    known = {str(entity["entity_id"]) for entity in section["entities"]}
    kept: list[JsonObject] = []
    left_out: list[int] = []
    for task_id, task in tasks:
        named = {*(task.get("setup") or {}), *(task.get("expect") or {})}
        if not named <= known:
            left_out.append(task_id)
            continue
        kept.append({"id": f"saved-{task_id}", **task})
    text = yaml.safe_dump(
        {"home": section, "tasks": kept}, sort_keys=False, allow_unicode=True, width=100
    )
    return text, left_out


def _reported(results: Iterable[Mapping[str, Any]]) -> list[str]:
    """Entity ids an intent's answer reported on (``data.success``), in order."""
    found: list[str] = []
    for result in results:
        data = result.get("data")
        for target in data.get("success", []) if isinstance(data, dict) else []:
            entity_id = target.get("id", "") if isinstance(target, dict) else ""
            if target.get("type") == "entity" and "." in entity_id:
                found.append(entity_id)
    return list(dict.fromkeys(found))
