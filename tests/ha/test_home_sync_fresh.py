"""Read your writes: one entity's registry change patched in, and the bounded wait for changes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import pytest

from addon.ha.client import HomeAssistantClient
from addon.ha.home_sync import HomeSync
from addon.home.model.live import HomeModel
from tests.ha.conftest import MakeClient
from tests.ha.fake_ws_server import FakeConnection, FakeHomeAssistant
from tests.ha.test_home_sync import ScriptedHome
from tests.ha.waiting import until

ENTITY_EVENT = "entity_registry_updated"
GET_ENTRIES = "config/entity_registry/get_entries"
# Never reached in these tests: a snapshot starts only when a turn asks for it.
LONG_DEBOUNCE_S = 600.0


@pytest.fixture
def home(fake_ha: FakeHomeAssistant) -> ScriptedHome:
    """The one-light home on the scripted server."""
    return ScriptedHome(fake_ha)


@pytest.fixture
async def linked(make_client: MakeClient, home: ScriptedHome) -> HomeAssistantClient:
    """A client not yet started, with the scripted home in place."""
    return await make_client(start=False)


async def started(linked: HomeAssistantClient, **options: Any) -> HomeSync:
    home_sync = HomeSync(linked, **options)
    await home_sync.start()
    await linked.start()
    await home_sync.wait_ready(5.0)
    return home_sync


@pytest.fixture
async def sync(linked: HomeAssistantClient) -> AsyncIterator[HomeSync]:
    """A HomeSync with its first model, whose debounced snapshots never come on their own."""
    home_sync = await started(linked, debounce=LONG_DEBOUNCE_S, fresh_wait=30.0)
    yield home_sync
    await home_sync.stop()


def update(entity_id: str, **extra: Any) -> dict[str, Any]:
    """``entity_registry_updated``'s data for an update, as Home Assistant fires it."""
    return {"action": "update", "entity_id": entity_id, "changes": {}, **extra}


async def reported(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant, event: str, data: Any
) -> None:
    """Fire ``event`` while get_entries is held, and return once the sync has heard it."""
    home.hold_details.clear()
    await home.fire_registry_event(fake_ha.latest, event, data)
    await until(lambda: sync.behind)


async def fresh_after_release(sync: HomeSync, home: ScriptedHome) -> HomeModel:
    """A turn's ``fresh()`` started while the change is pending, then the fetch let through."""
    turn = asyncio.create_task(sync.fresh())
    await asyncio.sleep(0)  # the turn is waiting now
    home.hold_details.set()
    model = await turn
    assert model is not None
    return model


async def test_a_rename_is_patched_in_before_the_turn_reads_the_model(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant
) -> None:
    """A turn arriving while the renamed entry is fetched waits and finds the new name."""
    home.entries["light.kitchen"]["name"] = "Cooker light"
    await reported(sync, home, fake_ha, ENTITY_EVENT, update("light.kitchen"))
    model = await fresh_after_release(sync, home)
    entity = model.entity("light.kitchen")
    assert entity is not None
    assert ("cooker light" in entity.name_keys, sync.refreshes, sync.patches) == (True, 1, 1)


async def test_new_aliases_are_found_by_name_after_the_patch(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant
) -> None:
    """An alias added in the UI is in the model's name index once the turn may match."""
    home.entries["light.kitchen"]["aliases"] = ["Stove lamp"]
    await reported(sync, home, fake_ha, ENTITY_EVENT, update("light.kitchen"))
    model = await fresh_after_release(sync, home)
    assert model.index.by_name.get("stove lamp") == frozenset({"light.kitchen"})


async def test_exposure_set_in_the_ui_is_patched_in(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant
) -> None:
    """Hiding an entity from Assist (its registry options) reaches the model without a snapshot."""
    home.entries["light.kitchen"]["options"] = {"conversation": {"should_expose": False}}
    changes = {"options": {"conversation": {"should_expose": True}}}
    await reported(sync, home, fake_ha, ENTITY_EVENT, update("light.kitchen", changes=changes))
    model = await fresh_after_release(sync, home)
    assert (model.is_exposed("light.kitchen"), sync.refreshes) == (False, 1)


async def test_an_area_move_is_patched_in(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant
) -> None:
    """An entity moved out of its area leaves the area's index at once."""
    home.entries["light.kitchen"]["area_id"] = None
    await reported(sync, home, fake_ha, ENTITY_EVENT, update("light.kitchen"))
    model = await fresh_after_release(sync, home)
    assert "light.kitchen" not in model.index.by_area.get("kitchen", frozenset())


async def test_a_changed_entity_id_moves_the_entry(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant
) -> None:
    """A new entity id: the old id's entry goes, the new one's comes, from one event."""
    home.entries["light.cooker"] = {
        **home.entries.pop("light.kitchen"),
        "entity_id": "light.cooker",
    }
    data = update("light.cooker", old_entity_id="light.kitchen")
    await reported(sync, home, fake_ha, ENTITY_EVENT, data)
    model = await fresh_after_release(sync, home)
    old, new = model.entity("light.kitchen"), model.entity("light.cooker")
    assert (old is not None and old.entry, new is not None and new.entry is not None) == (
        None,
        True,
    )


async def test_the_patched_model_is_a_new_object(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant
) -> None:
    """Caches kept per model object (slot lists, the overview) see a patched home as new."""
    before = sync.model
    home.entries["light.kitchen"]["name"] = "Cooker light"
    await reported(sync, home, fake_ha, ENTITY_EVENT, update("light.kitchen"))
    assert await fresh_after_release(sync, home) is not before


async def test_state_changes_still_reach_the_patched_model(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant
) -> None:
    """After a patch, subscribe_entities' diffs go to the model now in use."""
    home.entries["light.kitchen"]["name"] = "Cooker light"
    await reported(sync, home, fake_ha, ENTITY_EVENT, update("light.kitchen"))
    await fresh_after_release(sync, home)
    await home.send_diff({"c": {"light.kitchen": {"+": {"s": "off", "lc": 2.0}}}})
    await until(
        lambda: (s := sync.model and sync.model.state("light.kitchen")) and s.state == "off"
    )


async def test_a_state_change_never_makes_a_turn_wait(
    sync: HomeSync, home: ScriptedHome, linked: HomeAssistantClient
) -> None:
    """State events are applied as they come: nothing is pending after one."""
    home.hold_details.clear()  # a fetch would hang; none is made
    await home.send_diff({"c": {"light.kitchen": {"+": {"s": "off", "lc": 2.0}}}})
    await linked.command({"type": "get_config"})  # answered after the diff: it was handled
    assert (sync.behind, sync.patches) == (False, 0)
    home.hold_details.set()


async def test_a_turn_starts_a_pending_snapshot_at_once(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant
) -> None:
    """An area renamed: a turn does not wait out the debounce, it starts the snapshot."""
    home.area_name = "Cookhouse"
    await home.fire_registry_event(fake_ha.latest, "area_registry_updated")
    await until(lambda: sync.behind)
    model = await sync.fresh()
    assert model is not None
    assert (model.areas["kitchen"].name, sync.refreshes) == ("Cookhouse", 2)


async def test_an_event_without_an_entity_takes_a_snapshot(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant
) -> None:
    """An entity registry event that names no entity cannot be patched: a snapshot instead."""
    await home.fire_registry_event(fake_ha.latest, ENTITY_EVENT, {})
    await until(lambda: sync.behind)
    await sync.fresh()
    assert (sync.refreshes, sync.patches) == (2, 0)


async def test_a_patch_that_cannot_be_fetched_brings_a_snapshot(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant
) -> None:
    """get_entries refused: the turn waits for the snapshot that replaces the patch."""
    home.fail_next.add("config/entity_registry/get_entries")
    await reported(sync, home, fake_ha, ENTITY_EVENT, update("light.kitchen"))
    await fresh_after_release(sync, home)
    assert (sync.refreshes, sync.patches, sync.behind) == (2, 0, False)


async def test_the_wait_is_bounded_and_logged(
    linked: HomeAssistantClient,
    home: ScriptedHome,
    fake_ha: FakeHomeAssistant,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A fetch that never answers: the turn gets the model as it is, and the log says why."""
    home_sync = await started(linked, debounce=LONG_DEBOUNCE_S, fresh_wait=0.05)
    home.entries["light.kitchen"]["name"] = "Cooker light"
    await reported(home_sync, home, fake_ha, ENTITY_EVENT, update("light.kitchen"))
    with caplog.at_level(logging.WARNING, logger="addon.ha.home_sync"):
        model = await home_sync.fresh()
    entity = model.entity("light.kitchen") if model is not None else None
    assert entity is not None
    assert "cooker light" not in entity.name_keys
    assert "still behind Home Assistant" in caplog.text
    assert "registry entries of" in caplog.text
    home.hold_details.set()
    await home_sync.stop()


async def test_a_patch_during_a_snapshot_is_kept_by_the_new_model(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant
) -> None:
    """A rename patched in while an older snapshot is built is applied to that snapshot too."""
    stale = {"light.kitchen": dict(home.entries["light.kitchen"])}
    release = asyncio.Event()
    calls: list[dict[str, Any]] = []
    original = fake_ha.handlers[GET_ENTRIES]

    async def snapshot_first(connection: FakeConnection, message: dict[str, Any]) -> None:
        calls.append(message)
        if len(calls) == 1:  # the snapshot's: read before the rename, answered after it
            await release.wait()
            await connection.result(message["id"], stale)
        else:
            await original(connection, message)

    fake_ha.handlers[GET_ENTRIES] = snapshot_first
    refresh = asyncio.create_task(sync.refresh())
    await until(lambda: len(calls) == 1)
    home.entries["light.kitchen"]["name"] = "Cooker light"
    await home.fire_registry_event(fake_ha.latest, ENTITY_EVENT, update("light.kitchen"))
    await until(lambda: sync.patches == 1)
    release.set()
    await refresh
    entity = sync.model.entity("light.kitchen") if sync.model is not None else None
    assert entity is not None
    assert ("cooker light" in entity.name_keys, sync.refreshes) == (True, 2)


async def test_a_change_still_on_the_wire_is_waited_for(
    sync: HomeSync, home: ScriptedHome, fake_ha: FakeHomeAssistant
) -> None:
    """An event Home Assistant sent before the turn's ping, not yet read: the turn sees it."""
    home.entries["light.kitchen"]["name"] = "Cooker light"
    connection = fake_ha.latest
    sub_id = next(
        sub_id
        for sub_id, message in connection.subscriptions.items()
        if message.get("event_type") == ENTITY_EVENT
    )
    event = {"event_type": ENTITY_EVENT, "data": update("light.kitchen")}
    fake_ha.before_pong.append({"id": sub_id, "type": "event", "event": event})
    model = await sync.fresh()
    entity = model.entity("light.kitchen") if model is not None else None
    assert entity is not None
    assert "cooker light" in entity.name_keys


async def test_a_failing_snapshot_ends_the_wait_and_says_so(
    sync: HomeSync,
    home: ScriptedHome,
    fake_ha: FakeHomeAssistant,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The snapshot a turn waits for fails: the turn goes on with the old model, logged."""
    home.area_name = "Cookhouse"
    home.fail_next.add("config/area_registry/list")
    await home.fire_registry_event(fake_ha.latest, "area_registry_updated")
    await until(lambda: sync.behind)
    with caplog.at_level(logging.WARNING, logger="addon.ha.home_sync"):
        model = await sync.fresh()
    assert model is not None
    assert model.areas["kitchen"].name == "Kitchen"
    assert "snapshots failed" in caplog.text
