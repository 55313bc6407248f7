"""The HTTP API end to end against the real Home Assistant demo home (dry runs only)."""

from __future__ import annotations

import pytest

from addon import keys
from devtools.home_assistant import HomeAssistantProcess
from tests.fixtures.app import MakeSettings
from tests.ha.waiting import until
from tests.web.api.conftest import StartApp
from tests.web.api.events import read_events

pytestmark = pytest.mark.homeassistant


async def test_local_command_reports_its_action(
    start_app: StartApp, make_settings: MakeSettings, home_assistant: HomeAssistantProcess
) -> None:
    """A command the local matcher knows comes back with its action and target, streamed too."""
    settings = make_settings(ha_url=home_assistant.url, ha_token=home_assistant.token)
    client = await start_app(settings)
    await until(lambda: client.app[keys.HOME_SYNC].model is not None, seconds=20)
    response = await client.post(
        "/api/conversation/stream",
        # A dry run acts on a copy, so the shared home is left as it was.
        json={"text": "turn on the kitchen lights", "dry_run": True},
    )
    events = await read_events(response)
    result = events[-1].json()
    assert result["handled_by"] == "local"
    assert [(a["success"], a["targets"]) for a in result["actions"]] == [
        (True, ["light.kitchen_lights"])
    ]
    assert "".join(e.json()["text"] for e in events[:-1]) == result["reply"]
