"""The client and HomeSync against the real Home Assistant Core (demo home)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from addon.errors import HomeAssistantAuthError, HomeAssistantUnavailableError
from addon.ha.client import HomeAssistantClient
from addon.ha.home_sync import HomeSync
from addon.home.model.live import HomeModel
from devtools.home_assistant import HomeAssistantProcess
from tests.fixtures.homeassistant import FreshHomeAssistant, running
from tests.ha.waiting import Pauses, until

pytestmark = pytest.mark.homeassistant

KITCHEN = "light.kitchen_lights"
BED = "light.bed_light"
RealClient = Callable[..., Awaitable[HomeAssistantClient]]
SCRIPT_RUNNING = "home_agent_test_script_running"
# Bounds a reconnect that never comes; how soon it comes is the back-off's business (its tests).
RECONNECT_PATIENCE_S = 30.0


@pytest.fixture(scope="module")
def changeable_home(
    home_assistant_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HomeAssistantProcess]:
    """A demo home this module may change (lights, areas, exposure) without disturbing others."""
    config_dir = tmp_path_factory.mktemp("home-assistant") / "ha-link"
    yield from running(HomeAssistantProcess.from_template(home_assistant_template, config_dir))


@pytest.fixture
async def real_client(
    session: aiohttp.ClientSession,
) -> AsyncIterator[RealClient]:
    """Start clients against a real home; all stop at teardown."""
    clients: list[HomeAssistantClient] = []

    async def make(
        process: HomeAssistantProcess, *, token: str | None = None, **options: Any
    ) -> HomeAssistantClient:
        client = HomeAssistantClient(
            session,
            process.websocket_url,
            f"{process.url}/api",
            process.token if token is None else token,
            **options,
        )
        clients.append(client)
        await client.start()
        return client

    yield make
    for client in clients:
        await client.stop()


@pytest.fixture
async def client(
    real_client: RealClient, changeable_home: HomeAssistantProcess
) -> HomeAssistantClient:
    """A client connected to the changeable home."""
    connected = await real_client(changeable_home)
    await connected.wait_connected(15.0)
    return connected


@pytest.fixture
async def sync(
    real_client: RealClient, changeable_home: HomeAssistantProcess
) -> AsyncIterator[HomeSync]:
    """A HomeSync on its own client, with its first model built."""
    home_client = await real_client(changeable_home)
    home_sync = HomeSync(home_client)
    await home_sync.start()
    await home_sync.wait_ready(15.0)
    yield home_sync
    await home_sync.stop()


def _state_of(sync: HomeSync, entity_id: str) -> str | None:
    model = sync.model
    state = model.state(entity_id) if model is not None else None
    return state.state if state is not None else None


def _model(sync: HomeSync) -> HomeModel:
    assert sync.model is not None
    return sync.model


async def test_connects_and_authenticates(client: HomeAssistantClient, ha_version: str) -> None:
    """The long-lived token is accepted and Home Assistant's version is known."""
    assert (client.connected, client.ha_version) == (True, ha_version)


async def test_get_states_lists_demo_entities(client: HomeAssistantClient) -> None:
    """get_states returns the demo home's states."""
    states = await client.command({"type": "get_states"})
    assert KITCHEN in {state["entity_id"] for state in states}


async def test_call_service_turns_on_kitchen_lights(client: HomeAssistantClient) -> None:
    """light.turn_on through call_service turns the kitchen lights on."""
    await client.call_service("light", "turn_off", target={"entity_id": KITCHEN})
    await client.call_service("light", "turn_on", target={"entity_id": KITCHEN})
    state = await client.rest_get(f"/states/{KITCHEN}")
    assert state["state"] == "on"


async def test_subscribe_entities_sees_change(client: HomeAssistantClient) -> None:
    """subscribe_entities sends a snapshot, then a compressed diff for a service call."""
    events: list[dict[str, Any]] = []
    sub = await client.subscribe({"type": "subscribe_entities", "entity_ids": [BED]}, events.append)
    await until(lambda: bool(events))
    before = events[0]["a"][BED]["s"]
    service = "turn_off" if before == "on" else "turn_on"
    await client.call_service("light", service, target={"entity_id": BED})
    await until(lambda: len(events) >= 2)
    await sub.unsubscribe()
    assert events[1]["c"][BED]["+"]["s"] == ("off" if before == "on" else "on")


async def test_wrong_token_sets_auth_failed(
    real_client: RealClient,
    changeable_home: HomeAssistantProcess,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A token Home Assistant rejects ends in auth_failed, one error line and a long pause."""
    pauses = Pauses()
    rejected = await real_client(
        changeable_home, token="not-a-valid-token-at-all", auth_retry_interval=300.0, sleep=pauses
    )
    with pytest.raises(HomeAssistantAuthError):
        await rejected.wait_connected(10.0)
    pause = await pauses.next()  # parked until the next try: nothing more can happen meanwhile
    errors = [
        r for r in caplog.records if r.levelno >= logging.ERROR and r.name.startswith("addon")
    ]
    assert (rejected.auth_failed, len(errors), pause.seconds) == (True, 1, 300.0)


async def test_home_sync_builds_model(sync: HomeSync) -> None:
    """The model holds the demo home's lights, areas and exposure."""
    model = _model(sync)
    kitchen = model.entity(KITCHEN)
    assert kitchen is not None
    assert model.is_exposed(kitchen)
    assert len(model.entity_ids()) > 50


async def test_home_sync_follows_state_changes(sync: HomeSync, client: HomeAssistantClient) -> None:
    """A service call shows in the model, in place, with no new snapshot."""
    refreshes = sync.refreshes
    wanted = "off" if _state_of(sync, BED) == "on" else "on"
    await client.call_service("light", f"turn_{wanted}", target={"entity_id": BED})
    await until(lambda: _state_of(sync, BED) == wanted)
    assert sync.refreshes == refreshes


async def test_area_rename_refreshes_model(sync: HomeSync, client: HomeAssistantClient) -> None:
    """Renaming an area over WebSocket shows in the model without a restart."""
    area_id = next(iter(_model(sync).areas))
    new_name = f"Renamed {time.monotonic_ns()}"
    await client.command(
        {"type": "config/area_registry/update", "area_id": area_id, "name": new_name}
    )
    await until(lambda: _model(sync).areas[area_id].name == new_name)


async def test_exposure_change_refreshes_model(sync: HomeSync, client: HomeAssistantClient) -> None:
    """Hiding an entity from Assist over WebSocket shows in the model without a restart."""
    entity_id = "light.ceiling_lights"
    assert _model(sync).is_exposed(entity_id)
    await client.command(
        {
            "type": "homeassistant/expose_entity",
            "assistants": ["conversation"],
            "entity_ids": [entity_id],
            "should_expose": False,
        }
    )
    try:
        await until(lambda: not _model(sync).is_exposed(entity_id))
    finally:
        await client.command(
            {
                "type": "homeassistant/expose_entity",
                "assistants": ["conversation"],
                "entity_ids": [entity_id],
                "should_expose": True,
            }
        )


async def test_survives_home_assistant_restart(
    fresh_home_assistant: FreshHomeAssistant,
    real_client: RealClient,
    loop_errors: list[dict[str, Any]],
) -> None:
    """Stop HA mid-session and start it again: calls fail cleanly, then the model is current."""
    process = fresh_home_assistant()
    # A short back-off cap so the reconnect lands soon after Home Assistant is back.
    client = await real_client(process, backoff_max=1.0)
    sync = HomeSync(client)
    await sync.start()
    await sync.wait_ready(15.0)

    running = asyncio.Event()
    await client.subscribe(
        {"type": "subscribe_events", "event_type": SCRIPT_RUNNING},
        lambda _event: running.set(),
        resubscribe=False,
    )
    script = [{"event": SCRIPT_RUNNING}, {"delay": {"seconds": 60}}]
    in_flight = asyncio.ensure_future(
        client.command({"type": "execute_script", "sequence": script}, timeout=120)
    )
    async with asyncio.timeout(10):
        await running.wait()  # Home Assistant is running the script: the command is in flight
    await asyncio.to_thread(process.stop)
    with pytest.raises(HomeAssistantUnavailableError):
        await asyncio.wait_for(in_flight, 10.0)
    await until(lambda: not client.connected)
    with pytest.raises(HomeAssistantUnavailableError):
        await client.call_service("light", "turn_off", target={"entity_id": KITCHEN})
    assert not sync.live

    refreshes = sync.refreshes
    await process.async_start()
    await until(lambda: sync.refreshes > refreshes and sync.live, seconds=RECONNECT_PATIENCE_S)
    wanted = "off" if _state_of(sync, KITCHEN) == "on" else "on"
    await client.call_service("light", f"turn_{wanted}", target={"entity_id": KITCHEN})
    await until(lambda: _state_of(sync, KITCHEN) == wanted)
    await sync.stop()
    assert loop_errors == []
