"""Over Wyoming against the real Home Assistant 2025.4.4: the question is the spoken reply.

Home Assistant 2025.4 sends the transcript's text alone (no conversation, no satellite), so its
next transcript answers; a newer client naming its satellite is answered from that satellite.
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
from devtools.home_assistant import HomeAssistantProcess
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
QUESTION = "Unlock Front Door? Say yes to confirm."
Say = Callable[[int, str], Awaitable[list[Event]]]
"""Sends a transcript's text to the Wyoming port, as one kind of client does; the events back."""


async def locked_and_exposed(home: HomeAssistantProcess) -> None:
    """Start from the front door exposed to Assist and locked (an earlier test unlocked it)."""
    await home.expose_entities([LOCK])
    await home.request("POST", "/api/services/lock/lock", {"entity_id": LOCK})
    await until_state(home, LOCK, "locked")


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


async def test_home_assistants_own_wyoming_agent_confirms_the_unlock(
    start_app: StartApp, module_home_assistant: HomeAssistantProcess
) -> None:
    """Through HA's conversation API and its Wyoming agent, the question, then "yes", unlocks."""
    home = module_home_assistant
    await locked_and_exposed(home)
    client = await start_for(start_app, home)
    agent_id = await add_wyoming_integration(home, wyoming_port(client))
    asked = await home.request(
        "POST", "/api/conversation/process", {"text": "unlock the front door", "agent_id": agent_id}
    )
    assert asked["response"]["speech"]["plain"]["speech"] == QUESTION
    # What the satellite would do next: Home Assistant 2025.4 does not keep it listening.
    assert asked["continue_conversation"] is False
    await still_locked(client, home)
    done = await home.request(
        "POST", "/api/conversation/process", {"text": "yes", "agent_id": agent_id}
    )
    assert done["response"]["speech"]["plain"]["speech"] == "Done."
    await until_state(home, LOCK, "unlocked")
