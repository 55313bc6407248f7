"""Evaluation with the confirmation policy: a task answers the question (``confirm``).

Or scripts the answer with ``then_say``.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import yaml

from addon.config.settings import Options
from addon.errors import TaskFileInvalid
from addon.eval.runner import Evaluation, RunSettings
from addon.eval.suite import suite_yaml
from addon.eval.tasks import parse_task_file
from addon.home.model.live import HomeModel
from addon.local.matcher import LocalMatcher
from addon.store.database import Store
from addon.store.queries import confirmations_since
from addon.store.turns import ConversationRecords
from tests.eval.tasks import TASKS_YAML
from tests.fixtures.policy import default_policy

UNLOCK = """\
  - id: unlock-confirmed
    sentence: unlock the front door
    then_say: [yes]
    expect: {lock.front_door: {state: unlocked}}
  - id: unlock-unconfirmed
    sentence: unlock the front door
    expect: {lock.front_door: {state: unlocked}}
"""


async def test_then_say_yes_confirms_a_held_unlock(
    store: Store, local_matcher: LocalMatcher
) -> None:
    """The task that says "yes" after the question passes; the one that does not stays locked."""
    tasks_yaml = TASKS_YAML.split("tasks:\n")[0] + "tasks:\n" + UNLOCK
    task_file = parse_task_file(tasks_yaml, name="locks")
    evaluation = Evaluation(
        records=ConversationRecords(store),
        base_options=Options(),
        llm=None,
        local=local_matcher,
        confirmation=default_policy,
    )
    confirmed, unconfirmed = await evaluation.run(task_file, RunSettings(model="none"))
    assert (confirmed.passed, confirmed.reply) == (True, "Done.")
    assert unconfirmed.passed is False
    assert unconfirmed.reply == "Unlock the Front door? Say yes to confirm."


CONFIRMING = """\
  - id: unlock-confirm-yes
    sentence: unlock the front door
    confirm: yes
    expect: {lock.front_door: {state: unlocked}}
  - id: lock-confirm-yes
    sentence: lock the front door
    confirm: yes
    setup: {lock.front_door: {state: unlocked}}
    expect: {lock.front_door: {state: locked}}
"""


async def test_confirm_yes_answers_the_question_and_one_that_never_came_fails(
    store: Store, local_matcher: LocalMatcher
) -> None:
    """``confirm: yes`` answers the question as a person would, and records that it was asked.

    A task expecting a question that was never asked fails, saying so; an unexpected question
    fails the task (as in the test above) with its reason.
    """
    tasks_yaml = TASKS_YAML.split("tasks:\n")[0] + "tasks:\n" + CONFIRMING + UNLOCK
    task_file = parse_task_file(tasks_yaml, name="locks")
    evaluation = Evaluation(
        records=ConversationRecords(store),
        base_options=Options(),
        llm=None,
        local=local_matcher,
        confirmation=default_policy,
    )
    asked, not_asked, _then_say, unexpected = await evaluation.run(
        task_file, RunSettings(model="none")
    )
    assert (asked.passed, asked.asked, asked.reply) == (True, "yes", "Done.")
    assert not_asked.passed is False
    assert not_asked.asked is None
    assert "expects a question before acting" in not_asked.problems[0]
    assert unexpected.asked == "yes"
    assert "which the task does not expect" in unexpected.problems[0]


def test_confirm_takes_yes_or_a_pin_and_never_shows_the_pin() -> None:
    """``confirm: {pin: "4711"}`` is the PIN said; a PIN that is not digits is refused."""
    head = TASKS_YAML.split("tasks:\n")[0] + "tasks:\n"
    task_file = parse_task_file(
        head + "  - sentence: unlock the front door\n    confirm: {pin: '4711'}\n", name="pins"
    )
    assert task_file.tasks[0].confirm == "4711"
    with pytest.raises(TaskFileInvalid):
        parse_task_file(head + "  - sentence: x\n    confirm: {pin: 'abc'}\n", name="bad")
    with pytest.raises(TaskFileInvalid):
        parse_task_file(head + "  - sentence: x\n    confirm: maybe\n", name="bad")


def test_the_ready_made_suite_confirms_what_the_policy_holds(demo_model: HomeModel) -> None:
    """Opening a garage door asks first under the defaults: its task says ``confirm: yes``."""
    text = suite_yaml(demo_model, policy=default_policy())
    tasks = yaml.safe_load(text)["tasks"]
    opens = [task for task in tasks if task["tags"] == ["cover-open"]]
    garage = [task for task in opens if "garage" in task["sentence"].lower()]
    assert garage, opens
    assert all(task.get("confirm") == "yes" for task in garage)
    assert all("confirm" not in task for task in tasks if task["tags"] == ["light-on"])


async def test_an_evaluation_runs_questions_are_not_the_homes_on_the_dashboard(
    store: Store, local_matcher: LocalMatcher
) -> None:
    """The dashboard's "held for confirmation" counts the home's questions, not a run's."""
    tasks_yaml = TASKS_YAML.split("tasks:\n")[0] + "tasks:\n" + UNLOCK
    evaluation = Evaluation(
        records=ConversationRecords(store),
        base_options=Options(),
        llm=None,
        local=local_matcher,
        confirmation=default_policy,
    )
    await evaluation.run(parse_task_file(tasks_yaml, name="locks"), RunSettings(model="none"))
    await store.writer.flush()
    async with store.sessionmaker() as session:
        counts = await confirmations_since(session, datetime(2000, 1, 1, tzinfo=UTC))
    assert counts == {"held": 0, "confirmed": 0, "cancelled": 0, "expired": 0}
