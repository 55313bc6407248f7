"""The side-by-side harness on a small home, with the real Home Assistant and Home Agent."""

from __future__ import annotations

import asyncio

import pytest
import yaml

from devtools.side_by_side import AGENTS, HA, OURS, HomeResult, TaskOutcome, run_files

# The harness itself; bench/local_accuracy.py runs it on both releases (docs/DECISIONS.md).
pytestmark = [pytest.mark.homeassistant, pytest.mark.newest_ha_only]

HOME = {
    "name": "Tiny flat",
    "language": "en",
    "areas": [{"id": "kitchen", "name": "Kitchen"}, {"id": "hall", "name": "Hall"}],
    "entities": [
        {"entity_id": "light.kitchen", "name": "Kitchen light", "area": "kitchen", "state": "off"},
        {"entity_id": "light.hall", "name": "Hall light", "area": "hall", "state": "off"},
        {"entity_id": "lock.front_door", "name": "Front door", "area": "hall", "state": "locked"},
    ],
}
TASKS = [
    {
        "id": "pass",
        "sentence": "turn on the kitchen light",
        "expect": {"light.kitchen": {"state": "on"}},
    },
    {"id": "failure-reply", "sentence": "tell me a poem about the moon"},
    # The agents do what was said; the file expects another light: the kitchen one is wrong.
    {
        "id": "wrong-action",
        "sentence": "turn on the kitchen light",
        "expect": {"light.hall": {"state": "on"}},
    },
    {
        "id": "reset",
        "sentence": "unlock the front door",
        "setup": {"lock.front_door": {"state": "unlocked"}},
        "expect": {"lock.front_door": {"state": "unlocked"}},
    },
    # A question both releases' built-in agents answer (2026.10's intents ask "is {name}
    # locked" no more).
    {"id": "question", "sentence": "is the hall light on", "answer": ["no", "is off", "not on"]},
]


@pytest.fixture(scope="module")
def result(ha_version: str, tmp_path_factory: pytest.TempPathFactory) -> HomeResult:
    """One run of the tiny home through both agents (on its own loop), shared by the tests."""
    path = tmp_path_factory.mktemp("side-by-side") / "tiny.yaml"
    path.write_text(yaml.safe_dump({"home": HOME, "tasks": TASKS}), "utf-8")
    run = asyncio.run(run_files([path], tmp_path_factory.mktemp("work"), version=ha_version))
    return run.homes[0]


def outcome(result: HomeResult, agent: str, task_id: str) -> TaskOutcome:
    return next(o for o in result.of(agent) if o.task.id == task_id)


@pytest.mark.parametrize("agent", AGENTS)
def test_a_carried_out_command_passes(result: HomeResult, agent: str) -> None:
    """Both agents turn the kitchen light on, nothing else: a pass with no wrong action."""
    score = outcome(result, agent, "pass").score
    assert (score.passed, score.wrong_actions) == (True, ())


@pytest.mark.parametrize("agent", AGENTS)
def test_a_failure_reply_fails(result: HomeResult, agent: str) -> None:
    """A sentence neither agent can do locally is answered with a failure, and fails."""
    found = outcome(result, agent, "failure-reply")
    assert found.reply.failed
    assert (found.score.passed, found.score.wrong_actions) == (False, ())


@pytest.mark.parametrize("agent", AGENTS)
def test_a_change_not_expected_is_a_wrong_action(result: HomeResult, agent: str) -> None:
    """The kitchen light came on where the hall light was expected: one wrong action."""
    score = outcome(result, agent, "wrong-action").score
    assert (score.passed, score.wrong_actions) == (False, ("light.kitchen",))


@pytest.mark.parametrize("agent", AGENTS)
def test_setup_applies_before_the_sentence(result: HomeResult, agent: str) -> None:
    """The setup unlocked the door first; unlocking it again changes nothing wrong."""
    score = outcome(result, agent, "reset").score
    assert score.wrong_actions == ()


def test_home_assistant_answers_the_question(result: HomeResult) -> None:
    """Home Assistant's own agent answers "is the hall light on" with no."""
    assert outcome(result, HA, "question").score.passed


def test_both_agents_ran_every_task_after_a_reset(result: HomeResult) -> None:
    """Each task ran once per agent, and the home was reset in between (the pass still passes)."""
    assert [len(result.of(agent)) for agent in (OURS, HA)] == [len(TASKS), len(TASKS)]
    assert result.tally(HA).wrong_actions == result.tally(OURS).wrong_actions == 1
