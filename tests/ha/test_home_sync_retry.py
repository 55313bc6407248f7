"""The home model never goes stale silently: failed snapshots and failed diffs bring new ones."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from addon.ha.client import HomeAssistantClient
from addon.ha.home_sync import HomeSync
from addon.home.model.live import HomeModel
from tests.ha.conftest import MakeClient
from tests.ha.fake_ws_server import FakeConnection, FakeHomeAssistant
from tests.ha.test_home_sync import KITCHEN_STATE, ScriptedHome
from tests.ha.waiting import until

RETRY_S = 0.05


def malformed(fake_ha: FakeHomeAssistant, command_type: str, answer: Any, times: int = 1) -> None:
    """Answer ``command_type`` with ``answer`` (not what Home Assistant sends) ``times`` times."""
    original = fake_ha.handlers[command_type]
    left = [times]

    async def handle(connection: FakeConnection, message: dict[str, Any]) -> None:
        left[0] -= 1
        if left[0] == 0:
            fake_ha.handlers[command_type] = original
        await connection.result(message["id"], answer)

    fake_ha.handlers[command_type] = handle


@pytest.fixture
def home(fake_ha: FakeHomeAssistant) -> ScriptedHome:
    """The one-light home on the scripted server."""
    return ScriptedHome(fake_ha)


@pytest.fixture
async def linked(make_client: MakeClient, home: ScriptedHome) -> HomeAssistantClient:
    """A client not yet started, with the scripted home in place."""
    return await make_client(start=False)


@pytest.fixture
async def sync(linked: HomeAssistantClient) -> AsyncIterator[HomeSync]:
    """A HomeSync whose client has connected and whose first model is built."""
    home_sync = HomeSync(linked, debounce=0.01, retry_interval=RETRY_S)
    await home_sync.start()
    await linked.start()
    await linked.wait_connected(5.0)
    yield home_sync
    await home_sync.stop()


def current(sync: HomeSync) -> HomeModel:
    assert sync.model is not None
    return sync.model


async def test_a_snapshot_the_build_cannot_take_in_is_retried_on_connect(
    linked: HomeAssistantClient, fake_ha: FakeHomeAssistant, home: ScriptedHome
) -> None:
    """A malformed registry answer on connect is tried again, and the home loads."""
    malformed(fake_ha, "config/entity_registry/list", {"not": "a list"})
    home_sync = HomeSync(linked, retry_interval=RETRY_S)
    await home_sync.start()
    await linked.start()
    try:
        await home_sync.wait_ready(5.0)
        state = current(home_sync).state("light.kitchen")
        assert (home_sync.refreshes, state and state.state) == (1, "on")
    finally:
        await home_sync.stop()


async def test_a_failed_refresh_is_retried_with_backoff_until_the_model_is_current(
    sync: HomeSync,
    fake_ha: FakeHomeAssistant,
    home: ScriptedHome,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A registry change whose refresh fails three times reaches the model, later each time."""
    home.area_name = "Cookhouse"
    malformed(fake_ha, "config/area_registry/list", "not a list", times=3)
    with caplog.at_level(logging.ERROR, logger="addon.ha.home_sync"):
        await home.fire_registry_event(fake_ha.latest, "area_registry_updated")
        await until(lambda: current(sync).areas["kitchen"].name == "Cookhouse")
    delays = [float(found) for found in re.findall(r"trying again in ([\d.]+) s", caplog.text)]
    assert delays == [RETRY_S, 2 * RETRY_S, 4 * RETRY_S]
    assert "failure 3 in a row; the last model stays in use" in caplog.text
    assert sync.refreshes == 2


async def test_a_state_change_that_cannot_be_applied_brings_a_new_snapshot(
    sync: HomeSync, home: ScriptedHome
) -> None:
    """A diff the model cannot take in is dropped by the dispatcher, and the home re-synced."""
    home.state = {**KITCHEN_STATE, "s": "off"}
    await home.send_diff({"c": {"light.kitchen": "not a diff"}})
    await until(lambda: sync.refreshes == 2)
    state = current(sync).state("light.kitchen")
    assert state is not None
    assert state.state == "off"
