"""Evaluation of drafted automations: a task names the triggers and actions the draft must have."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from addon.config.settings import Options
from addon.errors import TaskFileInvalid
from addon.eval.home import build_model
from addon.eval.runner import Evaluation, RunSettings, make_llm
from addon.eval.scoring import automation_problems
from addon.eval.suite import suite_yaml
from addon.eval.tasks import AutomationSpec, parse_task_file
from addon.store.database import Store
from addon.store.turns import ConversationRecords
from devtools.scripted_llm import ScriptedLLM
from tests.eval.tasks import TASKS_YAML
from tests.eval.test_confirmation import default_policy

DRAFTING = """\
  - id: kitchen-at-seven
    sentence: every weekday at seven turn on the kitchen ceiling light
    confirm: yes
    automation:
      triggers: [{trigger: time, at: "7:00"}]
      conditions: [{condition: time, weekday: [mon, fri]}]
      actions: [{action: light.turn_on, target: {entity_id: light.kitchen_ceiling}}]
"""
AT_SEVEN: dict[str, Any] = {
    "alias": "Kitchen at seven",
    "summary": "Every weekday at 7:00 it turns on the kitchen ceiling light.",
    "triggers": [{"trigger": "time", "at": "07:00:00"}],
    "conditions": [
        {"condition": "time", "weekday": ["mon", "tue", "wed", "thu", "fri"]},
    ],
    "actions": [
        {"action": "light.turn_on", "target": {"entity_id": ["light.kitchen_ceiling"]}},
    ],
}


@pytest.fixture
async def evaluation(store: Store, scripted_llm: ScriptedLLM) -> AsyncIterator[Evaluation]:
    """A model-only run on the scripted model, with the default confirmation policy."""
    options = Options(llm_base_url=scripted_llm.base_url, llm_model="scripted-model")
    llm = make_llm(options, "scripted-model")
    assert llm is not None
    yield Evaluation(
        records=ConversationRecords(store),
        base_options=options,
        llm=llm,
        local=None,
        confirmation=default_policy,
    )
    await llm.close()


def drafting_file() -> Any:
    return parse_task_file(TASKS_YAML.split("tasks:\n")[0] + "tasks:\n" + DRAFTING, name="auto")


async def test_a_draft_with_the_expected_trigger_and_action_passes(
    evaluation: Evaluation, scripted_llm: ScriptedLLM
) -> None:
    """The model drafts the seven o'clock automation; the question is answered; nothing acts."""
    scripted_llm.tool_calls(("draft_automation", AT_SEVEN))
    (result,) = await evaluation.run(
        drafting_file(), RunSettings(model="scripted-model", local_first=False)
    )
    assert result.problems == ()
    assert (result.passed, result.asked, result.reply) == (True, "yes", "Done.")


async def test_a_draft_with_another_time_fails_and_says_what_is_missing(
    evaluation: Evaluation, scripted_llm: ScriptedLLM
) -> None:
    """Eight o'clock is not seven: the task fails naming the trigger it did not find."""
    eight = AT_SEVEN | {"triggers": [{"trigger": "time", "at": "08:00:00"}]}
    scripted_llm.tool_calls(("draft_automation", eight))
    (result,) = await evaluation.run(
        drafting_file(), RunSettings(model="scripted-model", local_first=False)
    )
    assert result.passed is False
    assert result.problems == ('the draft has no trigger like {"at": "7:00", "trigger": "time"}',)


def test_no_draft_at_all_is_a_problem() -> None:
    """A task expecting an automation fails when the model drafted none."""
    spec = AutomationSpec(triggers=[{"trigger": "time"}])
    assert automation_problems(spec, []) == ["no automation was drafted"]


def test_an_automation_spec_with_unknown_keys_is_refused() -> None:
    """``automation`` takes triggers, conditions and actions only, like the rest of the file."""
    bad = DRAFTING.replace("      triggers:", "      trigger:")
    with pytest.raises(TaskFileInvalid):
        parse_task_file(TASKS_YAML.split("tasks:\n")[0] + "tasks:\n" + bad)


def test_the_ready_made_suite_drafts_a_light_automation() -> None:
    """The suite of a home with a light has a task drafting "every weekday at seven"."""
    task_file = parse_task_file(TASKS_YAML)
    text = suite_yaml(build_model(task_file.home), policy=default_policy())
    (task,) = [t for t in parse_task_file(text).tasks if t.automation is not None]
    assert task.sentence == "every weekday at seven turn on the Kitchen ceiling light"
    assert task.confirm == "yes"
    assert task.automation.actions == [
        {"action": "light.turn_on", "target": {"entity_id": "light.kitchen_ceiling"}}
    ]
