"""Timers and broadcasts: recognised locally, handed whole to Home Assistant's own agent.

Only Home Assistant can run a timer on the satellite that heard it, so the local path hands
those sentences over with the device they came from (the live hand-over is in
tests/ha/test_hand_over.py and, against the real Home Assistant, tests/wyoming). A timer's
command runs later inside Home Assistant, past our gate, so it is judged now.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from addon.agent.local_turn import LocalTurn, run_local_turn
from addon.agent.trace import TurnTrace
from addon.home.actions.confirmation import ConfirmingExecutor, Holds
from addon.home.actions.executor import HandedSentence
from addon.home.actions.virtual import VirtualExecutor
from addon.home.model.live import HomeModel
from addon.i18n.translations import messages_for
from addon.local.matcher import LocalMatcher
from addon.tools.base import ToolContext
from tests.fixtures.policy import default_policy
from tests.local.issue_home import english_home


@pytest.fixture(scope="module")
def matcher() -> LocalMatcher:
    """Home Assistant's English sentences, compiled once for this module."""
    built = LocalMatcher("en")
    built.prepare()
    return built


def default_holds() -> Holds:
    """The product's default confirmation policy (locks' unlock, garage doors' open...)."""
    return Holds(default_policy())


async def say(
    matcher: LocalMatcher, home: HomeModel, text: str, executor: VirtualExecutor
) -> LocalTurn | None:
    """``text`` from the hall satellite, with a model configured, on the default policy."""
    holds = default_holds()
    context = ToolContext(
        home=home,
        executor=ConfirmingExecutor(executor, holds),
        holds=holds,
        language="en",
        now=datetime.now(UTC),
        device_id="satellite-hall",
        dry_run=True,
    )
    return await run_local_turn(matcher, text, context, TurnTrace(), fall_through=True)


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("set a timer for 5 minutes", "HassStartTimer"),
        ("cancel my timer", "HassCancelTimer"),
        ("how much time is left on my timer", "HassTimerStatus"),
        ("broadcast dinner is ready", "HassBroadcast"),
        ("in 10 minutes lock the entry lock", "HassStartTimer"),
    ],
)
async def test_a_timer_or_broadcast_is_handed_over_with_the_device(
    matcher: LocalMatcher, text: str, intent: str
) -> None:
    """Recognised here, even with a model configured: the model has no timers to offer."""
    home = english_home()
    executor = VirtualExecutor(home)
    turn = await say(matcher, home, text, executor)
    assert turn is not None
    assert turn.outcome.name == intent
    assert executor.handed == (HandedSentence(text, "en", "satellite-hall"),)
    # A dry run sends nothing, and says so rather than claiming a timer.
    assert turn.reply == messages_for("en").handed_in_dry_run


@pytest.mark.parametrize(
    "text",
    [
        "in 10 minutes unlock the entry lock",  # the default policy asks before an unlock
        "in 10 minutes turn on the moon base",  # nothing in the home by that name
    ],
)
async def test_a_delayed_command_the_gate_would_not_let_through_now_is_not_scheduled(
    matcher: LocalMatcher, text: str
) -> None:
    """Home Assistant would run the command later, unasked: it is refused now, and said so."""
    home = english_home()
    executor = VirtualExecutor(home)
    turn = await say(matcher, home, text, executor)
    assert turn is not None
    assert executor.handed == ()
    assert turn.reply == messages_for("en").delayed_command_refused
    assert turn.error is not None
    assert [decision.verdict for decision in turn.outcome.decisions] == ["refuse"]
