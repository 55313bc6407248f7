"""Over Wyoming against the real Home Assistant 2025.4.4: the question is the spoken reply."""

from __future__ import annotations

import pytest

from addon import keys
from addon.home.actions.live import LiveExecutor
from tests.fixtures.homeassistant import FreshHomeAssistant
from tests.wyoming.conftest import StartApp, converse, final, wyoming_port
from tests.wyoming.test_home_assistant import start_for, until_state

pytestmark = pytest.mark.homeassistant
LOCK = "lock.front_door"
HALL = {"device_id": "satellite-hall"}


async def test_the_satellites_next_transcript_confirms_the_unlock(
    start_app: StartApp, fresh_home_assistant: FreshHomeAssistant
) -> None:
    """The satellite hears the question; its next transcript, "yes", unlocks the front door."""
    home = fresh_home_assistant()
    await home.expose_entities([LOCK])
    client = await start_for(start_app, home)
    port = wyoming_port(client)
    asked = final(await converse(port, "unlock the front door", context=HALL))
    assert asked.data["text"] == "Unlock Front Door? Say yes to confirm."
    live = client.server.app[keys.AGENT].live_executor
    assert isinstance(live, LiveExecutor)
    await live.drain()
    assert (await home.state(LOCK))["state"] == "locked"
    done = final(await converse(port, "yes", context=HALL))
    assert done.data["text"] == "Done."
    await until_state(home, LOCK, "unlocked")
