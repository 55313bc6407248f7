"""Over Wyoming against the real Home Assistant: the question is the spoken reply.

Home Assistant 2025.4 sends the transcript's text alone (no conversation, no satellite), so its
next transcript answers; 2026.11 names the conversation (and the satellite), so only the same
conversation or satellite answers; a client naming its satellite is answered from that satellite.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from wyoming.event import Event

from addon import keys
from addon.home.actions.live import LiveExecutor
from devtools.home_assistant import OLDEST_VERSION, HomeAssistantProcess
from devtools.scripted_llm import ScriptedLLM
from tests.fixtures.homeassistant import settle_to
from tests.wyoming.conftest import (
    StartApp,
    converse,
    final,
    say_as_home_assistant_2025_4,
    wyoming_port,
)
from tests.wyoming.test_home_assistant import add_wyoming_integration, start_for, until_state

pytestmark = pytest.mark.homeassistant
LOCK = "lock.front_door"
HALL = {"device_id": "satellite-hall"}
QUESTION = "Unlock the Front Door? Say yes to confirm."
Say = Callable[[int, str], Awaitable[list[Event]]]
"""Sends a transcript's text to the Wyoming port, as one kind of client does; the events back."""


async def locked_and_exposed(home: HomeAssistantProcess) -> None:
    """Start from the front door exposed to Assist and locked (an earlier test unlocked it)."""
    await home.expose_entities([LOCK])
    await settle_to(home, LOCK, "lock", "locked")


async def held_until_the_next_transcript(
    start_app: StartApp, home: HomeAssistantProcess, say: Say
) -> None:
    """Saying "unlock the front door" with ``say`` asks and holds; "yes" the same way unlocks."""
    await locked_and_exposed(home)
    client = await start_for(start_app, home)
    port = wyoming_port(client)
    asked = final(await say(port, "unlock the front door"))
    assert asked.data["text"] == QUESTION
    await still_locked(client, home)
    done = final(await say(port, "yes"))
    assert done.data["text"] == "Done."
    await until_state(home, LOCK, "unlocked")


async def still_locked(client: TestClient[Any, Any], home: HomeAssistantProcess) -> None:
    """Once every held action had its chance to run, the front door is still locked."""
    live = client.server.app[keys.AGENT].live_executor
    assert isinstance(live, LiveExecutor)
    await live.drain()
    assert (await home.state(LOCK))["state"] == "locked"


async def test_the_satellites_next_transcript_confirms_the_unlock(
    start_app: StartApp, module_home_assistant: HomeAssistantProcess
) -> None:
    """The satellite hears the question; its next transcript, "yes", unlocks the front door."""
    await held_until_the_next_transcript(
        start_app, module_home_assistant, partial(converse, context=HALL)
    )


async def test_home_assistant_2025_4s_next_bare_transcript_confirms_the_unlock(
    start_app: StartApp, module_home_assistant: HomeAssistantProcess
) -> None:
    """Transcripts as Home Assistant 2025.4 sends them (text alone): "yes" unlocks the door."""
    await held_until_the_next_transcript(
        start_app, module_home_assistant, say_as_home_assistant_2025_4
    )


async def ask_home_assistant(
    home: HomeAssistantProcess, agent_id: str, text: str, conversation_id: str | None = None
) -> dict[str, Any]:
    """One sentence through Home Assistant's conversation API to its Wyoming agent (ours)."""
    body = {"text": text, "agent_id": agent_id}
    if conversation_id is not None:
        body["conversation_id"] = conversation_id
    answer: dict[str, Any] = await home.request("POST", "/api/conversation/process", body)
    return answer


def speech(answer: dict[str, Any]) -> str:
    """What Home Assistant would say for ``answer``."""
    return str(answer["response"]["speech"]["plain"]["speech"])


async def test_home_assistants_own_wyoming_agent_confirms_the_unlock(
    start_app: StartApp,
    module_home_assistant: HomeAssistantProcess,
    ha_version: str,
    scripted_llm: ScriptedLLM,
) -> None:
    """Through HA's conversation API and its Wyoming agent: the question, then "yes", unlocks.

    2025.4 names no conversation, so its next sentence answers. 2026.11 names one: a "yes" in
    another conversation leaves the door locked, the same conversation's "yes" unlocks it.
    """
    home = module_home_assistant
    await locked_and_exposed(home)
    client = await start_for(start_app, home)
    agent_id = await add_wyoming_integration(home, wyoming_port(client))
    asked = await ask_home_assistant(home, agent_id, "unlock the front door")
    assert speech(asked) == QUESTION
    # What the satellite would do next: Home Assistant does not keep it listening (2026.11's
    # Wyoming agent reads only the reply's text, not the context asking to continue).
    assert asked["continue_conversation"] is False
    await still_locked(client, home)
    if ha_version != OLDEST_VERSION:
        # Not an answer to anything there: a new request, which goes to the model.
        scripted_llm.reply("Yes to what?")
        elsewhere = await ask_home_assistant(home, agent_id, "yes")
        assert elsewhere["conversation_id"] != asked["conversation_id"]
        assert speech(elsewhere) == "Yes to what?"
        await still_locked(client, home)
    done = await ask_home_assistant(home, agent_id, "yes", asked["conversation_id"])
    assert speech(done) == "Done."
    await until_state(home, LOCK, "unlocked")


async def test_a_question_said_instead_of_yes_through_home_assistant_is_answered(
    start_app: StartApp, module_home_assistant: HomeAssistantProcess, scripted_llm: ScriptedLLM
) -> None:
    """After the held unlock, "is the front door locked?" is answered, and cancels the unlock.

    Through Home Assistant's own Wyoming agent, whose 2025.4 names nobody: its next sentence
    was once taken for a cancel and swallowed ("OK, I left it locked.").
    """
    home = module_home_assistant
    await locked_and_exposed(home)
    client = await start_for(start_app, home)
    agent_id = await add_wyoming_integration(home, wyoming_port(client))
    asked = await ask_home_assistant(home, agent_id, "unlock the front door")
    assert speech(asked) == QUESTION
    conversation_id = asked["conversation_id"]
    answered = await ask_home_assistant(home, agent_id, "is the front door locked", conversation_id)
    assert speech(answered).lower().startswith("yes")
    scripted_llm.reply("Yes to what?")  # nothing waits: a "yes" now is a request of its own
    late = await ask_home_assistant(home, agent_id, "yes", conversation_id)
    assert speech(late) == "Yes to what?"
    await still_locked(client, home)
