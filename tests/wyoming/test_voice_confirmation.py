"""Confirming by voice through Home Assistant 2025.4, whose transcripts carry the text alone.

The product's Wyoming server and handler serve an agent over the demo home (its front door
exposed, the default confirmation policy), acting through the virtual executor on that home;
the real wyoming client sends each transcript exactly as Home Assistant 2025.4 does.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial
from typing import Any

import pytest
from wyoming.asr import Transcript

from addon.agent.conversation import ConversationRequest
from addon.agent.service import Agent
from addon.home.model.live import HomeModel
from addon.wyoming.handler import AgentEventHandler
from addon.wyoming.info import build_info
from addon.wyoming.server import WyomingServer
from tests.eval.test_confirmation import default_policy
from tests.fixtures.agent import MakeAgent, ManualClock
from tests.wyoming.conftest import exchange, final, say_as_home_assistant_2025_4

LOCK = "lock.front_door"
QUESTION = "Unlock the Front Door? Say yes to confirm."


@dataclass(frozen=True, slots=True)
class Voice:
    """The agent behind a Wyoming server, its home, its clock, and the port to talk to."""

    agent: Agent
    home: HomeModel
    clock: ManualClock
    port: int

    def lock_state(self) -> str:
        """The front door's state as the home has it now."""
        state = self.home.state(LOCK)
        assert state is not None
        return state.state

    async def say(self, text: str) -> str:
        """Say ``text`` as Home Assistant 2025.4 passes it on; the reply's text."""
        return str(final(await say_as_home_assistant_2025_4(self.port, text)).data["text"])

    async def conversation_of(self, text: str) -> str:
        """Say ``text`` as Home Assistant 2025.4 does; the conversation the reply names."""
        answer = final(await say_as_home_assistant_2025_4(self.port, text))
        return str(answer.data["context"]["conversation_id"])


@pytest.fixture
async def voice(make_agent: MakeAgent, demo_home_data: dict[str, Any]) -> AsyncIterator[Voice]:
    """A Wyoming server over an agent whose demo home has its front door exposed."""
    data = copy.deepcopy(demo_home_data)
    data["exposure"][LOCK] = {"conversation": True}
    home = HomeModel.build(**data)
    clock = ManualClock()
    agent = make_agent(home=home, clock=clock, confirmation=default_policy)
    server = WyomingServer("127.0.0.1", 0)
    await server.start(partial(AgentEventHandler, agent=agent, info=build_info()))
    try:
        yield Voice(agent, home, clock, server.bound_port)
    finally:
        await server.stop()


async def test_a_bare_yes_performs_what_a_bare_request_held(voice: Voice) -> None:
    """Home Assistant 2025.4's "unlock the front door" is held; its next "yes" unlocks."""
    assert await voice.say("unlock the front door") == QUESTION
    assert voice.lock_state() == "locked"
    assert await voice.say("yes") == "Done."
    assert voice.lock_state() == "unlocked"


async def test_the_bare_yes_joins_the_questions_conversation(voice: Voice) -> None:
    """The answer is stored in the conversation that asked, though no id came with it."""
    asked = await voice.conversation_of("unlock the front door")
    assert await voice.conversation_of("yes") == asked


async def test_a_bare_other_answer_cancels_and_nothing_acts(voice: Voice) -> None:
    """A no, as the next bare transcript, cancels and says what is true: the door stays locked."""
    assert await voice.say("unlock the front door") == QUESTION
    assert await voice.say("no") == "OK, the Front Door is still locked."
    assert voice.lock_state() == "locked"


async def test_a_bare_yes_after_the_timeout_does_nothing(voice: Voice) -> None:
    """A "yes" after ``confirmation_timeout`` seconds leaves the door locked."""
    assert await voice.say("unlock the front door") == QUESTION
    voice.clock.advance(voice.agent.options.confirmation_timeout + 1)
    assert await voice.say("yes") != "Done."
    assert voice.lock_state() == "locked"


async def test_the_question_is_answered_only_once(voice: Voice) -> None:
    """After a bare "no" cancelled it, a bare "yes" finds nothing to confirm."""
    await voice.say("unlock the front door")
    await voice.say("no")
    assert await voice.say("yes") != "Done."
    assert voice.lock_state() == "locked"


async def test_an_http_turn_cannot_answer_a_bare_voice_hold(voice: Voice) -> None:
    """A "yes" over HTTP in the held conversation's own id does not unlock the door."""
    asked = await voice.conversation_of("unlock the front door")
    answer = await voice.agent.process(
        ConversationRequest("yes", source="http", conversation_id=asked)
    )
    assert answer.reply != "Done."
    assert voice.lock_state() == "locked"


async def test_a_satellites_hold_is_not_answered_by_a_bare_yes(voice: Voice) -> None:
    """What a named satellite's request held waits for that satellite, not for a bare yes."""
    hall = Transcript(text="unlock the front door", context={"device_id": "satellite-hall"})
    assert final(await exchange(voice.port, hall.event())).data["text"] == QUESTION
    assert await voice.say("yes") != "Done."
    assert voice.lock_state() == "locked"


async def test_a_named_satellites_yes_does_not_answer_a_bare_hold(voice: Voice) -> None:
    """A "yes" that names its satellite does not answer what a bare request held."""
    assert await voice.say("unlock the front door") == QUESTION
    hall = Transcript(text="yes", context={"device_id": "satellite-hall"})
    assert final(await exchange(voice.port, hall.event())).data["text"] != "Done."
    assert voice.lock_state() == "locked"


async def test_a_bare_question_said_to_a_question_is_answered_and_cancels(voice: Voice) -> None:
    """A question said to a question is answered, not swallowed as a cancel."""
    assert await voice.say("unlock the front door") == QUESTION
    assert await voice.say("is the front door locked") == "Yes"
    assert await voice.say("yes") != "Done."
    assert voice.lock_state() == "locked"
