"""Evaluation with the confirmation policy: a task scripts the user's "yes" with ``then_say``."""

from __future__ import annotations

from addon.config.settings import Options
from addon.eval.runner import Evaluation, RunSettings
from addon.eval.tasks import parse_task_file
from addon.home.actions.confirmation import DEFAULT_ENTRIES, ConfirmationPolicy, PolicyEntry
from addon.local.matcher import LocalMatcher
from addon.store.database import Store
from addon.store.records import ConversationRecords
from tests.eval.tasks import TASKS_YAML

UNLOCK = """\
  - id: unlock-confirmed
    sentence: unlock the front door
    then_say: [yes]
    expect: {lock.front_door: {state: unlocked}}
  - id: unlock-unconfirmed
    sentence: unlock the front door
    expect: {lock.front_door: {state: unlocked}}
"""


def default_policy() -> ConfirmationPolicy:
    """The policy a new install starts with."""
    return ConfirmationPolicy.of(
        PolicyEntry(number, scope, target, actions)
        for number, (scope, target, actions) in enumerate(DEFAULT_ENTRIES, start=1)
    )


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
