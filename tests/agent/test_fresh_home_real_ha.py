"""Read your writes, in the real Home Assistant: a command right after a registry change acts.

A synthetic home (devtools/ha_synthetic_home) in each supported Home Assistant, and Home Agent with
no model (the local path). Each test changes the home as the UI does (a rename, an area move,
exposing an entity, an entity added by reloading the home), and at once, with no pause, sends
the command that names the changed thing through the agent; Home Assistant's state shows that
it acted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from aiohttp import web

from addon import keys
from addon.agent.conversation import ConversationRequest, ConversationResult
from devtools.home_assistant import HomeAssistantProcess, build_template
from devtools.side_by_side import synthetic_home_process
from tests.fixtures.app import MakeApp, MakeSettings

pytestmark = pytest.mark.homeassistant

PATIENCE_S = 30.0
HOME: dict[str, Any] = {
    "name": "Fresh flat",
    "language": "en",
    "areas": [
        {"id": "kitchen", "name": "Kitchen"},
        {"id": "hall", "name": "Hall"},
        {"id": "study", "name": "Study"},
    ],
    "entities": [
        {"entity_id": "light.kitchen", "name": "Kitchen light", "area": "kitchen", "state": "off"},
        {"entity_id": "light.reading", "name": "Reading lamp", "area": "hall", "state": "off"},
        {
            "entity_id": "fan.desk",
            "name": "Desk fan",
            "area": "hall",
            "state": "off",
            "exposed": False,
        },
        {"entity_id": "switch.kettle", "name": "Kettle", "area": "kitchen", "state": "off"},
    ],
}
ADDED = {"entity_id": "light.attic", "name": "Attic light", "area": "hall", "state": "off"}


class SyntheticHome:
    """The module's Home Assistant with the synthetic home, and the fixture file it reads."""

    def __init__(self, process: HomeAssistantProcess, home_file: Path) -> None:
        self.process = process
        self.home_file = home_file

    async def until_entities(self, *entity_ids: str) -> None:
        """Wait until Home Assistant has a state for every entity (the setup runs after boot)."""
        async with asyncio.timeout(PATIENCE_S):
            while not {s["entity_id"] for s in await self.process.states()} >= set(entity_ids):  # noqa: ASYNC110 - polls HA
                await asyncio.sleep(0.1)

    async def reset(self) -> None:
        """Every entity back to its fixture state (each test starts from it)."""
        await self.process.request("POST", "/api/services/synthetic_home/reset", {})

    async def reload(self) -> None:
        """Reload the synthetic home's config entry: the fixture file is read again."""
        entries = await self.process.websocket_command(
            {"type": "config_entries/get", "domain": "synthetic_home"}
        )
        entry_id = entries[0]["entry_id"]
        await self.process.request("POST", f"/api/config/config_entries/entry/{entry_id}/reload")

    async def state(self, entity_id: str) -> str:
        """The entity's state as Home Assistant reports it now."""
        return str((await self.process.state(entity_id))["state"])


@pytest.fixture(scope="module")
def synthetic(ha_version: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SyntheticHome]:
    """Home Assistant without the demo, with the synthetic home, for this module's tests."""
    root = tmp_path_factory.mktemp("fresh-home")
    template = build_template(root / "template", demo=False, version=ha_version)
    home_file = root / "home.yaml"
    home_file.write_text(yaml.safe_dump({"home": HOME}), "utf-8")
    process = synthetic_home_process(template, root / "home", home_file)
    process.start()
    home = SyntheticHome(process, home_file)
    asyncio.run(home.until_entities(*(entity["entity_id"] for entity in HOME["entities"])))
    yield home
    process.kill()


@pytest.fixture
async def app(
    aiohttp_client: Callable[..., Any],
    make_app: MakeApp,
    make_settings: MakeSettings,
    synthetic: SyntheticHome,
) -> web.Application:
    """Home Agent with no model, linked to the synthetic home, its model built."""
    await synthetic.reset()
    settings = make_settings(
        ha_url=synthetic.process.url,
        ha_token=synthetic.process.token,
        llm_base_url="",
        local_first=True,
        language="en",
    )
    client = await aiohttp_client(make_app(settings))
    application: web.Application = client.server.app
    sync = application[keys.HOME_SYNC]
    await sync.wait_ready(PATIENCE_S)
    # What is tested is that the turn waits for the change, not that a loaded test machine
    # brings it within the 1 s a user's turn waits at most.
    sync.fresh_wait = PATIENCE_S
    return application


async def say(app: web.Application, text: str) -> ConversationResult:
    """One sentence through the agent, as an endpoint hands it over."""
    return await app[keys.AGENT].process(ConversationRequest(text, source="http", language="en"))


async def test_a_renamed_entity_is_commanded_by_its_new_name_at_once(
    app: web.Application, synthetic: SyntheticHome
) -> None:
    """Renamed in the registry, then "turn on" by the new name: the light goes on."""
    await synthetic.process.websocket_command(
        {"type": "config/entity_registry/update", "entity_id": "light.kitchen", "name": "Pantry"}
    )
    result = await say(app, "turn on the pantry")
    state = await synthetic.state("light.kitchen")
    assert (result.handled_by, state) == ("local", "on"), result.reply


async def test_an_entity_moved_to_another_area_is_commanded_there_at_once(
    app: web.Application, synthetic: SyntheticHome
) -> None:
    """Moved to the study (which had no light), then "lights in the study": it goes on."""
    await synthetic.process.websocket_command(
        {"type": "config/entity_registry/update", "entity_id": "light.reading", "area_id": "study"}
    )
    result = await say(app, "turn on the lights in the study")
    state = await synthetic.state("light.reading")
    assert (result.handled_by, state) == ("local", "on"), result.reply


async def test_an_entity_exposed_in_the_ui_is_commanded_at_once(
    app: web.Application, synthetic: SyntheticHome
) -> None:
    """Exposed to Assist as the Expose tab does it, then commanded: the fan goes on."""
    await synthetic.process.expose_entities(["fan.desk"])
    result = await say(app, "turn on the desk fan")
    state = await synthetic.state("fan.desk")
    assert (result.handled_by, state) == ("local", "on"), result.reply


async def test_an_entity_added_by_a_reload_is_commanded_at_once(
    app: web.Application, synthetic: SyntheticHome
) -> None:
    """An entity added to the home (the integration reloaded), then commanded: it goes on."""
    synthetic.home_file.write_text(
        yaml.safe_dump({"home": {**HOME, "entities": [*HOME["entities"], ADDED]}}), "utf-8"
    )
    await synthetic.reload()
    result = await say(app, "turn on the attic light")
    state = await synthetic.state("light.attic")
    assert (result.handled_by, state) == ("local", "on"), result.reply
